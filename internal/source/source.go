package source

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/dit-org/dit/internal/fsys"
)

// Entry is a file or folder of a card. Rel is slash-separated and relative
// to the card root, byte-for-byte as on the card (no Unicode normalisation).
type Entry struct {
	Rel   string
	Dir   bool
	Size  int64
	Mtime time.Time
}

// Skipped is an entry that is not copied, with the reason.
type Skipped struct {
	Rel    string
	Kind   string // "metadata", "symlink", "fifo", "socket", "device", "unreadable"
	Reason string
}

// Card is the result of a scan.
type Card struct {
	Label    string
	Root     string // absolute path
	VolumeID string // device (and inode of the root): identifies the medium while mounted
	Files    *Files // compact (front-coded), its full blocks on disk (spill.go)
	Dirs     []Entry
	Mtime    time.Time // the root folder's own modification time
	Skipped  Skips     // compact, its paths on disk like Files'
	Bytes    int64
}

// Options tune a scan.
type Options struct {
	// IncludeHidden copies OS metadata files instead of skipping them.
	IncludeHidden bool
	// Keep, if set, names OS metadata that is copied all the same (rel is
	// the entry's slash path; for a folder, true if anything below it is
	// kept): the files an ASC MHL history on the card lists, so that the
	// history still verifies on the copy.
	Keep func(rel string) bool
	// Ignore, if set, says which entries are left out on purpose (dit
	// offload --ignore): recorded as skipped, kind "ignored", with Why's
	// text.
	Ignore func(rel string, dir bool) bool
	Why    string
}

// junk is OS metadata that is not footage.
var junkNames = map[string]string{
	".DS_Store":       "macOS Finder metadata",
	".Spotlight-V100": "macOS Spotlight index",
	".Trashes":        "macOS trash",
	".fseventsd":      "macOS file-system event log",
	".TemporaryItems": "macOS temporary items",
	"Thumbs.db":       "Windows thumbnail cache",
	"desktop.ini":     "Windows folder settings",
}

// JunkReason returns why name is OS metadata, or "" if it is not.
func JunkReason(name string) string {
	if r, ok := junkNames[name]; ok {
		return r
	}
	if strings.HasPrefix(name, "._") {
		return "macOS AppleDouble resource fork"
	}
	return ""
}

// Scan walks the card at root. A root that is missing or not a folder is an
// error that names it; entries that cannot be listed are recorded as
// skipped (kind "unreadable") and make the scan's error non-nil only for the
// root itself.
func Scan(fsy fsys.FS, root string, opt Options) (*Card, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	fi, err := fsy.Lstat(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("card %s does not exist: check the path and that the card is mounted", abs)
		}
		return nil, fmt.Errorf("card %s: %w", abs, err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		// A mount point given through a symlink: resolve the root only.
		if r, err := filepath.EvalSymlinks(abs); err == nil {
			abs = r
			fi, err = fsy.Lstat(abs)
			if err != nil {
				return nil, fmt.Errorf("card %s: %w", abs, err)
			}
		}
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("card %s is not a folder: give the card's mount point or folder", abs)
	}
	c := &Card{Label: filepath.Base(abs), Root: abs, VolumeID: volumeID(fi), Mtime: fi.ModTime(), Files: newSpilledFiles(fsys.SpillDir()), Skipped: newSkips(fsys.SpillDir())}
	if err := c.walk(fsy, abs, "", opt); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *Card) walk(fsy fsys.FS, abs, rel string, opt Options) error {
	ents, err := fsy.ReadDir(abs)
	if err != nil {
		if rel == "" {
			return fmt.Errorf("cannot list card %s: %w", abs, err)
		}
		c.Skipped.Add(rel, "unreadable", "cannot list folder: "+errText(err))
		return nil
	}
	for _, de := range ents {
		name := de.Name()
		r := path.Join(rel, name)
		p := filepath.Join(abs, name)
		if !opt.IncludeHidden {
			// Keep is asked only of OS metadata: it may look names up.
			if why := JunkReason(name); why != "" && (opt.Keep == nil || !opt.Keep(r)) {
				c.Skipped.Add(r, "metadata", why+" (copy it with --include-hidden)")
				continue
			}
		}
		fi, err := fsy.Lstat(p)
		if err != nil {
			c.Skipped.Add(r, "unreadable", errText(err))
			continue
		}
		m := fi.Mode()
		if opt.Ignore != nil && opt.Ignore(r, m.IsDir()) {
			c.Skipped.Add(r, "ignored", opt.Why)
			continue
		}
		switch {
		case m&fs.ModeSymlink != 0:
			c.Skipped.Add(r, "symlink", "symbolic link, not followed")
		case m.IsDir():
			c.Dirs = append(c.Dirs, Entry{Rel: r, Dir: true, Mtime: fi.ModTime()})
			if err := c.walk(fsy, p, r, opt); err != nil {
				return err
			}
		case m.IsRegular():
			c.Files.Add(Entry{Rel: r, Size: fi.Size(), Mtime: fi.ModTime()})
			c.Bytes += fi.Size()
		case m&fs.ModeNamedPipe != 0:
			c.Skipped.Add(r, "fifo", "named pipe (FIFO), not a file")
		case m&fs.ModeSocket != 0:
			c.Skipped.Add(r, "socket", "socket, not a file")
		default:
			c.Skipped.Add(r, "device", "device or special file, not a file")
		}
	}
	return nil
}

func volumeID(fi fs.FileInfo) string { return fsys.VolumeID(fi) }

func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
