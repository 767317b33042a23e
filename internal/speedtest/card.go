package speedtest

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"

	"github.com/dit-org/dit/internal/devices"
	"github.com/dit-org/dit/internal/units"
)

// RunCard reads a camera card's own files past the cache, the largest
// first, up to Size bytes (the whole card when it holds less), as Streams
// readers at once. Nothing on the card is opened for writing, created or
// removed: files are opened read-only, without updating access times
// where the system allows.
func RunCard(ctx context.Context, dir string, o Options, mem int64) (*Result, error) {
	type file struct {
		path string
		size int64
	}
	var files []file
	var total int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if fi.Size() > 0 {
			files = append(files, file{p, fi.Size()})
			total += fi.Size()
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("speed test of the card %s: %w", dir, err)
	}
	if total < MinSize {
		return nil, fmt.Errorf("speed test of the card %s: it holds %s, too little to measure (at least %s)",
			dir, units.FormatBytes(total), units.FormatBytes(MinSize))
	}
	if err := o.fill(min(total, DefaultSize(mem, 1))); err != nil {
		return nil, err
	}
	o.Size = min(o.Size, total)
	sort.SliceStable(files, func(i, j int) bool { return files[i].size > files[j].size })
	// Deal the files to the streams, each to the one with the fewest bytes.
	per := make([][]string, o.Streams)
	load := make([]int64, o.Streams)
	var taken int64
	for _, f := range files {
		if taken >= o.Size {
			break
		}
		k := 0
		for s := range load {
			if load[s] < load[k] {
				k = s
			}
		}
		per[k] = append(per[k], f.path)
		load[k] += f.size
		taken += f.size
	}
	limit := int64(-1)
	if o.Size < total {
		limit = o.Size
	}
	res := &Result{Path: dir, Kind: Card, Started: o.Now(), Block: o.Block, Streams: o.Streams}
	res.Volume, res.VolumeHow = VolumeID(dir)
	if res.Read, err = readFiles(ctx, per, o, limit); err != nil {
		return nil, err
	}
	res.Size = res.Read.Bytes
	if devices.InMemory(dir) {
		inMemoryPhases(res.Read)
	}
	res.Notes = append(res.Notes, "read only: nothing on the card was written")
	return res, nil
}
