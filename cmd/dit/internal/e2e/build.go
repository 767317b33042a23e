package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/dit-org/dit/internal/testneeds"
)

// Main is an end-to-end test package's TestMain. Under go test -short (the
// quick loop) it runs none of the package's tests: they build and run the
// real binary, which the quick loop never does (make test runs them).
// Otherwise it sets [Bin] to cmd/dit built without cgo, as released, and
// runs them.
func Main(m *testing.M) { os.Exit(Run(m)) }

// Run is [Main] without the exit: it returns the exit code, so that a
// package's TestMain can release after its tests what it shares among
// them (a card made once, a server).
func Run(m *testing.M) int {
	flag.Parse()
	if testing.Short() {
		fmt.Println("end-to-end tests of the dit binary: not run under -short (make test runs them)")
		return 0
	}
	bin, err := build()
	if err != nil {
		fmt.Fprintln(os.Stderr, "building dit:", err)
		return 1
	}
	Bin = bin
	return m.Run()
}

// DefaultParallel sets go test -parallel (how many parallel tests and
// subtests run at once; GOMAXPROCS by default) to n unless the command
// line gives it: for a package whose parallel subtests wait on the disk
// (fsync, deletions) more than they use a core, e.g. the kill points of
// cmd/dit/e2e/crash. Called from TestMain before [Main].
func DefaultParallel(n int) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		flag.Set("test.parallel", strconv.Itoa(n))
	}
}

// build builds cmd/dit once for all the end-to-end packages of a go test
// run (they run in parallel processes): under a lock, into the
// repository's .cache/e2e-bin, where go build links again only when the
// code changed (the file's build ID says so); then the binary is copied
// into a folder named by its content's hash, where nothing overwrites it
// while a test runs it. Copies unused for a day are removed.
func build() (string, error) {
	root, err := testneeds.RepoRoot()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(root, ".cache", "e2e-bin")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	unlock, err := lock(filepath.Join(dir, "lock"))
	if err != nil {
		return "", err
	}
	defer unlock()
	out := filepath.Join(dir, "dit-build")
	cmd := exec.Command("go", "build", "-o", out, "github.com/dit-org/dit/cmd/dit")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, b)
	}
	sum, err := fileHash(out)
	if err != nil {
		return "", err
	}
	// The binary is called dit, as users call it (tests put its folder
	// on PATH).
	bin := filepath.Join(dir, sum, "dit")
	if _, err := os.Stat(bin); err != nil {
		if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
			return "", err
		}
		if err := copyFile(out, bin); err != nil {
			return "", err
		}
	}
	now := time.Now()
	os.Chtimes(bin, now, now) // in use: not removed below by another run
	old, _ := filepath.Glob(filepath.Join(dir, "*", "dit"))
	for _, p := range old {
		if fi, err := os.Stat(p); err == nil && p != bin && now.Sub(fi.ModTime()) > 24*time.Hour {
			os.RemoveAll(filepath.Dir(p))
		}
	}
	return bin, nil
}

func fileHash(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// copyFile copies from to a new executable file to (through a temp name
// beside it, so that to is whole or absent).
func copyFile(from, to string) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	tmp := to + ".tmp"
	dst, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o755)
	if err != nil {
		return err
	}
	_, err = io.Copy(dst, src)
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, to)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}
