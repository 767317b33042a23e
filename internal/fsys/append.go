package fsys

import (
	"errors"
	"io"
	"os"
)

// ErrNoAppend is returned by OpenAppend for a filesystem that cannot
// reopen a temp to go on writing it (a dit array commits a file whole).
var ErrNoAppend = errors.New("this destination cannot go on writing a file it started (it commits files whole)")

// appender is a filesystem that can reopen a temp and go on writing it.
type appender interface {
	OpenAppend(name string, size int64) (WFile, error)
}

// OpenAppend reopens name (a temp of the engine's) for writing at size,
// cutting off what lies beyond (bytes a crash may have left half written):
// how a copy interrupted mid-file goes on. ErrNoAppend where the
// filesystem cannot.
func OpenAppend(f FS, name string, size int64) (WFile, error) {
	if a, ok := f.(appender); ok {
		return a.OpenAppend(name, size)
	}
	return nil, ErrNoAppend
}

// CanAppend reports whether OpenAppend works for name on f.
func CanAppend(f FS, name string) bool {
	if m, ok := f.(*Mux); ok {
		f = m.route(name)
	}
	_, ok := f.(appender)
	return ok
}

// OpenAppend implements OpenAppend for the OS.
func (OS) OpenAppend(name string, size int64) (WFile, error) {
	f, err := os.OpenFile(name, os.O_WRONLY, 0)
	if err != nil {
		return nil, err
	}
	if err := f.Truncate(size); err != nil {
		f.Close()
		return nil, err
	}
	if _, err := f.Seek(size, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// OpenAppend routes to the filesystem that holds name.
func (m *Mux) OpenAppend(name string, size int64) (WFile, error) {
	return OpenAppend(m.route(name), name, size)
}
