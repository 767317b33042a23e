package speedtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/dit-org/dit/internal/devices"
	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/units"
)

// tempPrefix names a test's files: .dit-speedtest-PID-N.tmp. A run killed
// before it could remove them leaves them behind; the next test in that
// folder removes those whose process is gone.
const tempPrefix = ".dit-speedtest-"

// spaceMargin is left free beyond the test files.
const spaceMargin = 64 << 20

// flushEvery is how often a write through the cache (where the filesystem
// refuses direct I/O) is made durable and dropped from the cache, so the
// curve follows the medium, not the memory.
const flushEvery = 64 << 20

// RunFolder writes Size bytes of test files into dir, reads them back and
// removes them, on every path out (an error, a stop, a panic).
func RunFolder(ctx context.Context, dir string, kind Kind, o Options, mem int64) (*Result, error) {
	if err := o.fill(DefaultSize(mem, 1)); err != nil {
		return nil, err
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("speed test of %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("speed test of %s: not a folder (give the destination folder)", dir)
	}
	res := &Result{Path: dir, Kind: kind, Started: o.Now(), Size: o.perStream() * int64(o.Streams), Block: o.Block, Streams: o.Streams}
	res.Volume, res.VolumeHow = VolumeID(dir)
	if n := sweep(dir); n > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("removed %d test file(s) a stopped speed test left", n))
	}
	if err := checkFree(dir, res.Size); err != nil {
		return nil, err
	}
	names := make([]string, o.Streams)
	for i := range names {
		names[i] = filepath.Join(dir, fmt.Sprintf("%s%d-%d.tmp", tempPrefix, os.Getpid(), i))
	}
	defer func() {
		for _, n := range names {
			os.Remove(n)
		}
	}()
	if res.Write, err = writePhase(ctx, names, o); err != nil {
		return nil, err
	}
	if res.Read, err = readPhase(ctx, names, o); err != nil {
		return nil, err
	}
	if devices.InMemory(dir) {
		inMemoryPhases(res.Write, res.Read)
	}
	return res, nil
}

// checkFree refuses a test that would not fit.
func checkFree(dir string, need int64) error {
	free, _, err := fsys.OS{}.Free(dir)
	if err != nil {
		return nil // unknown: the writes will say
	}
	if uint64(need)+spaceMargin > free {
		return fmt.Errorf("speed test of %s needs %s free and %s is: free some space or give a smaller --size",
			dir, units.FormatBytes(need+spaceMargin), units.FormatBytes(int64(free)))
	}
	return nil
}

// sweep removes test files of processes that no longer run.
func sweep(dir string) int {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), tempPrefix)
		if !ok || !strings.HasSuffix(rest, ".tmp") {
			continue
		}
		pid, err := strconv.Atoi(strings.SplitN(rest, "-", 2)[0])
		if err != nil || pid == os.Getpid() || processAlive(pid) {
			continue
		}
		if os.Remove(filepath.Join(dir, e.Name())) == nil {
			n++
		}
	}
	return n
}

// streams runs one function per stream at once and returns the first
// error; the others are stopped through ctx.
func streams(ctx context.Context, n int, each func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			if errs[i] = each(ctx, i); errs[i] != nil {
				cancel()
			}
		})
	}
	wg.Wait()
	if err := canceled(ctx); err != nil && errors.Join(errs...) == nil {
		return err
	}
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
	}
	return errors.Join(errs...)
}

func writePhase(ctx context.Context, names []string, o Options) (*Phase, error) {
	p := &Phase{Name: "write", Direct: true}
	var mu sync.Mutex
	rec := newRecorder(o.Now)
	per := o.perStream()
	total := per * int64(len(names))
	err := streams(ctx, len(names), func(ctx context.Context, i int) error {
		f, direct, err := createDirect(names[i])
		if err != nil {
			return fmt.Errorf("speed test: creating %s: %w", names[i], err)
		}
		defer f.Close()
		mu.Lock()
		p.Direct = p.Direct && direct
		mu.Unlock()
		buf := pattern(o.Block, uint64(i))
		var off int64
		for off < per {
			if err := canceled(ctx); err != nil {
				return err
			}
			n, err := f.Write(buf)
			if err != nil {
				return fmt.Errorf("speed test: writing %s at %s: %w", names[i], units.FormatBytes(off), err)
			}
			off += int64(n)
			if !direct && off%flushEvery < int64(n) {
				if err := flush(f); err != nil {
					return fmt.Errorf("speed test: flushing %s: %w", names[i], err)
				}
				dropCache(f, 0, off)
			}
			done := rec.add(n)
			if o.Progress != nil {
				o.Progress("write", done, total)
			}
		}
		// The phase ends when the bytes are durable: the drive's own
		// cache is flushed too.
		if err := flush(f); err != nil {
			return fmt.Errorf("speed test: flushing %s: %w", names[i], err)
		}
		dropCache(f, 0, 0)
		rec.add(0)
		return nil
	})
	if err != nil {
		return nil, err
	}
	finish(p, rec, o.Parts)
	p.Cache = cacheNote(p.Direct, "written")
	return p, nil
}

func readPhase(ctx context.Context, names []string, o Options) (*Phase, error) {
	files := make([][]string, len(names))
	for i, n := range names {
		files[i] = []string{n}
	}
	return readFiles(ctx, files, o, -1)
}

// readFiles reads each stream's files in turn, past the cache. limit > 0
// stops the phase once that many bytes were read, all streams together.
func readFiles(ctx context.Context, files [][]string, o Options, limit int64) (*Phase, error) {
	p := &Phase{Name: "read", Direct: true}
	var mu sync.Mutex
	rec := newRecorder(o.Now)
	var total int64
	for _, fs := range files {
		for _, n := range fs {
			if fi, err := os.Stat(n); err == nil {
				total += fi.Size()
			}
		}
	}
	err := streams(ctx, len(files), func(ctx context.Context, i int) error {
		buf := fsys.Block(o.Block)
		for _, name := range files[i] {
			f, direct, err := openDirect(name)
			if err != nil {
				return fmt.Errorf("speed test: opening %s: %w", name, err)
			}
			mu.Lock()
			p.Direct = p.Direct && direct
			mu.Unlock()
			done, err := readOne(ctx, f, direct, buf, rec, o, total, limit)
			f.Close()
			if err != nil {
				return fmt.Errorf("speed test: reading %s: %w", name, err)
			}
			if done {
				break
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	finish(p, rec, o.Parts)
	p.Cache = cacheNote(p.Direct, "read")
	return p, nil
}

// readOne reads one file to its end, or until the phase has read limit
// bytes (limit > 0; stop is then true).
func readOne(ctx context.Context, f *os.File, direct bool, buf []byte, rec *recorder, o Options, total, limit int64) (stop bool, err error) {
	var off int64
	for {
		if err := canceled(ctx); err != nil {
			return true, err
		}
		n, err := f.Read(buf)
		if n > 0 {
			off += int64(n)
			done := rec.add(n)
			if !direct {
				dropCache(f, 0, off)
			}
			if o.Progress != nil {
				o.Progress("read", done, max(total, done))
			}
			if limit > 0 && done >= limit {
				return true, nil
			}
		}
		if err == io.EOF {
			return false, nil
		}
		if err != nil {
			return true, err
		}
	}
}

func cacheNote(direct bool, what string) string {
	if direct {
		return directHow
	}
	return "the filesystem refused direct I/O: " + what + " through the page cache, flushed and dropped every " +
		units.FormatBytes(flushEvery) + " (the rate can be the cache's at the start)"
}
