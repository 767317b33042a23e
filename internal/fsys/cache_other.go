//go:build !linux && !darwin

package fsys

import (
	"errors"
	"os"
)

func openReadOnly(name string) (*os.File, error) { return os.Open(name) }

func dropCache(*os.File) error { return nil }

func dropRange(*os.File, int64, int64) {}

func freeSpace(string) (uint64, string, error) {
	return 0, "", errors.New("free space is not available on this platform")
}
