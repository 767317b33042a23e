package offload

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"syscall"

	"github.com/dit-org/dit/internal/fsys"
)

// readFailure turns a read error into the file's failure reason, and
// notices a card that has gone away.
func (c *cardRun) readFailure(src string, err error) error {
	if errors.Is(err, context.Canceled) {
		return err
	}
	if msg := c.cardGone(); msg != "" {
		return errors.New(msg)
	}
	c.noteRead(src, err)
	if msg := c.cardGone(); msg != "" {
		return errors.New(msg)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s vanished from the card before it was copied", src)
	}
	if errors.Is(err, syscall.EIO) {
		return fmt.Errorf("cannot read %s: %w (a bad spot on the card, or a failing card or reader)", src, syscall.EIO)
	}
	if errors.Is(err, fs.ErrPermission) {
		return fmt.Errorf("cannot read %s: permission denied: %w", src, err)
	}
	return fmt.Errorf("cannot read %s: %w", src, err)
}

// cardGone returns a reason when the card root is no longer the volume that
// was scanned (pulled, unmounted); from then on no file is attempted.
func (c *cardRun) cardGone() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cardErr != "" {
		return c.cardErr
	}
	fi, err := c.j.opts.FS.Lstat(c.scan.Root)
	gone := err != nil
	if !gone && c.scan.VolumeID != "" {
		if id := fsys.VolumeID(fi); id != "" {
			gone = id != c.scan.VolumeID
		}
	}
	if gone {
		c.cardErr = fmt.Sprintf("card %s removed: %s is no longer there (pulled or unmounted) after %d of %d files: reinsert it and run %s",
			c.rec.Label, c.scan.Root, c.readOK.Load(), c.cardCounts.files, c.j.ResumeCommand())
	}
	return c.cardErr
}

// ioErrorsInARow is how many files in a row must fail with input/output
// errors before dit takes the card (or its reader) as gone.
const ioErrorsInARow = 3

// noteRead tells a bad spot from a card that stopped answering. After a
// file read whole (src) it remembers the file; after an input/output error
// it reads the start of that file again from the medium: if a file that
// read well before fails now, the card or its reader is gone, and the
// card's remaining files fail with one message, not one error each. When
// there is no such file yet, ioErrorsInARow files failing in a row say
// the same.
func (c *cardRun) noteRead(src string, err error) {
	if err == nil {
		c.readOK.Add(1)
		c.eioRow.Store(0)
		c.lastOK.Store(src)
		return
	}
	if !errors.Is(err, syscall.EIO) && !errors.Is(err, syscall.ENXIO) && !errors.Is(err, syscall.ENODEV) && !errors.Is(err, syscall.ENOTCONN) {
		c.eioRow.Store(0)
		return
	}
	row := c.eioRow.Add(1)
	why := ""
	if good, _ := c.lastOK.Load().(string); good != "" {
		if perr := c.probe(good); perr != nil {
			var errno syscall.Errno
			if errors.As(perr, &errno) {
				perr = errno
			}
			rel, _ := filepath.Rel(c.scan.Root, good)
			why = fmt.Sprintf("%s, read before, now gives: %v", filepath.ToSlash(rel), perr)
		}
	}
	if why == "" && row >= ioErrorsInARow {
		why = fmt.Sprintf("read errors on %d files in a row", row)
	}
	if why == "" {
		return
	}
	c.mu.Lock()
	if c.cardErr == "" {
		c.cardErr = fmt.Sprintf("card %s stopped answering after %d of %d files (%s): reinsert it (or try another reader) and run %s",
			c.rec.Label, c.readOK.Load(), c.cardCounts.files, why, c.j.ResumeCommand())
	}
	c.mu.Unlock()
}

// probe reads the first block of a card file again from the medium.
func (c *cardRun) probe(p string) error {
	f, err := c.j.opts.FS.OpenNoCache(p)
	if err != nil {
		return err
	}
	defer f.Close()
	var b [4096]byte
	if _, err := f.Read(b[:]); err != nil && err != io.EOF {
		return err
	}
	return nil
}

// sameSourceFile compares two infos of the source file.
func sameSourceFile(a, b fs.FileInfo) bool {
	same, known := fsys.SameInode(a, b)
	if !known {
		return a.Size() == b.Size()
	}
	return same
}
