//go:build !unix

package e2e

import (
	"io/fs"
	"testing"
)

// InodeOf skips the test: a FileInfo holds no inode number here.
func InodeOf(t *testing.T, fi fs.FileInfo) uint64 {
	t.Skip("no inode numbers in a FileInfo on this platform")
	return 0
}
