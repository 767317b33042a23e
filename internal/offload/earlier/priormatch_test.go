package earlier

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/format/ascmhl"
	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/hashing"
)

var cardTime = time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)

// writeCard writes a card folder named label below dir with files (path:
// content), every file and folder at cardTime.
func writeCard(t testing.TB, dir, label string, files map[string]string) string {
	root := filepath.Join(dir, label)
	for rel, body := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
		require.NoError(t, os.Chtimes(p, cardTime, cardTime))
	}
	return root
}

// record is one file as recordEarlier writes it to the catalog: its row
// and its copy's (skip: no row at all).
type record struct {
	f    catalog.File
	cp   catalog.Copy
	skip bool
}

// recordEarlier records in cat a finished job ("day01", layout
// {job}/{card}, no hash lists) that copied and verified the card at card
// to destRoot: its copies are written there (day01/LABEL/path) and its
// rows are what an offload leaves, each first given to edit (nil: none).
// It returns the job's id.
func recordEarlier(t testing.TB, cat *catalog.Catalog, card, destRoot string, edit func(*record)) int64 {
	sc, _, err := ScanCard(fsys.OS{}, card, false)
	require.NoError(t, err)
	j := &catalog.Job{Name: "day01", State: catalog.JobRunning, VerifyMode: "full", Layout: "{job}/{card}", MHL: "none", Started: cardTime}
	require.NoError(t, cat.CreateJob(j))
	d := &catalog.Dest{JobID: j.ID, Seq: 0, Path: destRoot}
	require.NoError(t, cat.AddDest(d))
	k := &catalog.Card{JobID: j.ID, Label: sc.Label, Path: card, Files: sc.Files.Len(), Bytes: sc.Bytes, State: "verified"}
	require.NoError(t, cat.AddCard(k))
	for _, e := range sc.Files.All() {
		body, err := os.ReadFile(filepath.Join(card, filepath.FromSlash(e.Rel)))
		require.NoError(t, err)
		cp := filepath.Join(destRoot, "day01", sc.Label, filepath.FromSlash(e.Rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(cp), 0o755))
		require.NoError(t, os.WriteFile(cp, body, 0o644))
		r := &record{
			f:  catalog.File{CardID: k.ID, Rel: e.Rel, Size: e.Size, Mtime: e.Mtime, State: "verified", Sums: hashing.Bytes([]hashing.Algo{hashing.XXH64}, body)},
			cp: catalog.Copy{DestID: d.ID, Path: "day01/" + sc.Label + "/" + e.Rel, State: "verified", Written: true, VerifyAlgos: "xxh64", VerifiedAt: cardTime},
		}
		if edit != nil {
			edit(r)
		}
		if !r.skip {
			cat.PutFile(&r.f)
			cat.PutCopy(k.ID, r.f.Rel, &r.cp)
		}
	}
	k.VerifyFinished = cardTime.Add(time.Hour)
	cat.UpdateCard(k)
	require.NoError(t, cat.SetJobState(j.ID, catalog.JobDone, cardTime.Add(time.Hour), ""))
	require.NoError(t, cat.Flush())
	return j.ID
}

// cardsDest is the id of job's destination.
func cardsDest(t *testing.T, cat *catalog.Catalog, job int64) int64 {
	ds, err := cat.Dests(job)
	require.NoError(t, err)
	return ds[0].ID
}

func openCatalog(t testing.TB) *catalog.Catalog {
	cat, err := catalog.Open(filepath.Join(t.TempDir(), "catalog.db"))
	require.NoError(t, err)
	t.Cleanup(func() { cat.Close() })
	return cat
}

// A card's scan is not in byte order here ("CLIP/C001.mov" is found
// before "CLIP-2.txt"), and the catalog's records are: each record is
// still found as the card's.
var clipCard = map[string]string{"CLIP/C001.mov": "clip one", "CLIP/C002.mov": "clip two", "CLIP-2.txt": "notes", "CLIP.xml": "<x/>"}

// The verdict on a card offered again: found only when every file of the
// card has a record with its size and time, verified with a verified copy
// on the destination, and no other record is there; a history the card
// carries must agree with the recorded hashes.
func TestPriorVerdict(t *testing.T) {
	for _, tc := range []struct {
		name   string
		edit   func(*record)
		change func(t *testing.T, card string, cat *catalog.Catalog, job int64)
		found  bool
	}{
		{name: "every file verified", found: true},
		{name: "a file with no record", edit: func(r *record) { r.skip = r.f.Rel == "CLIP-2.txt" }},
		{name: "a record of no file", edit: func(r *record) {
			if r.f.Rel == "CLIP.xml" { // the card's bytes kept: another path of the same size
				r.f.Rel, r.cp.Path = "CLIP.xmm", "day01/A001/CLIP.xmm"
			}
		}},
		{name: "a record too many", change: func(t *testing.T, _ string, cat *catalog.Catalog, job int64) {
			cards, err := cat.Cards(job)
			require.NoError(t, err)
			k := cards[0].ID
			cat.PutFile(&catalog.File{CardID: k, Rel: "CLIP/C003.mov", Mtime: cardTime, State: "verified"})
			cat.PutCopy(k, "CLIP/C003.mov", &catalog.Copy{DestID: cardsDest(t, cat, job), Path: "day01/A001/CLIP/C003.mov", State: "verified"})
			require.NoError(t, cat.Flush())
		}},
		{name: "a copy not verified", edit: func(r *record) {
			if r.f.Rel == "CLIP/C002.mov" {
				r.cp.State = "copied"
			}
		}},
		{name: "a file not verified", edit: func(r *record) {
			if r.f.Rel == "CLIP/C001.mov" {
				r.f.State = "failed"
			}
		}},
		{name: "a changed time", change: func(t *testing.T, card string, _ *catalog.Catalog, _ int64) {
			later := cardTime.Add(time.Second)
			require.NoError(t, os.Chtimes(filepath.Join(card, "CLIP", "C002.mov"), later, later))
		}},
		{name: "changed sizes, the same bytes in all", change: func(t *testing.T, card string, _ *catalog.Catalog, _ int64) {
			for rel, body := range map[string]string{"CLIP/C001.mov": "clip one!", "CLIP/C002.mov": "clip tw"} {
				p := filepath.Join(card, filepath.FromSlash(rel))
				require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
				require.NoError(t, os.Chtimes(p, cardTime, cardTime))
			}
		}},
		{name: "a copy gone from the destination", change: func(t *testing.T, card string, _ *catalog.Catalog, _ int64) {
			require.NoError(t, os.Remove(filepath.Join(filepath.Dir(filepath.Dir(card)), "raid", "day01", "A001", "CLIP.xml")))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			cat := openCatalog(t)
			card := writeCard(t, filepath.Join(dir, "cards"), "A001", clipCard)
			raid := filepath.Join(dir, "raid")
			job := recordEarlier(t, cat, card, raid, tc.edit)
			if tc.change != nil {
				tc.change(t, card, cat, job)
			}
			priors, _, err := FindPrior(context.Background(), cat, nil, []string{card}, false, nil, raid)
			require.NoError(t, err)
			if !tc.found {
				require.Nil(t, priors[0])
				return
			}
			p := priors[0]
			require.NotNil(t, p)
			require.Equal(t, job, p.JobID)
			require.True(t, p.Done())
			require.Equal(t, []string{raid}, p.Covered)
			require.Equal(t, []string{filepath.Join(raid, "day01", "A001")}, p.Dests)
			require.Nil(t, p.copies, "no file's copy is kept with the result")
		})
	}
}

// A card carrying an ASC MHL history is the earlier one only while the
// hashes the catalog recorded agree with those its history lists.
func TestPriorVerdictWithCardHistory(t *testing.T) {
	for _, differ := range []bool{false, true} {
		dir := t.TempDir()
		cat := openCatalog(t)
		card := writeCard(t, filepath.Join(dir, "cards"), "A001", clipCard)
		st, err := ascmhl.OpenOSStore(card)
		require.NoError(t, err)
		v := hashing.Bytes([]hashing.Algo{hashing.XXH64}, []byte("<x/>")).Get(hashing.XXH64)
		m := &ascmhl.Manifest{Created: cardTime, Host: "h", Tool: "t", Process: ascmhl.ProcessInPlace,
			Files: []ascmhl.File{{Path: "CLIP.xml", Size: 4, Hashes: []ascmhl.Hash{{Algo: hashing.XXH64, Value: v, Action: ascmhl.Original}}}}}
		_, err = ascmhl.Append(st, nil, m, "A001")
		require.NoError(t, err)
		st.Close()
		raid := filepath.Join(dir, "raid")
		recordEarlier(t, cat, card, raid, func(r *record) {
			if differ && r.f.Rel == "CLIP.xml" {
				r.f.Sums.Set(hashing.XXH64, "0000000000000000")
			}
		})
		priors, hist, err := FindPrior(context.Background(), cat, nil, []string{card}, false, nil, raid)
		require.NoError(t, err)
		require.Len(t, hist, 1)
		if differ {
			require.Nil(t, priors[0], "the catalog recorded other content for CLIP.xml than the card's history")
		} else {
			require.NotNil(t, priors[0])
			require.True(t, priors[0].Done())
		}
	}
}

// A copy an earlier job put under another name (--on-conflict rename)
// is looked for where it is: gone from there, the card's copy is not
// whole, whatever is at its own name.
func TestPriorRenamedCopy(t *testing.T) {
	dir := t.TempDir()
	cat := openCatalog(t)
	card := writeCard(t, filepath.Join(dir, "cards"), "A001", clipCard)
	raid := filepath.Join(dir, "raid")
	renamed := filepath.Join(raid, "day01", "A001", "CLIP", "C001 (2).mov")
	recordEarlier(t, cat, card, raid, func(r *record) {
		if r.f.Rel == "CLIP/C001.mov" {
			r.cp.Path = "day01/A001/CLIP/C001 (2).mov"
		}
	})
	require.NoError(t, os.WriteFile(renamed, []byte("clip one"), 0o644))
	priors, _, err := FindPrior(context.Background(), cat, nil, []string{card}, false, nil, raid)
	require.NoError(t, err)
	require.NotNil(t, priors[0])
	require.True(t, priors[0].Done())

	require.NoError(t, os.Remove(renamed))
	priors, _, err = FindPrior(context.Background(), cat, nil, []string{card}, false, nil, raid)
	require.NoError(t, err)
	require.Nil(t, priors[0], "the verified copy is gone; a file at the card's own name is not it")
}

// heapProbe is a file system that measures the live heap at the first
// stat of a copy below root (while FindPrior holds where the copies are).
type heapProbe struct {
	fsys.OS
	root   string
	once   sync.Once
	sample func()
}

func (h *heapProbe) Lstat(name string) (fs.FileInfo, error) {
	if strings.HasPrefix(name, h.root+string(filepath.Separator)) {
		h.once.Do(h.sample)
	}
	return h.OS.Lstat(name)
}

// Offering a card an earlier job offloaded holds no memory a file beyond
// a few bytes (the card's scan, a sort index): its records are walked, not
// held, and where its copies are is not a list of every file. The live
// heap is measured while the records are walked and while the copies are
// looked at, for a card of n and of 10 n files.
func TestPriorMemoryFlatInFiles(t *testing.T) {
	if raceOn {
		t.Skip("the race detector allocates on its own: go test without -race runs it")
	}
	n := 1000
	if testing.Short() {
		n = 300
	}
	peak := func(files int) uint64 {
		dir := t.TempDir()
		cat := openCatalog(t)
		body := map[string]string{"DCIM-index.txt": "index"} // the scan out of byte order: a sort index
		for i := range files {
			body[fmt.Sprintf("DCIM/100/F%07d.ARW", i)] = fmt.Sprintf("%016d", i)
		}
		card := writeCard(t, filepath.Join(dir, "cards"), "A001", body)
		raid := filepath.Join(dir, "raid")
		recordEarlier(t, cat, card, raid, nil)
		body = nil

		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		base, top := ms.HeapAlloc, ms.HeapAlloc
		sample := func() {
			runtime.GC()
			runtime.ReadMemStats(&ms)
			top = max(top, ms.HeapAlloc)
		}
		walked := 0
		recordHook = func(i int) {
			walked = i
			if i == (files+1)/2 || i == files+1 {
				sample()
			}
		}
		defer func() { recordHook = nil }()
		probe := &heapProbe{root: raid, sample: sample}
		priors, _, err := FindPrior(context.Background(), cat, probe, []string{card}, false, nil, raid)
		require.NoError(t, err)
		require.NotNil(t, priors[0])
		require.True(t, priors[0].Done())
		require.Equal(t, files+1, walked, "every record walked")
		return top - base
	}
	small, large := peak(n), peak(10*n)
	perFile := float64(int64(large)-int64(small)) / float64(9*n)
	t.Logf("live heap while offered: %d B at %d files, %d B at %d files: %.1f B a file", small, n, large, 10*n, perFile)
	require.Less(t, perFile, 40.0, "the memory of an offered card grows with its files")
}
