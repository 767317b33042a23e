//go:build !linux && !darwin

package mountplace

// mounts: dit mounts arrays on Linux and macOS only.
func mounts() []mount { return nil }
