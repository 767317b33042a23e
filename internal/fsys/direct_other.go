//go:build !linux && !windows

package fsys

// openNoCacheDirect: no O_DIRECT read-back here (macOS uses F_NOCACHE).
func openNoCacheDirect(string) (File, bool) { return nil, false }

func alignedBlock(n int) []byte { return make([]byte, n) }
