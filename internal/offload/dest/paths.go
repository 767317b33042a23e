package dest

import (
	"os"
	"path/filepath"
)

// Resolve is p absolute, with its symbolic links followed where they can
// be (else as it is): how a card or a destination is compared with
// another (the pipeline's checks before a job and what earlier runs
// left).
func Resolve(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r, nil
	}
	return abs, nil
}

// SameFile reports whether a and b are the same file or folder on disk
// (false when either cannot be read).
func SameFile(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}
