package speedtest

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/dit-org/dit/internal/devices"
	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/units"
	"github.com/dit-org/dit/raid"
)

// RunArray tests a dit array given by any of its blades: each blade's
// folder alone (Blade results, one after the other), then the array as a
// whole through its own writer (parity included) and its checked reader
// past the cache (the Array result, last). Size is the array test's; each
// blade is tested with Size divided by the data blades (what a blade
// carries of it).
func RunArray(ctx context.Context, blade string, o Options, mem int64) ([]*Result, error) {
	a, err := raid.Open([]string{blade}, raid.OpenOptions{ReadWrite: true, Writer: "dit speedtest"})
	if err != nil {
		return nil, fmt.Errorf("speed test of the array at %s: %w", blade, err)
	}
	defer a.Close()
	sb := a.Superblock()
	n := sb.Roles()
	if err := o.fill(DefaultSize(mem, n)); err != nil {
		return nil, err
	}
	var out []*Result
	for r := range n {
		dir := a.BladeDir(r)
		if dir == "" {
			continue
		}
		bo := o
		bo.Size = max(MinSize, o.Size/int64(max(a.K(), 1)))
		res, err := RunFolder(ctx, dir, Blade, bo, 0)
		if err != nil {
			return out, err
		}
		res.Label = fmt.Sprintf("blade %d of %s", r+1, sb.ArrayLabel)
		res.Volume, res.VolumeHow = "blade:"+sb.Members[r].BladeUUID, "the blade's UUID in its superblock"
		out = append(out, res)
	}
	res, err := runArrayWhole(ctx, a, blade, o)
	if err != nil {
		return out, err
	}
	res.Label = fmt.Sprintf("array %s (%s, %d blades)", sb.ArrayLabel, sb.Level, n)
	res.Volume, res.VolumeHow = "array:"+sb.ArrayUUID, "the array's UUID in its superblocks"
	return append(out, res), nil
}

func runArrayWhole(ctx context.Context, a *raid.Array, root string, o Options) (*Result, error) {
	afs := fsys.NewArrayFS(a, root)
	res := &Result{Path: root, Kind: Array, Started: o.Now(), Size: o.perStream() * int64(o.Streams), Block: o.Block, Streams: o.Streams}
	if n := sweepArray(a, afs, root); n > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("removed %d test file(s) a stopped speed test left on the array", n))
	}
	if free, _, err := afs.Free(root); err == nil && uint64(res.Size)+spaceMargin > free {
		return nil, fmt.Errorf("speed test of the array at %s needs %s free and %s is: free some space or give a smaller --size",
			root, units.FormatBytes(res.Size+spaceMargin), units.FormatBytes(int64(free)))
	}
	names := make([]string, o.Streams)
	for i := range names {
		names[i] = filepath.Join(root, fmt.Sprintf("%s%d-%d.tmp", tempPrefix, os.Getpid(), i))
	}
	var written []string
	defer func() {
		for _, n := range written {
			afs.Remove(n)
		}
	}()
	var err error
	res.Write, written, err = arrayWrite(ctx, afs, root, names, o)
	if err != nil {
		return nil, err
	}
	if res.Read, err = arrayRead(ctx, afs, names, o); err != nil {
		return nil, err
	}
	if devices.InMemory(root) {
		inMemoryPhases(res.Write, res.Read)
	}
	return res, nil
}

// sweepArray removes committed test files of processes that are gone.
func sweepArray(a *raid.Array, afs *fsys.ArrayFS, root string) int {
	n := 0
	for _, e := range fsys.ListDir(a, "") {
		rest, ok := strings.CutPrefix(e.Name(), tempPrefix)
		if !ok {
			continue
		}
		pid, err := strconv.Atoi(strings.SplitN(rest, "-", 2)[0])
		if err != nil || processAlive(pid) {
			continue
		}
		if afs.Remove(filepath.Join(root, e.Name())) == nil {
			n++
		}
	}
	return n
}

// arrayWrite writes each stream's file through the array's writer,
// flushing every flushEvery (the array makes its chunks durable), and
// commits it under its test name. written lists what must be removed.
func arrayWrite(ctx context.Context, afs *fsys.ArrayFS, root string, names []string, o Options) (*Phase, []string, error) {
	p := &Phase{Name: "write", Direct: false}
	rec := newRecorder(o.Now)
	per := o.perStream()
	total := per * int64(len(names))
	committed := make([]bool, len(names))
	err := streams(ctx, len(names), func(ctx context.Context, i int) error {
		w, err := afs.CreateTemp(root, ".dit-speedtest-tmp-*")
		if err != nil {
			return fmt.Errorf("speed test: creating a file on the array at %s: %w", root, err)
		}
		ok := false
		defer func() {
			if !ok {
				afs.Remove(w.Name())
			}
		}()
		buf := pattern(o.Block, uint64(i))
		for off := int64(0); off < per; {
			if err := canceled(ctx); err != nil {
				return err
			}
			n, err := w.Write(buf)
			if err != nil {
				return fmt.Errorf("speed test: writing to the array at %s: %w", root, err)
			}
			off += int64(n)
			if off%flushEvery < int64(n) {
				if err := w.Sync(); err != nil {
					return fmt.Errorf("speed test: flushing the array at %s: %w", root, err)
				}
			}
			done := rec.add(n)
			if o.Progress != nil {
				o.Progress("write", done, total)
			}
		}
		if err := w.Sync(); err != nil {
			return fmt.Errorf("speed test: flushing the array at %s: %w", root, err)
		}
		if err := afs.RenameNoReplace(w.Name(), names[i]); err != nil {
			return fmt.Errorf("speed test: committing %s on the array: %w", names[i], err)
		}
		ok, committed[i] = true, true
		rec.add(0)
		return nil
	})
	var written []string
	for i, c := range committed {
		if c {
			written = append(written, names[i])
		}
	}
	if err != nil {
		return nil, written, err
	}
	finish(p, rec, o.Parts)
	p.Cache = "through the array's writer: each blade's chunks flushed every " + units.FormatBytes(flushEvery) + " and at the end (durable, as an offload's)"
	return p, written, nil
}

func arrayRead(ctx context.Context, afs *fsys.ArrayFS, names []string, o Options) (*Phase, error) {
	p := &Phase{Name: "read", Direct: true}
	rec := newRecorder(o.Now)
	total := o.perStream() * int64(len(names))
	err := streams(ctx, len(names), func(ctx context.Context, i int) error {
		f, err := afs.OpenNoCache(names[i])
		if err != nil {
			return fmt.Errorf("speed test: opening %s on the array: %w", names[i], err)
		}
		defer f.Close()
		buf := fsys.Block(o.Block)
		for {
			if err := canceled(ctx); err != nil {
				return err
			}
			n, err := f.Read(buf)
			if n > 0 {
				done := rec.add(n)
				if o.Progress != nil {
					o.Progress("read", done, total)
				}
			}
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return fmt.Errorf("speed test: reading %s on the array: %w", names[i], err)
			}
		}
	})
	if err != nil {
		return nil, err
	}
	finish(p, rec, o.Parts)
	p.Cache = "through the array's checked reader, each chunk's pages dropped before it is read (as dit's read-back)"
	return p, nil
}
