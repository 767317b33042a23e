package offload

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/dit-org/dit/internal/fsys"
)

// moveAside renames a copy that failed its read-back from its real name
// (path) to path+FailedSuffix, or a numbered variant when that exists
// (never replacing a file), and fsyncs its folder: a copy that did not
// verify never keeps the card's file name, where a file browser, an
// editor or another copy tool would take it for the clip. It returns the
// new path. Through fsys, so a dit array (ArrayFS) renames its committed
// file the same way.
func moveAside(fsy fsys.FS, path string) (string, error) {
	for i := 1; i <= 1000; i++ {
		to := path + FailedSuffix
		if i > 1 {
			to = fmt.Sprintf("%s.%d", to, i)
		}
		err := fsys.RenameNoReplace(fsy, path, to)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		if err := fsy.SyncDir(filepath.Dir(path)); err != nil {
			return to, fmt.Errorf("moved to %s, but its folder could not be made durable: %w", to, err)
		}
		return to, nil
	}
	return "", &os.LinkError{Op: "rename", Old: path, New: path + FailedSuffix, Err: fs.ErrExist}
}

// removeAside removes the failed copies of a file that were moved aside
// (plan: found when the card folder was scanned) once a copy under the
// file's real name has verified. Best effort: one left is named again by
// the next job's scan.
func (c *cardRun) removeAside(di int, rel string) {
	if di < 0 || di >= len(c.asides) {
		return
	}
	for _, p := range c.asides[di][rel] {
		if fi, err := c.j.opts.FS.Lstat(p); err == nil && fi.Mode().IsRegular() {
			c.j.opts.FS.Remove(p)
		}
	}
}

// IsAsideName reports whether name (a base name) is that of a copy moved
// aside after it failed its read-back (NAME.dit-failed, NAME.dit-failed.2,
// ...).
func IsAsideName(name string) bool {
	_, ok := asideOf(name)
	return ok
}

// asideNote moves the failed copy at path (of t's file) aside (moveAside)
// and returns what its failure adds: where the copy now is, or why it is
// still there.
func (c *cardRun) asideNote(t *fileTask, path string) string {
	to, err := moveAside(c.j.opts.FS, path)
	if to != "" {
		t.vmu.Lock()
		t.aside = append(t.aside, to)
		t.vmu.Unlock()
	}
	switch {
	case to == "":
		return " (copy at " + path + "; moving it aside failed: " + err.Error() + ")"
	case err != nil:
		return " (the copy was moved aside to " + to + ": " + err.Error() + ")"
	}
	return " (the copy was moved aside to " + to + ")"
}
