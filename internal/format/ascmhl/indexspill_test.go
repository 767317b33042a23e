package ascmhl

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/hashing"

	"github.com/dit-org/dit/internal/fsys"
)

// synthValues are the values of file number n of a synthStore: its xxh64
// (generation 1) and md5 (generation 2).
func synthValues(n int) map[hashing.Algo]string {
	sums := hashing.Bytes([]hashing.Algo{hashing.XXH64, hashing.MD5}, synthContent(n))
	return map[hashing.Algo]string{hashing.XXH64: sums.Get(hashing.XXH64), hashing.MD5: sums.Get(hashing.MD5)}
}

// appendMD5Generation adds a generation recording an md5 of every file
// of s, written with AppendFrom (the index then adds a value to each
// record while it loads: their names read back from the spill).
func appendMD5Generation(t testing.TB, s *synthStore) {
	h, err := LoadHistoryHeads(s)
	require.NoError(t, err)
	m := &Manifest{Created: t0.Add(time.Hour), Host: "h", Tool: "dit", Process: ProcessInPlace}
	_, err = AppendFrom(s, h, m, "A001", func(mw *ManifestWriter) error {
		for i := range s.folders {
			for j := range s.perDir {
				n := i*s.perDir + j
				f := File{Path: "Clips/" + s.folder(i) + "/" + s.file(i, j), Size: 8,
					Hashes: []Hash{{Algo: hashing.MD5, Value: synthValues(n)[hashing.MD5], Action: Verified}}}
				if err := mw.File(&f); err != nil {
					return err
				}
			}
			if err := mw.Dir(&Dir{Path: "Clips/" + s.folder(i)}); err != nil {
				return err
			}
		}
		return nil
	})
	require.NoError(t, err)
}

// peakLive is the most the heap held live (marked by a collection:
// /gc/heap/live:bytes, read every 10 ms and at the end, after a
// collection) while f runs: what f holds at its peak, not its garbage
// (nor what a loaded machine's collector has not reached yet: the heap
// in use doubled under load).
func peakLive(f func()) (peak uint64) {
	runtime.GC() // not a live heap marked before f
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	read := func() {
		metrics.Read(sample)
		peak = max(peak, sample[0].Value.Uint64())
	}
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				read()
			}
		}
	}()
	f()
	close(done)
	<-stopped
	runtime.GC()
	read()
	return peak
}

// heapAlloc is the heap allocated after a collection.
func heapAlloc() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// A history of 300,000 files (a million with DIT_LARGE_MANIFEST=1, as
// docs/benchmarks.md's figures were measured; two generations: an
// xxh64, then an md5 each) read with LoadHistoryIndexed holds, once
// read, at most 16 B a file in memory (the heap after a collection, and
// the index's own count): its names, values and records are in the
// spill, read back as they are asked for. Every record is still found
// with its values, from several goroutines at once. Read when it had
// one generation, its records went to disk as it loaded.
func TestHistoryIndexOnDiskIsFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and reads a 300,000-file history (-short)")
	}
	dir := t.TempDir()
	st, err := OpenOSStore(dir)
	require.NoError(t, err)
	defer st.Close()
	s := &synthStore{OSStore: st, folders: 300, perDir: 1000}
	if os.Getenv("DIT_LARGE_MANIFEST") != "" {
		s.folders = 1000
	}
	files := s.folders * s.perDir
	writeLargeHistory(t, dir, s)
	load := func(spill string) (h *History, peak, held uint64) {
		defer fsys.SetSpillDir(spill)()
		before := heapAlloc()
		peak = peakLive(func() {
			h, err = LoadHistoryIndexed(s)
		})
		require.NoError(t, err)
		require.Empty(t, h.Problems)
		return h, peak - min(peak, before), heapAlloc() - before
	}
	// One generation: its records go to disk a page at a time as it loads.
	h, peak, held := load(t.TempDir())
	require.Equal(t, files/recPage, h.idx.finalPages, "every full page of records written while the history loaded")
	require.LessOrEqual(t, float64(peak)/float64(files), 48.0, "bytes a file live at the load's peak (its table and what is fixed: no record)")
	t.Logf("%d files, one generation, on disk: peak live heap while loading %d MB over the heap before (%.0f B a file); held after: %.1f B a file",
		files, peak>>20, float64(peak)/float64(files), float64(held)/float64(files))
	h = nil

	appendMD5Generation(t, s)
	h, peak, held = load("") // the index held in memory, for the figures
	t.Logf("%d files in memory: peak live heap while loading %d MB over the heap before (%.0f B a file); held after: %.1f B a file (heap), %.1f B a file (footprint)",
		files, peak>>20, float64(peak)/float64(files), float64(held)/float64(files), float64(h.idx.footprint())/float64(files))
	require.Greater(t, float64(held)/float64(files), 16.0, "the bound tells an index in memory from one on disk")
	h = nil

	h, peak, held = load(t.TempDir())
	x := h.idx
	require.True(t, x.frozen)
	perFile, footprint := float64(held)/float64(files), float64(x.footprint())/float64(files)
	t.Logf("%d files on disk: peak live heap while loading %d MB over the heap before (%.0f B a file); held after: %.1f B a file (heap), %.1f B a file (footprint: %d slots), spill cache %d kB, %d pages read back",
		files, peak>>20, float64(peak)/float64(files), perFile, footprint, len(x.table), x.mem.sp.held()>>10, x.mem.sp.reads.Load())
	require.LessOrEqual(t, perFile, 16.0, "bytes a file held in memory once the history is read")
	require.LessOrEqual(t, footprint, 16.0, "bytes a file the index counts in memory")
	for _, p := range x.pages {
		require.Nil(t, p, "every record page is on disk")
	}
	for _, b := range x.mem.blocks {
		require.Nil(t, b, "every block of names and values is on disk")
	}

	recs := h.Records()
	require.Equal(t, files, recs.Len())
	start := time.Now()
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := w; n < files; n += 4 {
				i, j := n/s.perDir, n%s.perDir
				p := "Clips/" + s.folder(i) + "/" + s.file(i, j)
				r := recs.Get(p)
				if r == nil || r.Size != 8 || r.FirstSeq != 1 || r.LastFailed || fmt.Sprint(r.Values) != fmt.Sprint(synthValues(n)) {
					errs[w] = fmt.Errorf("%s: %+v", p, r)
					return
				}
			}
		}()
	}
	wg.Wait()
	require.NoError(t, errors.Join(errs...))
	t.Logf("every record got, four goroutines at once: %s", time.Since(start).Round(time.Millisecond))
	require.Nil(t, recs.Get("Clips/"+s.folder(0)+"/nope.ari"))
	require.True(t, recs.Keeps("Clips/"+s.folder(299)))
	runtime.KeepAlive(h)
}

// failingSpill is a spill file whose writes fail after the first ok
// ones, or whose reads fail.
type failingSpill struct {
	spillFile
	mu      sync.Mutex
	ok      int
	readErr error
}

func (f *failingSpill) WriteAt(b []byte, off int64) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ok == 0 {
		return 0, errors.New("no space left on device")
	}
	f.ok--
	return f.spillFile.WriteAt(b, off)
}

func (f *failingSpill) ReadAt(b []byte, off int64) (int, error) {
	if f.readErr != nil {
		return 0, f.readErr
	}
	return f.spillFile.ReadAt(b, off)
}

// withSpill makes the spills opened meanwhile wrap as wrap says.
func withSpill(t *testing.T, wrap func(spillFile) spillFile) {
	open := openSpill
	openSpill = func(dir string) (spillFile, error) {
		f, err := open(dir)
		if err != nil {
			return nil, err
		}
		return wrap(f), nil
	}
	t.Cleanup(func() { openSpill = open })
}

// smallBlocks makes the arena's blocks fill (and spill) after a few
// records.
func smallBlocks(t *testing.T) {
	testBlockCap = 256
	t.Cleanup(func() { testBlockCap = 0 })
}

// A spill that cannot be made (its folder is a file), or that fails
// after a few writes (a full disk), leaves the index in memory from
// there on, with the same records: a job never fails for it.
func TestIndexSpillUnwritableStaysInMemory(t *testing.T) {
	smallBlocks(t)
	_, st := scopeWith(t, nil)
	var files []File
	for i := range 200 {
		files = append(files, fileRec(fmt.Sprintf("Clips/C%02d/%05d.ari", i/20, i), fmt.Sprint(i), Original))
	}
	appendGen(t, st, &Manifest{Files: files})
	load := func() *History {
		h, err := LoadHistoryIndexed(st)
		require.NoError(t, err)
		return h
	}
	defer fsys.SetSpillDir("")()
	want := recordMap(load().Records())
	require.Len(t, want, 200)

	notADir := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(notADir, nil, 0o644))
	defer fsys.SetSpillDir(filepath.Join(notADir, "dit"))()
	h := load()
	require.Equal(t, want, recordMap(h.Records()))
	require.Nil(t, h.idx.mem.sp.file, "no spill")
	require.Greater(t, h.idx.footprint(), 200*32, "records and names held in memory")

	defer fsys.SetSpillDir(t.TempDir())()
	withSpill(t, func(f spillFile) spillFile { return &failingSpill{spillFile: f, ok: 5} })
	h = load()
	require.True(t, h.idx.mem.sp.off, "a write failed")
	onDisk := 0
	for _, b := range h.idx.mem.blocks {
		if b == nil {
			onDisk++
		}
	}
	require.Equal(t, 5, onDisk, "the blocks written before the failure are on disk")
	require.NotNil(t, h.idx.pages[0], "the records, after the failure, in memory")
	require.Equal(t, want, recordMap(h.Records()))
}

// A spill that cannot be read back panics naming the folder: a record
// is never made up (a file missing or changed never looks recorded).
func TestIndexSpillUnreadablePanics(t *testing.T) {
	smallBlocks(t)
	spill := t.TempDir()
	defer fsys.SetSpillDir(spill)()
	var fail *failingSpill
	withSpill(t, func(f spillFile) spillFile { fail = &failingSpill{spillFile: f, ok: 1 << 30}; return fail })
	recs, err := RecordsOf(&Record{Path: "a.mov", Size: 1, Values: map[hashing.Algo]string{hashing.XXH64: xxh("a")}})
	require.NoError(t, err)
	require.NotNil(t, recs.Get("a.mov"))
	for _, err := range []error{errors.New("input/output error"), io.EOF} { // a disk error; the file cut short
		fail.readErr = err
		recs.x.mem.sp.cache = [spillCachePages]spillCached{} // read from the file
		require.PanicsWithError(t, fmt.Sprintf("a history's index kept in %s (unlinked) could not be read back: %v", spill, err), func() {
			recs.Get("a.mov")
		})
		require.Panics(t, func() { recs.Has("a.mov") })
	}
}

// Records on disk are read from several goroutines at once (an
// offload's workers each ask for the record of the file they finished),
// more of them than the cache holds (pages evicted and read again), each
// goroutine in its own order: every one gets its records (go test -race
// checks the cache's locking).
func TestIndexSpillConcurrentReads(t *testing.T) {
	defer fsys.SetSpillDir(t.TempDir())()
	const files = 30000
	var recs []*Record
	for n := range files {
		recs = append(recs, &Record{Path: fmt.Sprintf("Clips/C%03d/frame_%07d.ari", n/1000, n), Size: int64(n), Values: synthValues(n), FirstSeq: 1})
	}
	r, err := RecordsOf(recs...)
	require.NoError(t, err)
	require.Greater(t, r.x.mem.sp.end, int64(spillCachePages*spillPage), "more on disk than the cache holds")
	var wg sync.WaitGroup
	errs := make([]error, 6)
	for w := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range files {
				n := (k*(2*w+1) + w*977) % files
				if got := r.Get(recs[n].Path); got == nil || got.Size != int64(n) || fmt.Sprint(got.Values) != fmt.Sprint(recs[n].Values) {
					errs[w] = fmt.Errorf("%s: %+v", recs[n].Path, got)
					return
				}
			}
		}()
	}
	wg.Wait()
	require.NoError(t, errors.Join(errs...))
	require.Equal(t, files, r.Len())
}
