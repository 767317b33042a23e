//go:build !linux

package fsys

// Rotational reports whether path is on a spinning disk: false here
// (only Linux says it; see rotational_linux.go).
func Rotational(path string) bool { return false }
