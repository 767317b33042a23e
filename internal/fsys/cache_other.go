//go:build !linux && !darwin

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
