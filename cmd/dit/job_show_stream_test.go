package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload"
)

// showFixture records a cascade job: card A001 (files verified, one
// failed copy, skipped entries) with its second run (the card's files
// plus its hash list), and card B001 with no file yet.
func showFixture(t *testing.T, db string) int64 {
	cat, err := catalog.Open(db)
	require.NoError(t, err)
	defer cat.Close()
	host, _ := os.Hostname()
	j := &catalog.Job{Name: "Day01", State: catalog.JobDone, Host: host, Hashes: "md5,xxh64", VerifyMode: "dest",
		VerifyHashes: "fastest", Layout: "{job}/{card}", OnConflict: "fail", Started: time.Unix(1e9, 0), Finished: time.Unix(1e9+60, 0)}
	require.NoError(t, cat.CreateJob(j))
	d1 := &catalog.Dest{JobID: j.ID, Seq: 0, Path: "/raid", Hop: 1}
	d2 := &catalog.Dest{JobID: j.ID, Seq: 1, Path: "/shuttle", Hop: 2}
	require.NoError(t, cat.AddDest(d1))
	require.NoError(t, cat.AddDest(d2))
	a := &catalog.Card{JobID: j.ID, Seq: 0, Label: "A001", Path: "/media/A001", State: "verified", Files: 50, Hop: 1}
	require.NoError(t, cat.AddCard(a))
	b := &catalog.Card{JobID: j.ID, Seq: 1, Label: "B001", Path: "/media/B001", State: "pending", Hop: 1}
	require.NoError(t, cat.AddCard(b))
	h := &catalog.Card{JobID: j.ID, Seq: 2, Label: "A001", Path: "/raid/Day01/A001", State: "verified", Files: 51, Hop: 2, FromCard: a.ID}
	require.NoError(t, cat.AddCard(h))
	for i := 0; i < 50; i++ {
		f := &catalog.File{CardID: a.ID, Rel: fmt.Sprintf("CLIPS/A001C%03d.mov", i), Size: int64(1000 + i), Mtime: time.Unix(1e9, int64(i)), State: "verified"}
		f.Sums.Set(hashing.MD5, fmt.Sprintf("%032x", i))
		f.Sums.Set(hashing.XXH64, fmt.Sprintf("%016x", i))
		cat.PutFile(f)
		st, why := "verified", ""
		if i == 7 {
			st, why = "failed", "read back: <differs> & more"
		}
		cat.PutCopy(a.ID, f.Rel, &catalog.Copy{DestID: d1.ID, Path: "Day01/A001/" + f.Rel, State: st, VerifyAlgos: "xxh64", Error: why})
		f.CardID = h.ID
		cat.PutFile(f)
		cat.PutCopy(h.ID, f.Rel, &catalog.Copy{DestID: d2.ID, Path: "Day01/A001/" + f.Rel, State: "verified", VerifyAlgos: "xxh64"})
	}
	cat.PutFile(&catalog.File{CardID: h.ID, Rel: "ascmhl/0001_A001.mhl", Size: 10, State: "verified"})
	cat.PutCopy(h.ID, "ascmhl/0001_A001.mhl", &catalog.Copy{DestID: d2.ID, Path: "Day01/A001/ascmhl/0001_A001.mhl", State: "verified"})
	cat.PutSkipped(a.ID, catalog.Skip{Rel: ".DS_Store", Kind: "metadata", Reason: "macOS Finder metadata"})
	cat.PutSkipped(a.ID, catalog.Skip{Rel: "CLIPS/._A001C001.mov", Kind: "metadata", Reason: "macOS AppleDouble <resource fork> & more"})
	return j.ID
}

// referenceJobShowJSON is dit job show --json as it was built before it
// streamed: every file of the job read at once.
func referenceJobShowJSON(t *testing.T, db string, id int64) []byte {
	cat, err := catalog.OpenExisting(db)
	require.NoError(t, err)
	defer cat.Close()
	s, err := offload.LoadSummary(cat, id)
	require.NoError(t, err)
	rec, _ := cat.Job(id)
	cards, _ := cat.Cards(id)
	dests, _ := cat.Dests(id)
	destPath := map[int64]string{}
	for _, d := range dests {
		destPath[d.ID] = d.Path
	}
	type card struct {
		offload.CardSummary
		FileList []showFile     `json:"file_list"`
		SkipList []catalog.Skip `json:"skipped_entries"`
	}
	var out []card
	first := map[int64]int{}
	i := -1
	conv := func(cp catalog.Copy) showCopy {
		return showCopy{Dest: destPath[cp.DestID], Path: offload.DisplayPath(destPath[cp.DestID], cp.Path), State: cp.State, VerifiedBy: cp.VerifyAlgos, Error: cp.Error}
	}
	for _, k := range cards {
		if k.Hop == 2 {
			continue
		}
		i++
		first[k.ID] = i
		files, _ := cat.Files(k.ID)
		skips, _ := cat.Skipped(k.ID)
		sc := card{CardSummary: s.Cards[i], SkipList: skips}
		for _, f := range files {
			sf := showFile{Path: f.Rel, Size: f.Size, Mtime: jsonTime(f.Mtime), State: f.State, Error: f.Error, Hashes: map[string]string{}}
			for _, a := range f.Sums.Algos() {
				sf.Hashes[a.String()] = f.Sums.Get(a)
			}
			for _, cp := range f.Copies {
				sf.Copies = append(sf.Copies, conv(cp))
			}
			sc.FileList = append(sc.FileList, sf)
		}
		out = append(out, sc)
	}
	for _, h := range cards {
		if h.Hop != 2 {
			continue
		}
		files, _ := cat.Files(h.ID)
		at := map[string]int{}
		for n, f := range out[first[h.FromCard]].FileList {
			at[f.Path] = n
		}
		for _, f := range files {
			if n, ok := at[f.Rel]; ok {
				for _, cp := range f.Copies {
					out[first[h.FromCard]].FileList[n].Copies = append(out[first[h.FromCard]].FileList[n].Copies, conv(cp))
				}
			}
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	require.NoError(t, enc.Encode(struct {
		*offload.Summary
		MHL   string `json:"mhl"`
		Cards []card `json:"cards"`
	}{s, jobMHL(rec), out}))
	return buf.Bytes()
}

// dit job show --json, written file by file as the files are read, is
// byte for byte what encoding the whole job at once gives: a cascade's
// second-run copies with their files, a card without files, skipped
// entries, characters JSON escapes.
func TestJobShowStreamsTheSameJSON(t *testing.T) {
	db := filepath.Join(t.TempDir(), "c.db")
	id := showFixture(t, db)
	want := referenceJobShowJSON(t, db, id)
	var got bytes.Buffer
	g := &GlobalOptions{DB: db, stdout: &got, stderr: os.Stderr}
	require.NoError(t, runJobShow(JobShowOptions{JSON: true}, g, id))
	require.Equal(t, string(want), got.String())
	require.Contains(t, got.String(), `"file_list": null`)
	require.Contains(t, got.String(), `\u003cdiffers\u003e \u0026 more`)
	require.Contains(t, got.String(), `"dest": "/shuttle"`)
	require.Contains(t, got.String(), `"Reason": "macOS AppleDouble \u003cresource fork\u003e \u0026 more"`)
	require.Contains(t, got.String(), `"skipped_entries": null`, "B001: none")
}

// dit job show lists a card's skipped entries under its files, by path,
// read one by one as they are written.
func TestJobShowTextListsSkippedEntries(t *testing.T) {
	db := filepath.Join(t.TempDir(), "c.db")
	id := showFixture(t, db)
	var got bytes.Buffer
	g := &GlobalOptions{DB: db, stdout: &got, stderr: os.Stderr}
	require.NoError(t, runJobShow(JobShowOptions{}, g, id))
	require.Contains(t, got.String(), "\n  skipped .DS_Store: macOS Finder metadata (metadata)\n"+
		"  skipped CLIPS/._A001C001.mov: macOS AppleDouble <resource fork> & more (metadata)\n\nB001 (/media/B001)\n")
}
