package e2e

import (
	"crypto/sha256"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// WithoutHistory drops the ascmhl/ folder dit writes into each card's
// folder on a destination (--mhl asc, the default) from a tree.
func WithoutHistory(m map[string][32]byte) map[string][32]byte {
	out := map[string][32]byte{}
	for k, v := range m {
		if !strings.HasPrefix(k, "ascmhl/") {
			out[k] = v
		}
	}
	return out
}

// WriteFile writes body to p and returns p.
func WriteFile(t *testing.T, p, body string) string {
	t.Helper()
	require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	return p
}

// FlipByte changes one byte in the middle of a file, keeping its size and
// modification time (what a stat sees).
func FlipByte(t *testing.T, p string) {
	t.Helper()
	fi, err := os.Stat(p)
	require.NoError(t, err)
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	b[len(b)/2] ^= 0x01
	require.NoError(t, os.WriteFile(p, b, 0o644))
	require.NoError(t, os.Chtimes(p, fi.ModTime(), fi.ModTime()))
}

// BigFiles lists the footage files of a card folder over 1000 bytes,
// sorted (the hash lists left out).
func BigFiles(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	for rel := range Footage(WithoutHistory(Tree(t, root))) {
		fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel)))
		require.NoError(t, err)
		if fi.Size() > 1000 {
			out = append(out, rel)
		}
	}
	require.GreaterOrEqual(t, len(out), 2)
	sort.Strings(out)
	return out
}

// DitTemps lists the temp files (*.dit-tmp) dit left under root.
func DitTemps(t *testing.T, root string) []string {
	var out []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(d.Name(), ".dit-tmp") {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// Manifests lists the ASC MHL manifests of a card folder's history.
func Manifests(t *testing.T, cardDir string) []string {
	m, err := filepath.Glob(filepath.Join(cardDir, "ascmhl", "*.mhl"))
	require.NoError(t, err)
	return m
}

// Inodes maps a folder's files to their inode numbers: a file rewritten
// gets a new one (dit writes a temp and renames it).
func Inodes(t *testing.T, root string) map[string]uint64 {
	t.Helper()
	out := map[string]uint64{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			fi, err := d.Info()
			require.NoError(t, err)
			rel, _ := filepath.Rel(root, p)
			out[filepath.ToSlash(rel)] = InodeOf(t, fi)
		}
		return nil
	})
	return out
}

// FillUp writes path until its filesystem is full, then frees leave bytes.
func FillUp(t *testing.T, path string, leave int64) {
	t.Helper()
	f, err := os.Create(path)
	require.NoError(t, err)
	buf := make([]byte, 1<<20)
	var n int64
	for {
		w, err := f.Write(buf)
		n += int64(w)
		if err != nil {
			break
		}
	}
	require.NoError(t, f.Truncate(max(n-leave, 0)))
	require.NoError(t, f.Close())
}

// Tree maps every regular file under root (slash-separated, relative)
// to its SHA-256.
func Tree(t *testing.T, root string) map[string][32]byte {
	out := map[string][32]byte{}
	require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			require.NoError(t, err)
			rel, _ := filepath.Rel(root, p)
			out[filepath.ToSlash(rel)] = sha256.Sum256(b)
		}
		return nil
	}))
	return out
}

// Footage drops OS junk from a card's tree (it is not copied).
func Footage(m map[string][32]byte) map[string][32]byte {
	out := map[string][32]byte{}
	for k, v := range m {
		junk := false
		for _, part := range strings.Split(k, "/") {
			if strings.HasPrefix(part, ".") {
				junk = true
			}
		}
		if !junk {
			out[k] = v
		}
	}
	return out
}

// NewBladeArray makes n empty blade folders (dir/Blade1...) and creates a
// dit array over them with `dit array create ARGS... BLADES...`.
func NewBladeArray(t *testing.T, db, dir string, n int, args ...string) []string {
	t.Helper()
	var blades []string
	for i := 1; i <= n; i++ {
		b := filepath.Join(dir, "Blade"+strconv.Itoa(i))
		require.NoError(t, os.Mkdir(b, 0o755))
		blades = append(blades, b)
	}
	r := Dit(t, db, append(append([]string{"array", "create"}, args...), blades...)...)
	require.Equal(t, 0, r.Code, r.Stderr)
	return blades
}

// TempDir is t.TempDir, removed when the test ends by [RemoveTree]: many
// files at once, not one after another (a test whose jobs leave
// thousands of files).
func TempDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	// Cleanups run last registered first: this one before t.TempDir's,
	// which finds the folder gone.
	t.Cleanup(func() { RemoveTree(dir) })
	return dir
}

// RemoveTree removes the folder root and all it holds, like os.RemoveAll,
// but deletes the files of several folders at once: on a disk mounted
// with discard (the 2-core VMs the suite runs on) each deletion waits on
// the device, so that one after another 4,000 files of a few bytes take
// 3 s, and four folders at a time 1 s.
func RemoveTree(root string) error {
	var dirs []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			dirs = append(dirs, p)
		}
		return nil
	})
	work := make(chan string)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for dir := range work {
				ents, _ := os.ReadDir(dir)
				for _, e := range ents {
					if !e.IsDir() {
						os.Remove(filepath.Join(dir, e.Name()))
					}
				}
			}
		})
	}
	for _, d := range dirs {
		work <- d
	}
	close(work)
	wg.Wait()
	return os.RemoveAll(root)
}
