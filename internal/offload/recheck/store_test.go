//go:build unix

package recheck

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/cloud"
	"github.com/dit-org/dit/internal/cloud/s3test"
	"github.com/dit-org/dit/internal/format/ascmhl"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload/dest"
	"github.com/dit-org/dit/internal/offload/dest/remote"
	"github.com/dit-org/dit/internal/offload/summary"
)

// listCounter is a real store that counts its listings: ListDir by
// folder, List (a folder's whole tree) by folder. fail, if set, is a
// folder whose listing fails (the remote not answering there); sample,
// if set, runs after each listing, the listing still held.
type listCounter struct {
	dest.Store
	mu     sync.Mutex
	dirs   map[string]int
	trees  []string
	fail   string
	sample func()
}

func (s *listCounter) wrap(st dest.Store) dest.Store { s.Store = st; return s }

func (s *listCounter) ListDir(ctx context.Context, dir string) (map[string]dest.Object, error) {
	s.mu.Lock()
	if s.dirs == nil {
		s.dirs = map[string]int{}
	}
	s.dirs[dir]++
	s.mu.Unlock()
	if dir == s.fail {
		return nil, errors.New("connection refused")
	}
	objs, err := s.Store.ListDir(ctx, dir)
	if s.sample != nil {
		s.sample()
	}
	runtime.KeepAlive(objs)
	return objs, err
}

func (s *listCounter) List(ctx context.Context, dir string) (map[string]dest.Object, error) {
	s.mu.Lock()
	s.trees = append(s.trees, dir)
	s.mu.Unlock()
	objs, err := s.Store.List(ctx, dir)
	if s.sample != nil {
		s.sample()
	}
	runtime.KeepAlive(objs)
	return objs, err
}

// cloudEnv is an S3 server (rclone serve s3, over a folder of the
// test's) and a real catalog.
type cloudEnv struct {
	s   *s3test.Server
	cat *catalog.Catalog
	dir string
}

func newCloudEnv(t *testing.T) *cloudEnv {
	t.Helper()
	s := s3test.StartChecked(t, "ditcloud", "shots")
	dir := t.TempDir()
	cat, err := catalog.Open(filepath.Join(dir, "dit.db"))
	require.NoError(t, err)
	t.Cleanup(func() { cat.Close() })
	return &cloudEnv{s: s, cat: cat, dir: dir}
}

// opts are dit verify's options reaching the server, its store wrapped
// by c (nil: none).
func (e *cloudEnv) opts(c *listCounter, onResult func(Result)) Options {
	o := Options{Remote: remote.Settings{Rclone: &cloud.Rclone{Env: e.s.Env}}, OnResult: onResult}
	if c != nil {
		o.WrapStore = c.wrap
	}
	return o
}

// object is where the server holds the object rel of folder (a folder
// of the bucket shots).
func (e *cloudEnv) object(folder, rel string) string {
	return filepath.Join(e.s.Dir, "shots", filepath.FromSlash(folder), filepath.FromSlash(rel))
}

// job records a finished job (ASC MHL: mhl) that sent card A001's files
// (each rel: its bytes, of each() in turn) to rclone:ditcloud:shots/
// folder, each verified by the storage's MD5 (a rel of chains: its copy
// is the card's ASC MHL chain, gone up as the chain of the history dit
// extended there), and puts the objects on the server as the upload
// left them.
func (e *cloudEnv) job(t *testing.T, folder, mhl string, each func(put func(rel string, data []byte)), chains ...string) (*catalog.Job, *catalog.Card) {
	t.Helper()
	j := &catalog.Job{Name: "day01", State: catalog.JobDone, Hashes: "xxh64,md5", VerifyMode: "dest", VerifyHashes: "fastest", Layout: "{card}", MHL: mhl, Started: time.Now()}
	require.NoError(t, e.cat.CreateJob(j))
	d := &catalog.Dest{JobID: j.ID, Path: "rclone:ditcloud:shots/" + folder}
	require.NoError(t, e.cat.AddDest(d))
	k := &catalog.Card{JobID: j.ID, Label: "A001", Path: filepath.Join(e.dir, "A001"), State: summary.StateVerified, Sealed: time.Now()}
	require.NoError(t, e.cat.AddCard(k))
	e.cat.UpdateCard(k) // sealed
	each(func(rel string, data []byte) {
		sums := hashing.Bytes([]hashing.Algo{hashing.XXH64, hashing.MD5}, data)
		e.cat.PutFile(&catalog.File{CardID: k.ID, Rel: rel, Size: int64(len(data)), Mtime: time.Now(), State: summary.StateVerified, Sums: sums})
		how := "s3-etag:md5"
		for _, c := range chains {
			if c == rel {
				how = dest.ByHistory + how
			}
		}
		e.cat.PutCopy(k.ID, rel, &catalog.Copy{DestID: d.ID, Path: "A001/" + rel, State: summary.StateVerified, Written: true, VerifyAlgos: how, VerifiedAt: time.Now()})
		p := e.object(folder, path.Join("A001", rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, data, 0o644))
	})
	require.NoError(t, e.cat.Flush())
	return j, k
}

// files puts the files of m, in no order.
func files(m map[string]string) func(put func(string, []byte)) {
	return func(put func(string, []byte)) {
		for rel, s := range m {
			put(rel, []byte(s))
		}
	}
}

// byState are the results' paths by state, each list sorted.
func byState(rs []Result) map[string][]string {
	out := map[string][]string{}
	for _, r := range rs {
		out[r.State] = append(out[r.State], r.Path)
	}
	for _, ps := range out {
		sort.Strings(ps)
	}
	return out
}

// copyOf is the catalog's record of card k's file rel and its one copy.
func copyOf(t *testing.T, cat *catalog.Catalog, k *catalog.Card, rel string) (*catalog.File, catalog.Copy) {
	t.Helper()
	fs, err := cat.Files(k.ID)
	require.NoError(t, err)
	for _, f := range fs {
		if f.Rel == rel {
			require.Len(t, f.Copies, 1)
			return f, f.Copies[0]
		}
	}
	t.Fatalf("no file %s", rel)
	return nil, catalog.Copy{}
}

// cardFolders is a card of files in several folders: folder A comes
// back after two of its folders (the catalog's path order), C's only
// file is in a folder of its own, top.mov is at the card's top.
var cardFolders = map[string]string{
	"A/a.mov": "a's bytes", "A/b/x.mov": "x's bytes", "A/c/y.mov": "y's bytes", "A/d.mov": "d's bytes",
	"B/1.mov": "frame one", "B/2.mov": "frame two", "B/3.mov": "frame three",
	"C/sub/z.mov": "z's bytes", "top.mov": "the top clip",
}

// dit verify of a card in the cloud, in several folders, checks every
// object by the storage's MD5 reading what the remote holds a folder at
// a time, as the walk of the card's files comes to it: never the card's
// folder whole, each folder listed once, but A, which the walk comes
// back to after two of its folders. An object replaced on the server
// with other bytes of its size fails by the storage's MD5, one deleted
// is reported missing, both recorded failed; with --all every object is
// read back and hashed, the replaced one failing.
func TestVerifyCloudListsAFolderAtATime(t *testing.T) {
	e := newCloudEnv(t)
	j, k := e.job(t, "ver", "none", files(cardFolders))
	at := func(rel string) string { return "rclone:ditcloud:shots/ver/A001/" + rel }
	var all []string
	for rel := range cardFolders {
		all = append(all, at(rel))
	}
	sort.Strings(all)
	wantDirs := map[string]int{"A001/A": 2, "A001/A/b": 1, "A001/A/c": 1, "A001/B": 1, "A001/C/sub": 1, "A001": 1}

	c := &listCounter{}
	var got []Result
	ok, err := JobWith(context.Background(), e.cat, nil, j.ID, e.opts(c, func(r Result) { got = append(got, r) }))
	require.NoError(t, err)
	require.True(t, ok, "%+v", got)
	require.Equal(t, map[string][]string{summary.StateVerified: all}, byState(got))
	require.Empty(t, c.trees, "no listing of the card's whole folder")
	require.Equal(t, wantDirs, c.dirs)

	// Frame two replaced by other bytes of its size; z deleted.
	other := filepath.Join(e.dir, "other")
	require.NoError(t, os.WriteFile(other, []byte("frame 2!!"), 0o644))
	e.s.Rclone(t, "copyto", other, "ditcloud:shots/ver/A001/B/2.mov", "--ignore-times")
	e.s.Rclone(t, "deletefile", "ditcloud:shots/ver/A001/C/sub/z.mov")

	c, got = &listCounter{}, nil
	ok, err = JobWith(context.Background(), e.cat, nil, j.ID, e.opts(c, func(r Result) { got = append(got, r) }))
	require.NoError(t, err)
	require.False(t, ok)
	states := byState(got)
	require.Equal(t, []string{at("B/2.mov")}, states[summary.StateFailed])
	require.Equal(t, []string{at("C/sub/z.mov")}, states[Missing])
	require.Len(t, states[summary.StateVerified], len(cardFolders)-2)
	for _, r := range got {
		switch r.Path {
		case at("B/2.mov"):
			require.Contains(t, r.Error, "md5 differs: source "+hashing.Bytes([]hashing.Algo{hashing.MD5}, []byte("frame two")).Get(hashing.MD5)+", the storage's own (S3 ETag) ")
		case at("C/sub/z.mov"):
			require.Equal(t, "the object is gone from the remote", r.Error)
		}
	}
	require.Empty(t, c.trees)
	require.Equal(t, wantDirs, c.dirs)
	for _, rel := range []string{"B/2.mov", "C/sub/z.mov"} {
		f, cp := copyOf(t, e.cat, k, rel)
		require.Equal(t, summary.StateFailed, f.State, rel)
		require.Contains(t, f.Error, "dit verify: copy at "+at(rel)+": ", rel)
		require.Equal(t, summary.StateFailed, cp.State, rel)
	}
	f, cp := copyOf(t, e.cat, k, "B/1.mov")
	require.Equal(t, summary.StateVerified, f.State)
	require.Equal(t, "s3-etag:md5", cp.VerifyAlgos)

	// --all: every object there read back and hashed.
	c, got = &listCounter{}, nil
	o := e.opts(c, func(r Result) { got = append(got, r) })
	o.All = true
	ok, err = JobWith(context.Background(), e.cat, nil, j.ID, o)
	require.NoError(t, err)
	require.False(t, ok)
	states = byState(got)
	require.Equal(t, []string{at("B/2.mov")}, states[summary.StateFailed])
	require.Equal(t, []string{at("C/sub/z.mov")}, states[Missing])
	require.Len(t, states[summary.StateVerified], len(cardFolders)-2)
	require.Equal(t, wantDirs, c.dirs)
	require.Empty(t, c.trees)
	_, cp = copyOf(t, e.cat, k, "B/1.mov")
	require.Equal(t, "readback:md5,xxh64", cp.VerifyAlgos, "read back and hashed")
}

// A folder of the remote that cannot be listed stops dit verify with an
// error naming it: the copies there are not known bad for it, and
// nothing is reported or recorded for them (one replaced on the server
// there stays as the catalog had it).
func TestVerifyCloudUnlistedFolderStops(t *testing.T) {
	e := newCloudEnv(t)
	j, k := e.job(t, "down", "none", files(cardFolders))
	other := filepath.Join(e.dir, "other")
	require.NoError(t, os.WriteFile(other, []byte("frame 2!!"), 0o644))
	e.s.Rclone(t, "copyto", other, "ditcloud:shots/down/A001/B/2.mov", "--ignore-times")

	c := &listCounter{fail: "A001/B"}
	var got []Result
	_, err := JobWith(context.Background(), e.cat, nil, j.ID, e.opts(c, func(r Result) { got = append(got, r) }))
	require.ErrorContains(t, err, "cannot list rclone:ditcloud:shots/down/A001/B: connection refused: the copies there were not checked; run it again once the remote answers")
	for _, r := range got {
		require.Equal(t, summary.StateVerified, r.State, r.Path)
		require.NotContains(t, r.Path, "/A001/B/", "nothing reported of the folder not listed")
	}
	require.Len(t, got, 4, "folder A's files, checked before")
	f, cp := copyOf(t, e.cat, k, "B/2.mov")
	require.Equal(t, summary.StateVerified, f.State, "not found bad: nothing recorded")
	require.Equal(t, summary.StateVerified, cp.State)
	require.Empty(t, c.trees)
}

// history is an ASC MHL history of two generations, the card's first
// and dit's second, as dit leaves it in the cloud: the card's own
// manifest, dit's, and the chain listing both.
func history() (card, dits, chain []byte, dname string) {
	t0 := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	card = []byte("<hashlist>the card's generation</hashlist>\n")
	dits = []byte("<hashlist>dit's generation</hashlist>\n")
	cname, dname := ascmhl.ManifestName(1, "A001", t0), ascmhl.ManifestName(2, "A001", t0.Add(time.Hour))
	chain = ascmhl.MarshalChain([]ascmhl.ChainEntry{{Seq: 1, Path: cname, C4: ascmhl.C4(card)}, {Seq: 2, Path: dname, C4: ascmhl.C4(dits)}})
	return card, dits, chain, dname
}

// A card whose ASC MHL chain went up as the chain of the history dit
// extended in the cloud: dit verify reads that history back (the chain
// and the two manifests it lists, each as the chain records it) from
// the listing of its folder, listed once; dit's manifest replaced on the
// server fails the chain's copy naming the object, and the card records
// its history changed (a resume seals it again). Its folder not listed
// stops the check, naming it, the card as it was.
func TestVerifyCloudHistoryByFolder(t *testing.T) {
	e := newCloudEnv(t)
	card, dits, chain, dname := history()
	cname := ascmhl.ManifestName(1, "A001", time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC))
	j, _ := e.job(t, "hist", "asc", files(map[string]string{
		"clip.mov": "the clip", "ascmhl/" + cname: string(card),
		"ascmhl/" + ascmhl.ChainFile: "the card's chain, as the card held it",
	}), "ascmhl/"+ascmhl.ChainFile)
	// What the seal sent: the chain extended, dit's generation.
	require.NoError(t, os.WriteFile(e.object("hist", "A001/ascmhl/"+ascmhl.ChainFile), chain, 0o644))
	require.NoError(t, os.WriteFile(e.object("hist", "A001/ascmhl/"+dname), dits, 0o644))
	at := "rclone:ditcloud:shots/hist/A001/"

	c := &listCounter{}
	var got []Result
	ok, err := JobWith(context.Background(), e.cat, nil, j.ID, e.opts(c, func(r Result) { got = append(got, r) }))
	require.NoError(t, err)
	require.True(t, ok, "%+v", got)
	require.Equal(t, map[string][]string{
		summary.StateVerified: {at + "ascmhl/" + cname, at + "clip.mov"},
		Resealed:              {at + "ascmhl/" + ascmhl.ChainFile},
	}, byState(got))
	for _, r := range got {
		if r.State == Resealed {
			require.Contains(t, r.Error, "read back with the 2 manifests it lists")
		}
	}
	require.Equal(t, map[string]int{"A001": 1, "A001/ascmhl": 1}, c.dirs)
	require.Empty(t, c.trees)

	// Its folder not answering: stopped, nothing found bad.
	c, got = &listCounter{fail: "A001/ascmhl"}, nil
	_, err = JobWith(context.Background(), e.cat, nil, j.ID, e.opts(c, func(r Result) { got = append(got, r) }))
	require.ErrorContains(t, err, "cannot list rclone:ditcloud:shots/hist/A001/ascmhl: connection refused: the copies there were not checked")
	ks, err := e.cat.Cards(j.ID)
	require.NoError(t, err)
	require.Equal(t, summary.StateVerified, ks[0].State)

	other := filepath.Join(e.dir, "other")
	require.NoError(t, os.WriteFile(other, []byte("garbage"), 0o644))
	e.s.Rclone(t, "copyto", other, "ditcloud:shots/hist/A001/ascmhl/"+dname, "--ignore-times")
	c, got = &listCounter{}, nil
	ok, err = JobWith(context.Background(), e.cat, nil, j.ID, e.opts(c, func(r Result) { got = append(got, r) }))
	require.NoError(t, err)
	require.False(t, ok)
	states := byState(got)
	require.Equal(t, []string{at + "ascmhl/" + ascmhl.ChainFile}, states[summary.StateFailed])
	for _, r := range got {
		if r.State == summary.StateFailed {
			require.Contains(t, r.Error, at+"ascmhl/"+dname+" differs from what its chain records (c4 ")
		}
	}
	require.Equal(t, map[string]int{"A001": 1, "A001/ascmhl": 1}, c.dirs)
	ks, err = e.cat.Cards(j.ID)
	require.NoError(t, err)
	require.Equal(t, catalog.CardSealing, ks[0].State)
	require.Contains(t, ks[0].Error, HistoryChanged)
}

// A card that carried no history, sealed in the cloud: dit verify reads
// back the history dit wrote there once its files are checked, from the
// listing of its folder; that folder not answering stops the check,
// naming it, and the card stays as it was.
func TestVerifyCloudCardHistoryUnlisted(t *testing.T) {
	e := newCloudEnv(t)
	_, dits, _, dname := history()
	j, _ := e.job(t, "new", "asc", files(map[string]string{"clip.mov": "the clip"}))
	chain := ascmhl.MarshalChain([]ascmhl.ChainEntry{{Seq: 1, Path: dname, C4: ascmhl.C4(dits)}})
	require.NoError(t, os.MkdirAll(filepath.Dir(e.object("new", "A001/ascmhl/"+dname)), 0o755))
	require.NoError(t, os.WriteFile(e.object("new", "A001/ascmhl/"+ascmhl.ChainFile), chain, 0o644))
	require.NoError(t, os.WriteFile(e.object("new", "A001/ascmhl/"+dname), dits, 0o644))
	at := "rclone:ditcloud:shots/new/A001/"

	c := &listCounter{}
	var got []Result
	ok, err := JobWith(context.Background(), e.cat, nil, j.ID, e.opts(c, func(r Result) { got = append(got, r) }))
	require.NoError(t, err)
	require.True(t, ok, "%+v", got)
	require.Equal(t, []Result{{Card: "A001", Path: at + "clip.mov", State: summary.StateVerified},
		{Card: "A001", Path: at + "ascmhl/" + ascmhl.ChainFile, State: Resealed,
			Error: "the ASC MHL history dit wrote in the cloud: read back, its chain and the 1 manifests it lists agree (c4)"}}, got)
	require.Equal(t, map[string]int{"A001": 1, "A001/ascmhl": 1}, c.dirs)
	require.Empty(t, c.trees)

	c, got = &listCounter{fail: "A001/ascmhl"}, nil
	_, err = JobWith(context.Background(), e.cat, nil, j.ID, e.opts(c, func(r Result) { got = append(got, r) }))
	require.ErrorContains(t, err, "cannot list rclone:ditcloud:shots/new/A001/ascmhl: connection refused: the ASC MHL history there was not checked; run it again once the remote answers")
	require.Equal(t, []Result{{Card: "A001", Path: at + "clip.mov", State: summary.StateVerified}}, got)
	ks, err := e.cat.Cards(j.ID)
	require.NoError(t, err)
	require.Equal(t, summary.StateVerified, ks[0].State)
	require.Empty(t, ks[0].Error)
}

// What dit verify holds of a card in the cloud does not grow with the
// card: the live heap, sampled at each listing (after a GC), grows by
// about as much for a card of 3,000 files as for one of 300 (folders of
// 100), where a listing of the card's whole folder held an entry a file.
func TestVerifyCloudHeapFlat(t *testing.T) {
	if raceOn {
		t.Skip("the race detector's shadow memory is no measure of the heap")
	}
	e := newCloudEnv(t)
	// Every card's objects put on the server before it lists any (it
	// sees no folder made under it after).
	const n = 300
	jobs := map[int]*catalog.Job{}
	for _, m := range []int{2 * n, n, 10 * n} {
		jobs[m], _ = e.job(t, fmt.Sprintf("n%d", m), "none", func(put func(string, []byte)) {
			for i := range m {
				put(fmt.Sprintf("C%03d/F%06d.dng", i/100, i), fmt.Appendf(nil, "frame %d of %d", i, m))
			}
		})
	}
	grow := func(n int) uint64 {
		j := jobs[n]
		var peak uint64
		c := &listCounter{sample: func() {
			var ms runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
		}}
		verified := 0
		base := liveHeap()
		ok, err := JobWith(context.Background(), e.cat, nil, j.ID, e.opts(c, func(r Result) {
			if r.State == summary.StateVerified {
				verified++
			}
		}))
		require.NoError(t, err)
		require.True(t, ok, "%d of %d verified", verified, n)
		require.Equal(t, n, verified)
		require.Len(t, c.dirs, n/100, "the card's folders")
		for dir, k := range c.dirs {
			require.Equal(t, 1, k, "%s: listed once", dir)
		}
		if peak < base {
			return 0
		}
		return peak - base
	}
	grow(2 * n) // the warm-up
	small := grow(n)
	big := grow(10 * n)
	perFile := float64(int64(big)-int64(small)) / float64(9*n)
	t.Logf("live heap grown: %d B for %d files, %d B for %d: %.0f B a file more", small, n, big, 10*n, perFile)
	// The card's whole listing held ~120 B a file; a few folders' hold
	// 0-1 (the samples, taken while the client works, move by ~100 kB).
	require.Less(t, perFile, 60.0, "bytes held a file of the card: a few folders' listings, not the card's whole")
}

// liveHeap is the live heap after a GC.
func liveHeap() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
