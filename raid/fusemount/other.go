//go:build !linux && !darwin

// Package fusemount serves a dit array as a read-only FUSE filesystem
// (Linux, and macOS with macFUSE).
package fusemount

import (
	"errors"

	"github.com/dit-org/dit/raid"
)

// Server is a mounted array.
type Server struct{}

// Unmount does nothing here.
func (*Server) Unmount() error { return nil }

// Mount is not available on this platform.
func Mount(*raid.Array, string) (*Server, error) {
	return nil, errors.New("FUSE mounts are available on Linux and macOS (macFUSE)")
}
