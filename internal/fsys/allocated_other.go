//go:build !unix

package fsys

import "io/fs"

// Allocated is fi's size here (no block count in a FileInfo).
func Allocated(fi fs.FileInfo) int64 { return fi.Size() }
