//go:build !linux

package fsys

// OpenFSSyncer returns nil: only Linux has syncfs(2); copies are fsynced
// one by one (several at once).
func (OS) OpenFSSyncer(string) FSSyncer { return nil }
