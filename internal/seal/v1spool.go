package seal

import (
	"bytes"
	"io"
	"os"

	"github.com/dit-org/dit/internal/format/mhlv1"
)

// v1Spool is the card's MHL v1.1 list as the seal's first walk makes it:
// each file written as it comes (mhlv1.Writer) to a temporary file of
// its own, unlinked where the system allows, and copied into the card's
// folder by writeV1. Nothing is held a file but the names of empty ones
// (before, the list of every file, ~250 B a file, and its text whole). No
// temporary file (no temp folder): the text is held in memory.
type v1Spool struct {
	f    *os.File
	name string // f's name while it cannot be unlinked (Windows)
	mem  bytes.Buffer
	w    *mhlv1.Writer
	err  error // the first Add's error (a file MHL v1.1 cannot record)
	done bool
}

func newV1Spool(l *mhlv1.List) *v1Spool {
	s := &v1Spool{}
	var out io.Writer = &s.mem
	if f, err := os.CreateTemp("", "dit-mhlv1-*.mhl"); err == nil {
		s.f, out = f, f
		if os.Remove(f.Name()) != nil {
			s.name = f.Name()
		}
	}
	s.w = mhlv1.NewWriter(out, l)
	return s
}

// add lists f (the first error is kept for writeTo).
func (s *v1Spool) add(f mhlv1.File) {
	if err := s.w.Add(f); err != nil && s.err == nil {
		s.err = err
	}
}

// files is how many files were added.
func (s *v1Spool) files() int { return s.w.Files() }

// writeTo writes the whole list to w (again from its start each call).
func (s *v1Spool) writeTo(w io.Writer) error {
	if !s.done {
		s.done = true
		if err := s.w.Close(); err != nil && s.err == nil {
			s.err = err
		}
	}
	if s.err != nil {
		return s.err
	}
	if s.f == nil {
		_, err := w.Write(s.mem.Bytes())
		return err
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	_, err := io.Copy(w, s.f)
	return err
}

// close lets go of the temporary file.
func (s *v1Spool) close() {
	if s.f != nil {
		s.f.Close()
		if s.name != "" {
			os.Remove(s.name)
		}
	}
}
