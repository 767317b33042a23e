//go:build !linux && !darwin && !windows

package fsys

import (
	"errors"
	"os"
)

// openDir opens a folder to list it.
func openDir(name string) (*os.File, error) { return os.Open(name) }

func openReadOnly(name string) (*os.File, error) { return os.Open(name) }

func dropCache(*os.File) error { return nil }

func dropRange(*os.File, int64, int64) {}

func freeSpace(string) (uint64, string, error) {
	return 0, "", errors.New("free space is not available on this platform")
}

// openForSync opens an existing file to fsync it: for writing where
// allowed (without truncating; some filesystems, SMB among them, flush to
// the server only for a handle open for writing), else read-only.
func openForSync(name string) (*os.File, error) {
	if f, err := os.OpenFile(name, os.O_WRONLY, 0); err == nil {
		return f, nil
	}
	return openReadOnly(name)
}
