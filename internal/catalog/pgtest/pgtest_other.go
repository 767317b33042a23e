//go:build !unix

// Package pgtest starts a real PostgreSQL server for tests on Linux and
// macOS. Here [Start] always fails with [ErrUnavailable], so every
// PostgreSQL test skips saying why.
package pgtest

import (
	"errors"
	"fmt"
	"runtime"
	"testing"
)

// ErrUnavailable: PostgreSQL cannot be started for tests here.
var ErrUnavailable = errors.New("PostgreSQL is not available")

// Server is never started here.
type Server struct{ Port int }

// Start fails: the test server runs on Linux and macOS only.
func Start() (*Server, error) {
	return nil, fmt.Errorf("%w: pgtest runs PostgreSQL on Linux and macOS only, not %s", ErrUnavailable, runtime.GOOS)
}

// URL is empty.
func (s *Server) URL(string) string { return "" }

// NewDatabase fails.
func (s *Server) NewDatabase(string) (string, error) { return "", ErrUnavailable }

// CreateDatabase fails.
func (s *Server) CreateDatabase(string) (string, error) { return "", ErrUnavailable }

// Stop does nothing.
func (s *Server) Stop() {}

// Kill does nothing.
func (s *Server) Kill() {}

// Restart fails.
func (s *Server) Restart() error { return ErrUnavailable }

// ForTest skips the test.
func ForTest(t testing.TB) *Server {
	t.Helper()
	_, err := Start()
	t.Skipf("PostgreSQL test skipped: %v", err)
	return nil
}

// Shared skips the test.
func Shared(t testing.TB) *Server { return ForTest(t) }

// StopShared does nothing.
func StopShared() {}
