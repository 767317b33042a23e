//go:build !unix

package fsys

import "io/fs"

// VolumeID is "" here: a FileInfo carries no device and inode on this
// platform (Windows has them only through an open handle). A card is then
// known to be gone only when its folder is (a pulled drive letter
// vanishes), not when another card is mounted at the same path.
func VolumeID(fs.FileInfo) string { return "" }

// SameInode is never known here: callers fall back to comparing sizes.
func SameInode(a, b fs.FileInfo) (same, known bool) { return false, false }
