//go:build !linux && !darwin

package fsys

import "io/fs"

// identity is "" here: a FileInfo carries no change time this package
// reads on this platform (a dit array's files have theirs, Identity);
// a resume then trusts a verified copy by its size and time.
func identity(fs.FileInfo) string { return "" }
