package proxies

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/dit-org/dit/internal/hashing"
)

// Made is one proxy written (or found already there).
type Made struct {
	// Path is the proxy's final path; Size its bytes; Sums its hashes
	// (the job's algorithms), taken of the file once it has its name.
	Path string
	Size int64
	Sums hashing.Sums
}

// Error is a proxy ffmpeg could not make: Line is ffmpeg's error line.
type Error struct {
	Source string
	Line   string
	Err    error
}

func (e *Error) Error() string {
	if e.Line != "" {
		return fmt.Sprintf("ffmpeg could not make a proxy of %s: %s", e.Source, e.Line)
	}
	return fmt.Sprintf("ffmpeg could not make a proxy of %s: %v", e.Source, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// Encode runs ffmpeg (the binary at ffmpeg) to make spec's proxy of src
// as dir/base+ext, at low priority (nice 19, idle I/O class: [Start]).
// It writes a hidden temporary name in dir, then gives it the first free
// name: base.ext, else "base (2).ext", "base (3).ext" ... (dit's
// --on-conflict rename rule): an existing file is never overwritten. The
// proxy is hashed with algos once named. Cancelling ctx stops ffmpeg and
// leaves no file.
func Encode(ctx context.Context, ffmpeg string, spec Spec, src Source, dir, base string, algos []hashing.Algo) (*Made, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("making the proxies folder %s: %w (check that the destination is mounted and writable)", dir, err)
	}
	tok := make([]byte, 6)
	rand.Read(tok)
	tmp := filepath.Join(dir, ".dit-proxy-"+hex.EncodeToString(tok)+spec.Preset.Ext)
	defer os.Remove(tmp)
	var errb bytes.Buffer
	cmd := exec.CommandContext(ctx, ffmpeg, Args(spec, src, tmp)...)
	cmd.Stderr = &errb
	if err := Start(cmd); err != nil {
		return nil, &Error{Source: src.In, Err: err}
	}
	if err := cmd.Wait(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &Error{Source: src.In, Line: ErrorLine(errb.String()), Err: err}
	}
	fi, err := os.Stat(tmp)
	if err != nil || fi.Size() == 0 {
		return nil, &Error{Source: src.In, Line: "no output written"}
	}
	if f, err := os.Open(tmp); err == nil {
		err = f.Sync()
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("writing the proxy %s: %w", tmp, err)
		}
	}
	final, err := linkFree(tmp, dir, base, spec.Preset.Ext)
	if err != nil {
		return nil, err
	}
	sums, size, err := HashFile(final, algos)
	if err != nil {
		return nil, fmt.Errorf("hashing the proxy %s: %w", final, err)
	}
	return &Made{Path: final, Size: size, Sums: sums}, nil
}

// linkFree gives tmp the first free name of base+ext in dir (hard link,
// which fails rather than replace a file, then the temporary name goes).
func linkFree(tmp, dir, base, ext string) (string, error) {
	for i := 1; i < 10000; i++ {
		name := base + ext
		if i > 1 {
			name = fmt.Sprintf("%s (%d)%s", base, i, ext)
		}
		p := filepath.Join(dir, name)
		err := os.Link(tmp, p)
		if err == nil {
			return p, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("naming the proxy %s: %w", p, err)
		}
	}
	return "", fmt.Errorf("naming a proxy %s in %s: 10000 names taken", base+ext, dir)
}

// FreeName is the name Encode would give a proxy base+ext in dir now.
func FreeName(dir, base, ext string) string {
	for i := 1; ; i++ {
		name := base + ext
		if i > 1 {
			name = fmt.Sprintf("%s (%d)%s", base, i, ext)
		}
		if _, err := os.Lstat(filepath.Join(dir, name)); errors.Is(err, fs.ErrNotExist) {
			return name
		}
	}
}

// HashFile hashes the file at p with algos.
func HashFile(p string, algos []hashing.Algo) (hashing.Sums, int64, error) {
	var sums hashing.Sums
	f, err := os.Open(p)
	if err != nil {
		return sums, 0, err
	}
	defer f.Close()
	return hashReader(f, algos)
}

// hashReader hashes what r reads with algos.
func hashReader(r io.Reader, algos []hashing.Algo) (hashing.Sums, int64, error) {
	var sums hashing.Sums
	hs := make([]hash.Hash, len(algos))
	ws := make([]io.Writer, len(algos))
	for i, a := range algos {
		hs[i] = a.New()
		ws[i] = hs[i]
	}
	n, err := io.Copy(io.MultiWriter(ws...), r)
	if err != nil {
		return sums, n, err
	}
	for i, a := range algos {
		sums.Set(a, hashing.Encode(a, hs[i].Sum(nil)))
	}
	return sums, n, nil
}

// ErrorLine is the line of ffmpeg's error output that says what went
// wrong: its last line naming an error, else its last line.
func ErrorLine(stderr string) string {
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l != "" && !strings.HasPrefix(l, "Conversion failed") {
			return l
		}
	}
	return ""
}

// CopyTo copies the proxy made to the first free name of name in dir
// (a hidden temporary name, synced, then linked: nothing is overwritten),
// hashes the copy with algos and checks it against made's hashes.
func CopyTo(made *Made, dir, name string, algos []hashing.Algo) (*Made, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("making the proxies folder %s: %w (check that the destination is mounted and writable)", dir, err)
	}
	ext := filepath.Ext(name)
	tok := make([]byte, 6)
	rand.Read(tok)
	tmp := filepath.Join(dir, ".dit-proxy-"+hex.EncodeToString(tok)+ext)
	defer os.Remove(tmp)
	if err := copyFile(made.Path, tmp); err != nil {
		return nil, fmt.Errorf("copying the proxy %s to %s: %w", made.Path, dir, err)
	}
	final, err := linkFree(tmp, dir, strings.TrimSuffix(name, ext), ext)
	if err != nil {
		return nil, err
	}
	sums, size, err := HashFile(final, algos)
	if err != nil {
		return nil, fmt.Errorf("hashing the proxy %s: %w", final, err)
	}
	if _, bad, ok := sums.Compare(made.Sums); !ok {
		return nil, fmt.Errorf("the proxy's copy %s differs from %s (%s): copy it again", final, made.Path, bad)
	}
	return &Made{Path: final, Size: size, Sums: sums}, nil
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
