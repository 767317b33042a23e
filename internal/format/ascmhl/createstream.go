package ascmhl

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/dit-org/dit/internal/hashing"
)

// createWhole makes Create build every generation whole, as it did before
// it streamed (tests compare the two).
var createWhole = false

// streamable walks the folder once, listing only (no file is read), and
// says whether its generation can be written as a stream: no nested
// history below it, every file and folder the history records still there
// and not ignored (a rename or a missing entry needs the whole list),
// every folder listed and described, and no name that begins with the
// byte 0xff (its entry would sort before its folder's own, which the
// stream writes after the folder's content).
func (c *creator) streamable(ctx context.Context) (bool, error) {
	if createWhole {
		return false, nil
	}
	sc := c.root
	files, dirs := 0, 0
	var walk func(dir string) (bool, error)
	walk = func(dir string) (bool, error) {
		ents, err := c.st.ReadDir(dir)
		if err != nil {
			return false, nil
		}
		for _, e := range ents {
			if err := ctx.Err(); err != nil {
				return false, err
			}
			name := e.Name()
			if dir != "." && name == HistoryDir && e.IsDir() || name == "" || name[0] == 0xff {
				return false, nil
			}
			rel := joinRel(dir, name)
			if c.ignored(rel, e.IsDir(), sc) {
				continue
			}
			if e.IsDir() {
				if _, err := e.Info(); err != nil {
					return false, nil
				}
				if _, ok := sc.dirRecs[rel]; ok {
					dirs++
				}
				if ok, err := walk(rel); !ok || err != nil {
					return ok, err
				}
			} else if sc.recs.Has(rel) && e.Type().IsRegular() {
				files++
			}
		}
		return true, nil
	}
	ok, err := walk(".")
	return ok && files == sc.recs.Len() && dirs == len(sc.dirRecs), err
}

func joinRel(dir, name string) string {
	if dir == "." {
		return name
	}
	return dir + "/" + name
}

// streamer writes the folder's generation as its files are hashed: the
// folder walked in the manifest's order (each folder's entries sorted by
// name, a sub-folder's as its name + "/", so the paths come in byte
// order and each folder after its content), every file handed to the
// hash pool (HashWorkers read at once, at most MaxQueued held), and what
// follows its hash (its actions, its entry, its folder's hashes) done in
// that order. The entries go to a temporary file (the root hash, which
// the manifest's head holds, is known only at the end) and from there
// into the manifest: what is held is the walk's open folders, the
// DirHasher's and the pool's window, never the folder's list of files.
type streamer struct {
	c     *creator
	sc    *cscope
	pool  *hashPool
	dh    *DirHasher // nil: no directory hashes
	spill *ManifestWriter
	err   error // the first error of a step queued without one
}

// createStreamed is Create's body for a folder streamable says can be
// streamed: the same generation, byte for byte, as the whole one.
func (c *creator) createStreamed(ctx context.Context) error {
	sc := c.root
	tmp, err := os.CreateTemp(c.opt.TempDir, "dit-mhl-entries-*")
	if err != nil {
		return fmt.Errorf("a temporary file for the manifest's entries: %w", err)
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	bw := bufio.NewWriterSize(tmp, 64<<10)
	w := &streamer{c: c, sc: sc, pool: newHashPool(ctx, c.st), spill: &ManifestWriter{to: bw}}
	w.spill.x.depth = 1 // inside <hashlist>, as writeManifest's entries are
	if !c.opt.NoDirectoryHashes {
		w.dh = NewDirHasher(c.algos)
		w.dh.Enter(".")
	}
	err = w.walk(ctx, ".")
	if ferr := w.pool.finish(); err == nil {
		err = ferr
	}
	if testPoolHigh != nil {
		testPoolHigh(w.pool.High())
	}
	if err == nil {
		err = w.err
	}
	if err != nil {
		return err
	}
	m := c.manifest(sc, nil, c.opt.Now())
	if w.dh != nil {
		_, m.Root = w.dh.Leave()
	}
	if err := w.spill.flush(); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	name, err := AppendFrom(sc.st, sc.hist, m, c.opt.Folder, func(mw *ManifestWriter) error {
		return w.copyEntries(tmp, mw)
	})
	if err != nil {
		return fmt.Errorf("writing the ASC MHL history in %s: %w", c.where(sc), err)
	}
	again, err := LoadHistoryHeads(sc.st)
	switch {
	case err != nil:
		return fmt.Errorf("the ASC MHL history in %s does not read back after writing %s: %w", c.where(sc), name, err)
	case len(again.Problems) > 0:
		return fmt.Errorf("the ASC MHL history in %s does not verify after writing %s: %s", c.where(sc), name, strings.Join(again.Problems, "; "))
	}
	c.res.Manifests = append(c.res.Manifests, name)
	c.res.Generation = sc.hist.NextSeq()
	return nil
}

// testPoolHigh, when set (tests), is told the most steps the pool held.
var testPoolHigh func(int)

// copyEntries puts the entries written to tmp into the manifest mw
// writes, as if they had been written through it.
func (w *streamer) copyEntries(tmp *os.File, mw *ManifestWriter) error {
	if w.spill.n == 0 {
		return nil
	}
	if err := mw.flush(); err != nil {
		return err
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if _, err := io.Copy(mw.to, bufio.NewReaderSize(tmp, 64<<10)); err != nil {
		return err
	}
	mw.hashes, mw.x.depth = true, w.spill.x.depth
	mw.last, mw.lastDir, mw.n = w.spill.last, w.spill.lastDir, w.spill.n
	return nil
}

// walk hands dir's files to the pool in the manifest's order, and queues
// what the walk finds (folders entered and left, findings) between them.
func (w *streamer) walk(ctx context.Context, dir string) error {
	c := w.c
	ents, err := c.st.ReadDir(dir)
	if err != nil {
		w.pool.later(func() { c.add(Finding{Kind: FindUnread, Path: dir, Detail: "cannot list the folder: " + err.Error()}) })
		return nil
	}
	sortEntries(ents)
	for _, e := range ents {
		if err := ctx.Err(); err != nil {
			return err
		}
		rel := joinRel(dir, e.Name())
		if c.ignored(rel, e.IsDir(), w.sc) {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			w.pool.later(func() { c.add(Finding{Kind: FindUnread, Path: rel, Detail: err.Error()}) })
			continue
		}
		if e.IsDir() {
			if w.dh != nil {
				w.pool.later(func() { w.dh.Enter(rel) })
			}
			if err := w.walk(ctx, rel); err != nil {
				return err
			}
			mtime := fi.ModTime()
			w.pool.later(func() { w.leave(rel, mtime) })
			continue
		}
		if !e.Type().IsRegular() {
			w.pool.later(func() {
				c.res.Warnings = append(c.res.Warnings, fmt.Sprintf("%s is not a regular file (%s): not recorded", DisplayName(rel), e.Type()))
			})
			continue
		}
		f := &cfile{rel: rel, srel: rel, sc: w.sc, size: fi.Size(), mtime: fi.ModTime(), rec: w.sc.recs.Get(rel)}
		err = w.pool.hash(rel, c.algosFor(f), func(sums map[hashing.Algo]string, n int64, err error) error {
			return w.hashed(f, sums, n, err)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// sortEntries sorts a folder's entries in the manifest's order.
func sortEntries(ents []fs.DirEntry) {
	sort.SliceStable(ents, func(i, j int) bool { return entryKey(ents[i]) < entryKey(ents[j]) })
}

// entryKey sorts a folder's entries as the manifest's paths sort.
func entryKey(e fs.DirEntry) string {
	if e.IsDir() {
		return e.Name() + "/"
	}
	return e.Name()
}

// hashed takes f's hashes, sets its actions, adds it to its folder's
// hashes and writes its entry.
func (w *streamer) hashed(f *cfile, sums map[hashing.Algo]string, n int64, err error) error {
	if err := w.c.hashed(f, sums, n, err); err != nil {
		return err
	}
	if w.err != nil {
		return w.err
	}
	w.c.qualify(f)
	if w.dh != nil {
		err := w.dh.File(f.rel, func(a hashing.Algo) string {
			if f.bad {
				return ""
			}
			return f.sums[a]
		})
		if err != nil {
			return err
		}
	}
	if len(f.hashes) == 0 {
		return nil
	}
	return w.spill.File(&File{Path: f.srel, Size: f.size, Mtime: f.mtime, Hashes: f.hashes, PreviousPath: f.prev})
}

// leave closes folder rel: its entry, with its hashes (none: a file
// below could not be read, and the folder is not listed, as Create's
// whole generation leaves it out).
func (w *streamer) leave(rel string, mtime time.Time) {
	d := Dir{Path: rel, Mtime: mtime}
	if w.dh != nil {
		if _, d.Hashes = w.dh.Leave(); len(d.Hashes) == 0 {
			return
		}
	}
	if err := w.spill.Dir(&d); err != nil && w.err == nil {
		w.err = err
	}
}
