package recheck

import (
	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/hashing/inorder"
	"github.com/dit-org/dit/internal/offload/dest"
)

// FilesInFlight is how many copies of one destination dit verify reads
// back at once, each on a goroutine of its own with hashers and blocks
// of its own (a slot: two blocks of SlotBlock). A destination's copies
// are still taken in the catalog's order, a few at a time, and what is
// found is reported and recorded in that order (internal/hashing/
// inorder); with eight files hashing at once the process's MD5 lanes
// (internal/hashing/lanes: three or more streams at once, its 8-lane
// kernel up to eight) fill: with 4 at once, dit verify --verify-hashes
// all of the 4-card job took about 1.4 times as long (docs/benchmarks.md).
// A destination on a spinning disk (fsys.Rotational: Linux says it; a
// VM's virtio disk often claims to spin) is read one copy at a time, as
// before: several places read at once would cost a seek each.
const FilesInFlight = 8

// MaxInFlight caps the copies read back at once in all: a job of more
// than MaxInFlight/FilesInFlight folder destinations reads fewer of
// each at once (at least one).
const MaxInFlight = 16

// SlotBlock is the size of a slot's two blocks: the block dit verify
// always read back with, large so that a spinning disk read in several
// places at once seeks once every 4 MiB at the most.
const SlotBlock = 4 << 20

// maxQueued is how many copies (read back or being read, and what is
// queued between them) are held at once: a long file at the front keeps
// the walk waiting once that many are behind it.
const maxQueued = 256

// rotational says whether a destination is on a spinning disk
// (fsys.Rotational; tests replace it).
var rotational = fsys.Rotational

// slot is what one copy read back at once reads with.
type slot struct {
	bufs [][]byte
	mh   *hashing.Multi
}

// startPool makes the pool that reads the folder destinations' copies
// back (a group a destination) and the cloud read-back's blocks and
// hashers, where the job has a cloud destination.
func (r *rechecker) startPool(dests []*catalog.Dest) {
	r.groups = map[int64]int{}
	remote := false
	for _, d := range dests {
		if dest.IsRemote(d.Path) {
			remote = true
			continue
		}
		r.groups[d.ID] = len(r.groups)
	}
	each := max(1, min(FilesInFlight, MaxInFlight/max(len(r.groups), 1)))
	r.pool = inorder.New(len(r.groups), each, maxQueued)
	for _, d := range dests {
		if g, ok := r.groups[d.ID]; ok && rotational(d.Path) {
			// A spinning disk read in several places at once seeks
			// between them: its copies are read one at a time.
			r.pool.Limit(g, 1)
		}
	}
	r.pool.OnWake = func() { r.onProgress(r.prog) }
	r.slots = make([][]*slot, len(r.groups))
	for i := range r.slots {
		r.slots[i] = make([]*slot, each)
	}
	if remote {
		r.mh = hashing.NewMulti(r.valgos, 2)
		r.bufs = [][]byte{fsys.Block(SlotBlock), fsys.Block(SlotBlock)}
	}
}

// stopPool waits for the reads under way (what is queued is dropped: the
// check stopped) and stops every hasher.
func (r *rechecker) stopPool() {
	r.pool.Stop()
	for _, g := range r.slots {
		for _, s := range g {
			if s != nil {
				s.mh.Close()
			}
		}
	}
	if r.mh != nil {
		r.mh.Close()
	}
}

// slot is slot i of group g, made the first time it is used (by the
// goroutine that holds it).
func (r *rechecker) slot(g, i int) *slot {
	s := r.slots[g][i]
	if s == nil {
		s = &slot{bufs: [][]byte{fsys.Block(SlotBlock), fsys.Block(SlotBlock)}, mh: hashing.NewMulti(r.valgos, 2)}
		r.slots[g][i] = s
	}
	return s
}
