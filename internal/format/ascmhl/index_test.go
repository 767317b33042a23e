package ascmhl

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/hashing"

	"github.com/dit-org/dit/internal/fsys"
)

// indexNames are paths in any Unicode: NFC and NFD, emoji, bytes that
// are no UTF-8, files at the root and deep, a file and a folder of one
// name.
var indexNames = []string{"a.mov", "caf\u00e9.mov", "cafe\u0301.mov", "caf\u00e9/x.mov", "cafe\u0301/x.mov", "🎬/🎬.ari",
	"A002R1AB/A002C003_230512_R1AB/A002C003_230512_R1AB.0000001.arx", "A002R1AB/A002C003_230512_R1AB/A002C003_230512_R1AB.0000002.arx",
	"dir\xfe/bad\xffname.mov", "d/e/f/g.txt", "d/e/f", "d/e", "x", "x/y", "日本/語.mxf", "a b/c d.mov"}

// randomFile is a record of one of indexNames in a generation: hashes
// (some failed), a size or none, sometimes renamed from another name.
func randomFile(rng *rand.Rand) File {
	f := File{Path: indexNames[rng.IntN(len(indexNames))], Size: int64(rng.IntN(3)) - 1}
	for _, a := range []hashing.Algo{hashing.XXH64, hashing.MD5, hashing.C4} {
		if rng.IntN(2) == 0 {
			continue
		}
		act := Original
		if rng.IntN(4) == 0 {
			act = Failed
		}
		sum := hashing.Bytes([]hashing.Algo{a}, []byte(fmt.Sprint(rng.IntN(3))))
		f.Hashes = append(f.Hashes, Hash{Algo: a, Value: sum.Get(a), Action: act})
	}
	if rng.IntN(4) == 0 {
		f.PreviousPath = indexNames[rng.IntN(len(indexNames))]
	}
	return f
}

// The index keeps each folder once and gives what it gave when it kept
// each path whole: the same records, the same errors, the same lookups,
// for histories of random generations of Unicode names with renames and
// failed hashes; held in memory, and with its bytes on disk (blocks of
// 256 bytes: they spill as the history loads, and are read back to find
// the records of later generations).
func TestIndexMatchesBefore(t *testing.T) {
	t.Run("in memory", func(t *testing.T) { indexMatchesBefore(t, newIndex, func(*index) {}) })
	t.Run("on disk", func(t *testing.T) {
		smallBlocks(t)
		defer fsys.SetSpillDir(t.TempDir())()
		reads := int64(0)
		indexMatchesBefore(t, newDiskIndex, func(x *index) {
			for _, p := range x.pages {
				require.Nil(t, p, "the records are on disk")
			}
			reads += x.mem.sp.reads.Load()
		})
		require.Positive(t, reads, "read back from the spill")
	})
}

func indexMatchesBefore(t *testing.T, newX func() *index, check func(*index)) {
	for seed := range uint64(500) {
		rng := rand.New(rand.NewPCG(seed, 3))
		x, old := newX(), newOldIndex()
		for seq := 1; seq <= 1+rng.IntN(4); seq++ {
			for range rng.IntN(12) {
				if rng.IntN(6) == 0 {
					d := &Dir{Path: indexNames[rng.IntN(len(indexNames))]}
					if rng.IntN(3) == 0 {
						d.PreviousPath = indexNames[rng.IntN(len(indexNames))]
					}
					err, oerr := x.addDir(seq, d), old.addDir(seq, d)
					require.Equal(t, oerr, err, "seed %d", seed)
					continue
				}
				f := randomFile(rng)
				err, oerr := x.addFile(seq, &f), old.addFile(seq, &f)
				require.Equal(t, oerr, err, "seed %d: %+v", seed, f)
			}
		}
		x.freeze()
		require.Equal(t, old.records(), recordMap(&Records{x: x}), "seed %d", seed)
		require.Equal(t, old.dirs, x.dirs, "seed %d", seed)
		for _, p := range append(indexNames, "nope", "caf\u00e9/nope", "") {
			r, _, ok := x.find(p)
			q, oldOK := old.file(p)
			require.Equal(t, oldOK, ok, "seed %d: %q", seed, p)
			if ok {
				require.Equal(t, old.algos(q), x.algos(&r))
				require.Equal(t, [4]int64{q.size, int64(q.firstSeq), int64(q.lastSeq), int64(q.failedSeq)},
					[4]int64{r.size, int64(r.firstSeq), int64(r.lastSeq), int64(r.failedSeq)})
			}
		}
		check(x)
	}
}

// What Verify holds of a history of 100,000 files (the synthetic card's
// 37-byte paths, one xxh64 each) stays within its budget a file: the
// index keeps each folder once, a file's name and value packed, a
// 32-byte record and a table slot. Holding every path whole (the index
// before) is over it, and so would be any copy of the history's records.
func TestVerifyIndexFootprint(t *testing.T) {
	if raceOn {
		t.Skip("the index's bytes a file, on one goroutine (Verify's merge is raced by verifymerge_test.go): go test without -race runs it")
	}
	defer fsys.SetSpillDir("")() // held in memory (TestHistoryIndexOnDiskIsFlat: on disk)
	dir := t.TempDir()
	st, err := OpenOSStore(dir)
	require.NoError(t, err)
	defer st.Close()
	s := &synthStore{OSStore: st, folders: 100, perDir: 1000}
	writeLargeHistory(t, dir, s)
	h, err := loadHistory(s, loadCompact)
	require.NoError(t, err)
	require.Empty(t, h.Problems)
	require.Nil(t, h.Generations[0].Manifest.Files, "a large history keeps its index only")
	require.Equal(t, 100*1000, h.idx.n)
	require.Len(t, h.idx.folderName, 1+100, "each folder of files once (and the root)")
	perFile := float64(h.idx.footprint()) / float64(h.idx.n)
	t.Logf("index: %.1f B a file (%d blocks, %d pages, %d slots)", perFile, len(h.idx.mem.blocks), len(h.idx.pages), len(h.idx.table))
	require.LessOrEqual(t, perFile, 92.0, "bytes a file the index holds")

	old := newOldIndex()
	for i := range s.folders {
		for j := range s.perDir {
			f := File{Path: "Clips/" + s.folder(i) + "/" + s.file(i, j), Size: 8,
				Hashes: []Hash{{Algo: hashing.XXH64, Value: "0123456789abcdef", Action: Original}}}
			require.NoError(t, old.addFile(1, &f))
		}
	}
	oldFoot := len(old.mem.blocks)*arenaBlock + cap(old.recs)*32 + 4*len(old.table)
	t.Logf("index before: %.1f B a file", float64(oldFoot)/float64(len(old.recs)))
	require.Greater(t, float64(oldFoot)/float64(len(old.recs)), 92.0, "the budget tells the index before from now")

	res, err := Verify(context.Background(), s, VerifyOptions{})
	require.NoError(t, err)
	require.True(t, res.OK())
	require.Equal(t, 100*1000, res.Files)
}

// recordMap is every record of r by its path (Records.All), and each
// path's record again through Get: the two agree.
func recordMap(r *Records) map[string]*Record {
	out := map[string]*Record{}
	for rec := range r.All() {
		out[rec.Path] = rec
		if got := r.Get(rec.Path); got == nil || got.Size != rec.Size || len(got.Values) != len(rec.Values) {
			panic("Records.Get disagrees with Records.All at " + rec.Path)
		}
	}
	if len(out) != r.Len() {
		panic("Records.Len disagrees with Records.All")
	}
	return out
}

// The last generation's records go to disk while the history loads, a
// page of 16,384 as soon as it is full (no later record changes them):
// three generations of random records over 40,000 paths, then 40,000
// over 120,000 (files recorded again, renamed, recorded twice in one
// generation, failed)
// give the records the index before gave, the last one's pages written
// before the load ended.
func TestIndexLastGenerationSpillsAsItLoads(t *testing.T) {
	if raceOn {
		t.Skip("one goroutine: go test without -race runs it")
	}
	defer fsys.SetSpillDir(t.TempDir())()
	rng := rand.New(rand.NewPCG(7, 11))
	names := 40000
	name := func() string {
		n := rng.IntN(names)
		return fmt.Sprintf("Clips/C%03d_caf\u00e9/%06d.mov", n/400, n)
	}
	x, old := newDiskIndex(), newOldIndex()
	for seq := 1; seq <= 3; seq++ {
		if seq == 3 {
			x.lastGeneration()
			names = 120000
		}
		for range names * 5 / 8 {
			f := randomFile(rng)
			f.Path = name()
			if f.PreviousPath != "" {
				f.PreviousPath = name()
			}
			err, oerr := x.addFile(seq, &f), old.addFile(seq, &f)
			require.Equal(t, oerr, err, "%+v", f)
		}
	}
	require.Positive(t, x.finalPages, "pages of the last generation written while it loaded")
	x.freeze()
	require.Equal(t, old.records(), recordMap(&Records{x: x}))
}
