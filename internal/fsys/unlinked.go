package fsys

import (
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
)

// CreateUnlinked makes a new file in dir (made when missing, for this
// user only) named after pattern (os.CreateTemp's), and unlinks it at
// once: its space is the process's until the file is closed, and
// nothing is left behind by a crash. Where an open file cannot be
// unlinked (Windows) it is an error, and the file is gone. dit keeps a
// card's list, its plan's marks and a history's index there (the
// caller's spill folder, ~/.cache/dit).
func CreateUnlinked(dir, pattern string) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return f, nil
}

// spillDir is where dit spills what it would otherwise hold a file of a
// card (SetSpillDir); nil: the user's cache folder.
var spillDir atomic.Pointer[string]

// SetSpillDir sets the folder dit spills to: a card's list, its plan's
// marks, a history's index ("" keeps them in memory). It returns a
// function that sets it back (tests). The default is dit's folder in
// the user's cache folder (~/.cache/dit on Linux), made when first
// needed.
func SetSpillDir(dir string) (restore func()) {
	old := spillDir.Swap(&dir)
	return func() { spillDir.Store(old) }
}

// SpillDir is the folder dit spills to ("": none: Windows, where an open
// file cannot be unlinked, or no cache folder).
func SpillDir() string {
	if p := spillDir.Load(); p != nil {
		return *p
	}
	if runtime.GOOS == "windows" {
		return ""
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "dit")
}
