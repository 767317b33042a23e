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
	files := []*catalog.File{
		{Rel: "A001C001.mov", State: "verified", Sums: ok},
		{Rel: "A001C002.mov", State: "failed", Sums: ok}, // withdrawn since
		{Rel: "A001C003.mov", State: "failed"},           // never read whole
		{Rel: "A001C004.mov", State: "copied", Sums: ok}, // not verified
	}
	e := Expected(files)
	require.Len(t, e, 2)
	for _, rel := range []string{"A001C001.mov", "A001C002.mov"} {
		got, has := e.Of(rel)
		require.True(t, has, rel)
		require.Equal(t, ok, got)
	}
	_, has := e.Of("A001C003.mov")
	require.False(t, has)
}

// A file read from the first copy with another hash than the card gave
// fails with words naming both hashes and saying the card is not safe;
// the first copy's withdrawn verdict names them too.
func TestCheckNamesBothHashes(t *testing.T) {
	card := hashing.Bytes(algos, []byte("the card's bytes"))
	copied := hashing.Bytes(algos, []byte("the card's byteZ"))
	e := Expect{"CLIPS/A001C001.mov": card}

	require.Nil(t, e.Check("CLIPS/A001C001.mov", algos, card), "the same bytes")
	require.Nil(t, e.Check("ascmhl/0001_CLIPS_2026-12-04_120000Z.mhl", algos, copied), "not one of the card's files")
	var none hashing.Sums
	require.Nil(t, e.Check("CLIPS/A001C001.mov", algos, none), "no hash known on both sides")

	m := e.Check("CLIPS/A001C001.mov", algos, copied)
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
	e := Expect{}
	for _, rel := range []string{"g", "a", "c", "b", "e", "f", "d"} {
		e[rel] = hashing.Sums{}
	}
	held := map[string]bool{"d": true}
	lost := e.Missing(func(rel string) bool { return held[rel] })
	require.Equal(t, []string{"a", "b", "c", "e", "f", "g"}, lost)
	msg := MissingError("/raid/day01/A001", lost)
	require.Contains(t, msg, "6 file(s) verified in the first run are missing from the first copy /raid/day01/A001: a, b, c, e, f, and 1 more")
	require.Contains(t, msg, "NOT safe to format")
	require.Empty(t, Expect{"a": {}}.Missing(func(string) bool { return true }))
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
	e := Expect{"CLIPS/A001C001.mov": {}, ".DS_Store": {}}
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
