package cascade

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/hashing"
)

var algos = []hashing.Algo{hashing.XXH64, hashing.MD5}

// The second run expects the card's hashes of every file verified in
// the first run, and of every file read whole whose copy failed since;
// not of a file that never read whole, nor of one only copied.
func TestExpectedFromFirstRun(t *testing.T) {
	ok := hashing.Bytes(algos, []byte("clip"))
	cat, k := firstRun(t, []*catalog.File{
		{Rel: "A001C001.mov", State: "verified", Sums: ok},
		{Rel: "A001C002.mov", State: "failed", Sums: ok}, // withdrawn since
		{Rel: "A001C003.mov", State: "failed"},           // never read whole
		{Rel: "A001C004.mov", State: "copied", Sums: ok}, // not verified
	})
	e := Expected(cat, k.ID)
	for _, rel := range []string{"A001C001.mov", "A001C002.mov"} {
		got, has, err := e.Of(rel)
		require.NoError(t, err)
		require.True(t, has, rel)
		require.Equal(t, ok, got)
	}
	for _, rel := range []string{"A001C003.mov", "A001C004.mov", "A001C005.mov"} {
		_, has, err := e.Of(rel)
		require.NoError(t, err)
		require.False(t, has, rel)
	}
	lost, err := e.Missing(func(rel string) bool { return rel == "A001C001.mov" })
	require.NoError(t, err)
	require.Equal(t, []string{"A001C002.mov"}, lost)
}

// firstRun records a first run's card with files in a catalog file.
func firstRun(t *testing.T, files []*catalog.File) (*catalog.Catalog, *catalog.Card) {
	t.Helper()
	cat, err := catalog.Open(filepath.Join(t.TempDir(), "dit.db"))
	require.NoError(t, err)
	t.Cleanup(func() { cat.Close() })
	j := &catalog.Job{Name: "Day01", State: catalog.JobDone, Hashes: "xxh64,md5", VerifyMode: "dest", Layout: "{job}/{card}", OnConflict: "fail"}
	require.NoError(t, cat.CreateJob(j))
	k := &catalog.Card{JobID: j.ID, Label: "A001", Path: "/media/A001", State: "verified", Hop: 1}
	require.NoError(t, cat.AddCard(k))
	for _, f := range files {
		f.CardID = k.ID
		cat.PutFile(f)
	}
	require.NoError(t, cat.Flush())
	return cat, k
}

// A file read from the first copy with another hash than the card gave
// fails with words naming both hashes and saying the card is not safe;
// the first copy's withdrawn verdict names them too.
func TestCheckNamesBothHashes(t *testing.T) {
	card := hashing.Bytes(algos, []byte("the card's bytes"))
	copied := hashing.Bytes(algos, []byte("the card's byteZ"))
	e := Fixed(map[string]hashing.Sums{"CLIPS/A001C001.mov": card})
	check := func(rel string, sums hashing.Sums) *Mismatch {
		m, err := e.Check(rel, algos, sums)
		require.NoError(t, err)
		return m
	}
	require.Nil(t, check("CLIPS/A001C001.mov", card), "the same bytes")
	require.Nil(t, check("ascmhl/0001_CLIPS_2026-12-04_120000Z.mhl", copied), "not one of the card's files")
	var none hashing.Sums
	require.Nil(t, check("CLIPS/A001C001.mov", none), "no hash known on both sides")

	m := check("CLIPS/A001C001.mov", copied)
	require.NotNil(t, m)
	require.Equal(t, hashing.XXH64, m.Algo, "the job's first algorithm that differs")
	require.Equal(t, card.Get(hashing.XXH64), m.Card)
	require.Equal(t, copied.Get(hashing.XXH64), m.FirstCopy)

	msg := m.FileError("/raid/day01/A001/CLIPS/A001C001.mov", "/shuttle", 7)
	for _, w := range []string{card.Get(hashing.XXH64), copied.Get(hashing.XXH64), "first copy differs from the card",
		"/raid/day01/A001/CLIPS/A001C001.mov", "/shuttle", "NOT safe to format", "dit verify 7"} {
		require.Contains(t, msg, w)
	}
	up := Compare("CLIPS/A001C001.mov", algos, card, copied).UploadError("/raid/day01/A001/CLIPS/A001C001.mov", 7)
	require.Contains(t, up, "not uploaded")
	require.Contains(t, up, card.Get(hashing.XXH64)+" read from the card, "+copied.Get(hashing.XXH64)+" from the first copy")
	why := m.WithdrawnWhy("/raid/day01/A001/CLIPS/A001C001.mov")
	require.Contains(t, why, card.Get(hashing.XXH64)+" read from the card")
	require.Contains(t, why, copied.Get(hashing.XXH64)+" from the copy")
	require.Contains(t, why, "found by the second run")
}

// The files the first copy lost are listed sorted; the failure names the
// first five and counts the rest.
func TestMissing(t *testing.T) {
	m := map[string]hashing.Sums{}
	for _, rel := range []string{"g", "a", "c", "b", "e", "f", "d"} {
		m[rel] = hashing.Sums{}
	}
	held := map[string]bool{"d": true}
	lost, err := Fixed(m).Missing(func(rel string) bool { return held[rel] })
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b", "c", "e", "f", "g"}, lost)
	msg := MissingError("/raid/day01/A001", lost)
	require.Contains(t, msg, "6 file(s) verified in the first run are missing from the first copy /raid/day01/A001: a, b, c, e, f, and 1 more")
	require.Contains(t, msg, "NOT safe to format")
	none, err := Fixed(map[string]hashing.Sums{"a": {}}).Missing(func(string) bool { return true })
	require.NoError(t, err)
	require.Empty(t, none)
}

// A turn is held until it is handed on; a run whose context ends while
// it waits gets none; a nil gate never holds.
func TestTurns(t *testing.T) {
	g := NewTurns(1)
	release := g.Wait(context.Background())
	require.NotNil(t, release)
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	require.Nil(t, g.Wait(ended), "the one turn is taken")
	got := make(chan func(), 1)
	go func() { got <- g.Wait(context.Background()) }()
	release()
	second := <-got
	require.NotNil(t, second, "handed on")
	second()
	require.NotNil(t, (*Turns)(nil).Wait(context.Background()))
}

// Destinations recorded before hops were are the first run's.
func TestHops(t *testing.T) {
	dests := []*catalog.Dest{{Path: "/raid"}, {Path: "/shuttle", Hop: 2}, {Path: "/backup", Hop: 1}, {Path: "/lto", Hop: 2}}
	first, then := Split(dests)
	require.Equal(t, []string{"/raid", "/backup"}, first)
	require.Equal(t, []string{"/shuttle", "/lto"}, then)
	require.Equal(t, 1, dests[0].Run())
	require.Equal(t, 2, EventHop(&catalog.Card{Hop: 2}))
	require.Equal(t, 0, EventHop(&catalog.Card{Hop: 1}))
}

// The first copy is scanned with every file of the card kept whatever
// its name (an OS file the card gave), the card's name kept; a first
// copy that is not there does not read.
func TestScanFirstCopy(t *testing.T) {
	root := filepath.Join(t.TempDir(), "day01", "A001")
	require.NoError(t, os.MkdirAll(filepath.Join(root, "CLIPS"), 0o755))
	for rel, body := range map[string]string{"CLIPS/A001C001.mov": "clip", ".DS_Store": "meta", "._A001C001.mov": "apple double"} {
		require.NoError(t, os.WriteFile(filepath.Join(root, filepath.FromSlash(rel)), []byte(body), 0o644))
	}
	e := Fixed(map[string]hashing.Sums{"CLIPS/A001C001.mov": {}, ".DS_Store": {}})
	sc, err := ScanFirstCopy(fsys.OS{}, root, e, false, nil)
	require.NoError(t, err)
	require.Equal(t, "A001", sc.Label)
	var rels []string
	for _, ent := range sc.Files.All() {
		rels = append(rels, ent.Rel)
	}
	require.ElementsMatch(t, []string{"CLIPS/A001C001.mov", ".DS_Store"}, rels)

	_, err = ScanFirstCopy(fsys.OS{}, filepath.Join(root, "gone"), e, false, nil)
	require.Error(t, err)
	msg := UnreadableError("/raid/day01/A001", err, true)
	require.True(t, strings.HasPrefix(msg, "the first copy /raid/day01/A001 cannot be read: "), msg)
	require.True(t, strings.HasSuffix(msg, "NOT safe to format; if the card is still here, copy it again"), msg)
	require.NotContains(t, UnreadableError("x", errors.New("gone"), false), "if the card")
}

// The expectations are read a page of paths at a time, asked in any
// order (a scan's, where "a-b" comes after the folder "a"), never
// whole: every file gets its own hashes, a path of none has none, and a
// folder holding an expected OS file is kept. A catalog that cannot be
// read is an error, never "not one of the card's files".
func TestExpectPaged(t *testing.T) {
	old := expectPage
	expectPage = 3
	t.Cleanup(func() { expectPage = old })
	var files []*catalog.File
	want := map[string]hashing.Sums{}
	scanOrder := []string{"a/x", "a/y", "a-b", "é/ü 1.mov", "z/.hidden/f", "z/🎬 0001.dng", "z/🎬 0002.dng", "z/🎬 0003.dng", "z/🎬 0004.dng"}
	for i, rel := range scanOrder {
		s := hashing.Bytes(algos, []byte(rel))
		state := "verified"
		if i == 2 {
			state = "copied" // not verified: not expected
		} else {
			want[rel] = s
		}
		files = append(files, &catalog.File{Rel: rel, State: state, Sums: s, Size: int64(i)})
	}
	cat, k := firstRun(t, files)
	e := Expected(cat, k.ID)
	for _, rel := range append(scanOrder, "a", "b", "z/🎬 0005.dng") {
		got, ok, err := e.Of(rel)
		require.NoError(t, err)
		w, expected := want[rel]
		require.Equal(t, expected, ok, rel)
		require.Equal(t, w, got, rel)
	}
	require.True(t, e.Keeps("z/.hidden"), "a folder of a file the first run verified")
	require.True(t, e.Keeps("z"))
	require.False(t, e.Keeps("a-b"), "not verified in the first run")
	require.False(t, e.Keeps("q"))
	lost, err := e.Missing(func(rel string) bool { return rel != "z/🎬 0003.dng" })
	require.NoError(t, err)
	require.Equal(t, []string{"z/🎬 0003.dng"}, lost)

	require.NoError(t, cat.Close())
	_, err = Expected(cat, k.ID).Check("z/🎬 0001.dng", algos, want["z/🎬 0001.dng"])
	require.ErrorContains(t, err, "cannot read the card's hashes of the first run for z/🎬 0001.dng")
	_, err = e.Missing(func(string) bool { return true })
	require.ErrorContains(t, err, "cannot read the card's files of the first run")
}
