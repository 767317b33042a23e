package summary

import (
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/catalog/pgtest"
	"github.com/dit-org/dit/internal/verdict"
)

// tfile is a file row a test records, with its copies (by the index of
// their destination in the job's).
type tfile struct {
	rel        string
	size       int64
	state, err string
	copies     []tcopy
}

type tcopy struct {
	dest       int
	state, err string
}

// cascadeJob is a job of one card copied to destinations 0 and 1 and,
// in a cascade (second set), from its first copy to 2 and 3.
type cascadeJob struct {
	cat          *catalog.Catalog
	path         string // the catalog's
	job          *catalog.Job
	card, second *catalog.Card
	dests        []*catalog.Dest
}

// newJob records a done job whose card has n files (gen(i): its i-th)
// and, when n2 > 0, a cascade whose second run has n2 (gen2), in a new
// SQLite catalog.
func newJob(t testing.TB, n int, gen func(int) tfile, n2 int, gen2 func(int) tfile) *cascadeJob {
	return newJobIn(t, filepath.Join(t.TempDir(), "catalog.db"), n, gen, n2, gen2)
}

// newJobIn is newJob in the catalog at path (a file, or a PostgreSQL URL).
func newJobIn(t testing.TB, path string, n int, gen func(int) tfile, n2 int, gen2 func(int) tfile) *cascadeJob {
	t.Helper()
	dir := t.TempDir()
	cat, err := catalog.Open(path)
	require.NoError(t, err)
	j := &catalog.Job{Name: "Day01", Layout: "{job}/{card}", State: catalog.JobDone, Hashes: "xxh64", VerifyMode: "full",
		Started: time.Date(2026, 12, 4, 9, 0, 0, 0, time.UTC)}
	require.NoError(t, cat.CreateJob(j))
	c := &cascadeJob{cat: cat, path: path, job: j}
	t.Cleanup(func() {
		if c.cat != nil {
			c.cat.Close()
		}
	})
	hops := 1
	if n2 > 0 {
		hops = 2
	}
	for i := range 2 * hops {
		d := &catalog.Dest{JobID: j.ID, Seq: i, Path: filepath.Join(dir, fmt.Sprintf("dest%d", i)), Hop: 1 + i/2}
		require.NoError(t, cat.AddDest(d))
		c.dests = append(c.dests, d)
	}
	c.card = c.addCard(t, &catalog.Card{JobID: j.ID, Seq: 1, Label: "A001", Path: "/cards/A001", State: StateVerified}, n, gen)
	if n2 > 0 {
		c.second = c.addCard(t, &catalog.Card{JobID: j.ID, Seq: 2, Label: "A001", Path: filepath.Join(dir, "dest0", "Day01", "A001"),
			State: StateVerified, Hop: 2, FromCard: c.card.ID}, n2, gen2)
	}
	return c
}

// addCard records card k with n files gen(i) (its Files and Bytes: theirs).
func (c *cascadeJob) addCard(t testing.TB, k *catalog.Card, n int, gen func(int) tfile) *catalog.Card {
	t.Helper()
	require.NoError(t, c.cat.AddCard(k))
	for i := range n {
		f := gen(i)
		k.Files++
		k.Bytes += f.size
		c.cat.PutFile(&catalog.File{CardID: k.ID, Rel: f.rel, Size: f.size, State: f.state, Error: f.err, Mtime: time.Unix(1_700_000_000, 0)})
		for _, cp := range f.copies {
			if cp.dest >= len(c.dests) {
				continue // no cascade: no second run's destination
			}
			c.cat.PutCopy(k.ID, f.rel, &catalog.Copy{DestID: c.dests[cp.dest].ID, Path: f.rel, State: cp.state, Error: cp.err})
		}
	}
	c.cat.UpdateCard(k)
	require.NoError(t, c.cat.Flush())
	return k
}

// want is what a run's figures are by their definition: files and
// bytes counted (those counted says, when set), files failed (every
// file's, counted or not) with their errors in path order, and on each
// of the run's destinations (dests) the copies of the counted files by
// state; all: every file of the run recorded (cardFiles of them), each
// verified and with a verified copy on every one of dests.
type want struct {
	files    int
	bytes    int64
	failed   int
	failures []Failure
	dests    []DestSummary
	all      bool
}

func wantOf(files []tfile, dests []int, counted func(string) bool, cardFiles int) want {
	w := want{dests: make([]DestSummary, len(dests)), all: len(files) == cardFiles}
	for _, f := range files {
		if f.state == StateFailed {
			w.failed++
			w.failures = append(w.failures, Failure{Path: f.rel, Error: f.err})
		}
		verified := f.state == StateVerified
		for _, d := range dests {
			has := false
			for _, cp := range f.copies {
				if cp.dest == d {
					has = has || cp.state == StateVerified
				}
			}
			verified = verified && has
		}
		w.all = w.all && verified
		if counted != nil && !counted(f.rel) {
			continue
		}
		w.files++
		w.bytes += f.size
		for _, cp := range f.copies {
			i := slices.Index(dests, cp.dest)
			if i < 0 {
				continue // another run's destination
			}
			switch cp.state {
			case StateVerified:
				w.dests[i].Verified++
			case StateCopied, StatePresent:
				w.dests[i].Copied++
			case StateSkipped:
				w.dests[i].Skipped++
			default:
				w.dests[i].Failed++
			}
		}
	}
	slices.SortFunc(w.failures, func(a, b Failure) int {
		if a.Path < b.Path {
			return -1
		}
		return 1
	})
	return w
}

// counts are a summary's destinations' counts only.
func counts(ds []DestSummary) []DestSummary {
	var out []DestSummary
	for _, d := range ds {
		out = append(out, DestSummary{Verified: d.Verified, Copied: d.Copied, Failed: d.Failed, Skipped: d.Skipped})
	}
	return out
}

// listOf is gen's n files.
func listOf(n int, gen func(int) tfile) []tfile {
	var out []tfile
	for i := range n {
		out = append(out, gen(i))
	}
	return out
}

// Paths that sort differently by bytes and by a language's collation
// (upper and lower case, "_" and ".").
var dirs = []string{"CLIPS/", "clips/", "Clips_2/", "A001.RDC/", "a001_x/"}

// mixed is a card's i-th file: verified on both first-run destinations,
// failed, only copied, verified but missing its copy on destination 1,
// skipped there, failed there, or verified with a stray row on a
// second-run destination (a dit verify of an older dit wrote those).
func mixed(i int) tfile {
	f := tfile{rel: fmt.Sprintf("%sC%05d.mov", dirs[i%len(dirs)], i), size: int64(1000 + i), state: StateVerified}
	v := func(d int) tcopy { return tcopy{dest: d, state: StateVerified} }
	switch i % 7 {
	case 0:
		f.copies = []tcopy{v(0), v(1)}
	case 1:
		f.state, f.err = StateFailed, "reading the card: input/output error"
		f.copies = []tcopy{{0, StateFailed, "reading the card: input/output error"}}
	case 2:
		f.state = StateCopied
		f.copies = []tcopy{{0, StateCopied, ""}, {1, StatePresent, ""}}
	case 3:
		f.copies = []tcopy{v(0)}
	case 4:
		f.copies = []tcopy{v(0), {1, StateSkipped, ""}}
	case 5:
		f.copies = []tcopy{v(0), v(1), v(2)}
	case 6:
		f.copies = []tcopy{v(0), {1, StateFailed, "verify: hashes differ"}}
	}
	return f
}

// hashLists are the first copy's hash lists a second run copies with the
// card's files: one verified, one failed, one only copied to 2.
var hashLists = []tfile{
	{rel: "ascmhl/0001_A001_2026-12-04_090000Z.mhl", size: 4000, state: StateVerified, copies: []tcopy{{2, StateVerified, ""}, {3, StateVerified, ""}}},
	{rel: "ascmhl/ascmhl_chain.xml", size: 300, state: StateFailed, err: "upload: 503", copies: []tcopy{{2, StateFailed, "upload: 503"}}},
	{rel: "ascmhl/0002_A001_2026-12-04_100000Z.mhl", size: 4100, state: StateCopied, copies: []tcopy{{2, StateCopied, ""}}},
}

// A card whose files are verified, failed, only copied, missing a copy,
// skipped or failed on a destination, and its cascade's second run (the
// card's files that reached the first copy, in as many states, and the
// first copy's hash lists): every figure of the summary, read file by
// file and from the totals, is the one its definition gives, the second
// run counting only the card's files (not the hash lists) but listing
// the hash lists' failures. On SQLite and on PostgreSQL.
func TestSummaryFiguresMixed(t *testing.T) {
	summaryFiguresMixed(t, func(t *testing.T) string { return filepath.Join(t.TempDir(), "catalog.db") })
}

func TestSummaryFiguresMixedOnPostgres(t *testing.T) {
	srv := pgtest.ForTest(t)
	summaryFiguresMixed(t, func(t *testing.T) string {
		url, err := srv.NewDatabase("figures")
		require.NoError(t, err)
		return url
	})
}

// summaryFiguresMixed is TestSummaryFiguresMixed in the catalogs at
// the paths (or URLs) at gives.
func summaryFiguresMixed(t *testing.T, at func(*testing.T) string) {
	const n = 70
	card := listOf(n, mixed)
	var second []tfile
	for _, f := range card {
		if f.state == StateFailed {
			continue // not on the first copy
		}
		i := len(second)
		g := tfile{rel: f.rel, size: f.size, state: StateVerified}
		switch i % 5 {
		case 0:
			g.copies = []tcopy{{2, StateVerified, ""}, {3, StateVerified, ""}}
		case 1:
			g.copies = []tcopy{{2, StateVerified, ""}}
		case 2:
			g.state, g.err = StateFailed, "upload: 500"
			g.copies = []tcopy{{2, StateFailed, "upload: 500"}}
		case 3:
			g.state = StateCopied
			g.copies = []tcopy{{2, StateCopied, ""}, {3, StateVerified, ""}}
		case 4:
			g.copies = []tcopy{{2, StateVerified, ""}, {3, StateSkipped, ""}, {0, StateVerified, ""}}
		}
		second = append(second, g)
	}
	second = append(second, hashLists...)
	inCard := map[string]bool{}
	for _, f := range card {
		inCard[f.rel] = true
	}

	t.Run("without a cascade", func(t *testing.T) {
		c := newJobIn(t, at(t), n, mixed, 0, nil)
		w := wantOf(card, []int{0, 1}, nil, c.card.Files)
		for _, load := range []func(*catalog.Catalog, int64) (*Summary, error){LoadSummary, LoadFileByFile} {
			s, err := load(c.cat, c.job.ID)
			require.NoError(t, err)
			require.Len(t, s.Cards, 1)
			cs := s.Cards[0]
			require.Equal(t, n, cs.Files)
			require.Equal(t, c.card.Bytes, cs.Bytes)
			require.Equal(t, w.failed, cs.Failed)
			require.Equal(t, w.failures, cs.Failures)
			require.Equal(t, w.dests, counts(cs.Destinations))
			require.False(t, w.all)
			require.Equal(t, verdict.Failed, cs.FirstRun)
			require.Equal(t, n, s.Files)
			require.Equal(t, w.failed, s.Failed)
		}
	})

	t.Run("a cascade", func(t *testing.T) {
		c := newJobIn(t, at(t), n, mixed, len(second), func(i int) tfile { return second[i] })
		w1 := wantOf(card, []int{0, 1}, nil, c.card.Files)
		w2 := wantOf(second, []int{2, 3}, func(rel string) bool { return inCard[rel] }, c.second.Files)
		require.Equal(t, len(second)-len(hashLists), w2.files)
		s, err := LoadSummary(c.cat, c.job.ID)
		require.NoError(t, err)
		require.Len(t, s.Cards, 1)
		cs := s.Cards[0]
		require.Equal(t, n, cs.Files)
		require.Equal(t, c.card.Bytes, cs.Bytes)
		require.Equal(t, w1.failed, cs.Failed)
		require.Equal(t, w1.failures, cs.Failures)
		require.Equal(t, w1.dests, counts(cs.Destinations))
		require.NotNil(t, cs.Then)
		require.Equal(t, w2.files, cs.Then.Files)
		require.Equal(t, w2.bytes, cs.Then.Bytes)
		require.Equal(t, len(hashLists), cs.Then.HashListFiles)
		require.Equal(t, w2.failed, cs.Then.Failed)
		require.Equal(t, w2.failures, cs.Then.Failures)
		require.Equal(t, w2.dests, counts(cs.Then.Destinations))
		require.Equal(t, verdict.Failed, cs.Then.Status)
		require.Equal(t, w1.failed+w2.failed, s.Failed)
		b, err := LoadFileByFile(c.cat, c.job.ID)
		require.NoError(t, err)
		require.Equal(t, s, b)
	})
}

// verifiedCard is a card's i-th file, verified on destinations 0 and 1
// (and, as a second run's, on 2 and 3).
func verifiedCard(i int) tfile {
	return tfile{rel: fmt.Sprintf("%sC%07d.ari", dirs[i%len(dirs)], i), size: 512, state: StateVerified,
		copies: []tcopy{{0, StateVerified, ""}, {1, StateVerified, ""}}}
}

func verifiedSecond(n int) func(int) tfile {
	return func(i int) tfile {
		if i >= n {
			f := hashLists[0]
			f.rel = fmt.Sprintf("ascmhl/%04d_A001.mhl", i-n+1)
			return f
		}
		f := verifiedCard(i)
		f.copies = []tcopy{{2, StateVerified, ""}, {3, StateVerified, ""}}
		return f
	}
}

// Safe to format needs every file of each run verified on every one of
// its destinations, the hash lists a second run copies included, and
// every file of the card recorded; a copy on the other run's
// destination is not one of the run's.
func TestSummaryAllVerified(t *testing.T) {
	const n = 40
	for _, tc := range []struct {
		name        string
		card, hop2  func(int) tfile
		missing     int // files of the card not recorded
		first, then verdict.State
	}{
		{"all verified", verifiedCard, verifiedSecond(n), 0, verdict.Verified, verdict.Verified},
		{"a copy missing", func(i int) tfile {
			f := verifiedCard(i)
			if i == 17 {
				f.copies = f.copies[:1]
			}
			return f
		}, verifiedSecond(n), 0, verdict.Failed, ""},
		{"a stray copy", func(i int) tfile {
			f := verifiedCard(i)
			if i == 3 {
				f.copies = append(f.copies, tcopy{2, StateFailed, "stale"})
			}
			return f
		}, verifiedSecond(n), 0, verdict.Verified, verdict.Verified},
		{"a file not recorded", verifiedCard, verifiedSecond(n), 1, verdict.Failed, ""},
		{"a hash list only copied", verifiedCard, func(i int) tfile {
			f := verifiedSecond(n)(i)
			if i == n+1 {
				f.copies = []tcopy{{2, StateVerified, ""}, {3, StateCopied, ""}}
			}
			return f
		}, 0, verdict.Verified, verdict.Failed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newJob(t, n, tc.card, n+2, tc.hop2)
			if tc.missing > 0 {
				c.card.Files += tc.missing
				c.cat.UpdateCard(c.card)
			}
			s, err := LoadSummary(c.cat, c.job.ID)
			require.NoError(t, err)
			cs := s.Cards[0]
			require.Equal(t, tc.first, cs.FirstRun)
			require.Equal(t, tc.first == verdict.Verified && tc.then == verdict.Verified, cs.SafeToFormat)
			if tc.then != "" {
				require.NotNil(t, cs.Then)
				require.Equal(t, tc.then, cs.Then.Status)
				require.Equal(t, n, cs.Then.Files, "the card's files, not its hash lists")
				require.Equal(t, 2, cs.Then.HashListFiles)
				require.Equal(t, []DestSummary{{Verified: n}, {Verified: n}}, counts(cs.Then.Destinations))
			}
			first := []DestSummary{{Verified: n}, {Verified: n}}
			if tc.name == "a copy missing" {
				first[1].Verified--
			}
			require.Equal(t, first, counts(cs.Destinations))
		})
	}
}

// heapPeak is the highest live heap (after a collection) sampled each
// every-th file countFiles walks while load runs.
func heapPeak(t *testing.T, every int, load func() error) uint64 {
	var peak uint64
	sample := func() {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		peak = max(peak, m.HeapAlloc)
	}
	i := 0
	walked = func() {
		if i++; i%every == 0 {
			sample()
		}
	}
	defer func() { walked = nil }()
	sample()
	require.NoError(t, load())
	sample()
	return peak
}

// Reading a cascade's summary file by file (the card's run, then its
// second run counting only the card's files) holds no file: the live
// heap's peak while the files are walked is the same for a card of N
// files and of 10 N. (Listing them whole took ~700 bytes a file.)
func TestSummaryMemoryFlatInFiles(t *testing.T) {
	if raceOn {
		t.Skip("the race detector allocates on its own: go test without -race runs it")
	}
	n := 2000
	if testing.Short() {
		n = 500
	}
	var peaks []uint64
	for _, files := range []int{n, 10 * n} {
		c := newJob(t, files, verifiedCard, files+3, verifiedSecond(files))
		// Read as dit job show reads it: in a process that opens the
		// catalog (not the one whose writer recorded the files).
		require.NoError(t, c.cat.Close())
		c.cat = nil // its write queue not counted in the next
		var err error
		c.cat, err = catalog.Open(c.path)
		require.NoError(t, err)
		var s *Summary
		peak := heapPeak(t, files/20, func() (err error) {
			s, err = LoadFileByFile(c.cat, c.job.ID)
			return err
		})
		require.Equal(t, files, s.Cards[0].Then.Files)
		require.Equal(t, verdict.Safe, s.Cards[0].Status)
		peaks = append(peaks, peak)
		require.NoError(t, c.cat.Close())
		c.cat = nil // its write queue not counted in the next
	}
	per := float64(int64(peaks[1])-int64(peaks[0])) / float64(9*n)
	t.Logf("live heap peak: %d files %d kB, %d files %d kB (%.1f bytes a file more)", n, peaks[0]/1000, 10*n, peaks[1]/1000, per)
	require.Less(t, float64(peaks[1]), 1.25*float64(peaks[0]), "the peak grows with the files")
	require.Less(t, per, 20.0, "bytes held a file")
}
