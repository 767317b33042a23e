package jobreport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/hashing"
)

// streamFixture is a finished job with Unicode names everywhere in a
// fresh catalog: card "A001 🎬" with 77 files, more than the HTML lists
// in the test (40), one failed copy and a skipped entry; card
// "東京 B002" with a few files whose names are in every script of
// unicodeNames, one not copied to the shuttle; cascade: a second run of
// B002 to a third destination (its hash list copied with it).
func streamFixture(t *testing.T, cascade bool) (*catalog.Catalog, int64) {
	t.Helper()
	cat, err := catalog.Open(filepath.Join(t.TempDir(), "catalog.db"))
	require.NoError(t, err)
	t.Cleanup(func() { cat.Close() })
	j := &catalog.Job{Name: unicodeNames[0] + " " + unicodeNames[1], State: catalog.JobRunning, Host: "dit-test-host",
		ToolVersion: "1.0.0-test", Hashes: "xxh64,md5", VerifyMode: "dest", VerifyHashes: "fastest", Layout: "{job}/{card}",
		OnConflict: "fail", Started: t0}
	require.NoError(t, cat.CreateJob(j))
	var dests []*catalog.Dest
	for i, p := range []string{"/Volumes/Raid 🎬", "/Volumes/" + unicodeNames[2]} {
		d := &catalog.Dest{JobID: j.ID, Seq: i, Path: p}
		require.NoError(t, cat.AddDest(d))
		dests = append(dests, d)
	}
	algos := []hashing.Algo{hashing.XXH64, hashing.MD5}
	mt := time.Date(2026, 11, 20, 8, 0, 0, 123456789, time.UTC)
	a := &catalog.Card{JobID: j.ID, Seq: 0, Label: "A001 🎬", Path: "/media/A001 🎬", State: "pending"}
	require.NoError(t, cat.AddCard(a))
	n := 77
	for i := 0; i < n; i++ {
		rel := fmt.Sprintf("DCIM/%s/A001C%04d_%s.mov", unicodeNames[i%len(unicodeNames)], i, unicodeNames[(i+3)%len(unicodeNames)])
		size := int64(1_000_000 + i*997)
		a.Bytes += size
		cat.PutFile(&catalog.File{CardID: a.ID, Rel: rel, Size: size, Mtime: mt.Add(time.Duration(i) * time.Second), State: "verified",
			Sums: hashing.Bytes(algos, []byte(rel))})
		for _, d := range dests {
			st, e := "verified", ""
			if i == 23 && d.Seq == 1 {
				st, e = "failed", "read-back: xxh64 differs"
			}
			cat.PutCopy(a.ID, rel, &catalog.Copy{DestID: d.ID, Path: "x/" + rel, State: st, Written: true, VerifyAlgos: "xxh64",
				VerifiedAt: at(float64(100 + i)), Error: e})
		}
	}
	a.Files = n
	a.State, a.CopyStarted, a.CopyFinished, a.VerifyStarted, a.VerifyFinished = "verified", at(0), at(1800), at(60), at(2100)
	cat.UpdateCard(a)
	cat.PutSkipped(a.ID, catalog.Skip{Rel: unicodeNames[7] + "/.DS_Store", Kind: "metadata", Reason: "macOS Finder metadata"})

	b := &catalog.Card{JobID: j.ID, Seq: 1, Label: "東京 B002", Path: "/media/" + unicodeNames[1], State: "pending"}
	require.NoError(t, cat.AddCard(b))
	for i, name := range unicodeNames {
		rel := name + "/" + unicodeNames[(i+1)%len(unicodeNames)] + ".wav"
		if i == 2 {
			rel = "#" + rel // a path that starts a CSV comment
		}
		size := int64(48_000 * (i + 1))
		b.Bytes += size
		cat.PutFile(&catalog.File{CardID: b.ID, Rel: rel, Size: size, Mtime: mt, State: "verified", Sums: hashing.Bytes(algos, []byte(rel))})
		for _, d := range dests {
			if i == 5 && d.Seq == 1 {
				continue // not copied there
			}
			cat.PutCopy(b.ID, rel, &catalog.Copy{DestID: d.ID, Path: "y/" + rel, State: "verified", VerifyAlgos: "xxh64", VerifiedAt: at(2000)})
		}
	}
	b.Files = len(unicodeNames)
	b.State, b.CopyStarted, b.CopyFinished, b.VerifyStarted, b.VerifyFinished = "verified", at(1800), at(1900), at(1810), at(2000)
	b.DoneAt = at(2010)
	cat.UpdateCard(b)
	if cascade {
		third := &catalog.Dest{JobID: j.ID, Seq: 2, Path: "/Volumes/" + unicodeNames[4], Hop: 2}
		require.NoError(t, cat.AddDest(third))
		h := &catalog.Card{JobID: j.ID, Seq: 2, Label: b.Label, Path: "/Volumes/Raid 🎬/x/" + b.Label, Bytes: b.Bytes, Files: b.Files,
			State: "pending", Hop: 2, FromCard: b.ID}
		require.NoError(t, cat.AddCard(h))
		files, err := cat.Files(b.ID)
		require.NoError(t, err)
		for _, f := range append(files, &catalog.File{Rel: "ascmhl/0001_B002.mhl", Size: 900, Mtime: mt, State: "verified"}) {
			f.CardID, f.Copies = h.ID, nil
			cat.PutFile(f)
			cat.PutCopy(h.ID, f.Rel, &catalog.Copy{DestID: third.ID, Path: "z/" + f.Rel, State: "verified", VerifyAlgos: "xxh64", VerifiedAt: at(2100)})
		}
		h.State, h.CopyStarted, h.CopyFinished, h.VerifyStarted, h.VerifyFinished, h.DoneAt = "verified", at(2020), at(2080), at(2030), at(2100), at(2110)
		cat.UpdateCard(h)
		cat.PutSample(j.ID, catalog.Sample{CardID: h.ID, T: at(2080), Rate: 5e6, Phase: "copy", Seconds: 60})
	}
	for i := 0; i < 30; i++ {
		cat.PutSample(j.ID, catalog.Sample{CardID: a.ID, T: at(float64(60 * (i + 1))), Rate: float64(100e6 + i*1e6), Phase: "copy", Seconds: 60})
		cat.PutSample(j.ID, catalog.Sample{CardID: a.ID, T: at(float64(120 + 60*i)), Rate: 200e6, Phase: "verify", Seconds: 60})
		for _, d := range dests {
			cat.PutSample(j.ID, catalog.Sample{CardID: a.ID, DestID: d.ID, T: at(float64(60 * (i + 1))), Rate: 100e6, Phase: "copy", Seconds: 60})
		}
	}
	cat.PutSample(j.ID, catalog.Sample{CardID: b.ID, T: at(1860), Rate: 3e6, Phase: "copy", Seconds: 60})
	run, err := cat.StartRun(j.ID, at(0))
	require.NoError(t, err)
	require.NoError(t, cat.EndRun(j.ID, run, at(2200)))
	require.NoError(t, cat.Flush())
	require.NoError(t, cat.SetJobState(j.ID, catalog.JobDone, at(2200), ""))
	return cat, j.ID
}

// streamFormats are the formats whose files testdata/stream holds, as
// the reports were written when each was built whole in memory.
var streamFormats = []string{"csv", "json", "html"}

// linesEqual compares want and got line by line (a CSV row, a JSON or
// HTML line), naming the first line that differs.
func linesEqual(t *testing.T, name string, want, got []byte) {
	t.Helper()
	wl, gl := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := 0; i < min(len(wl), len(gl)); i++ {
		require.Equal(t, wl[i], gl[i], "%s: line %d differs", name, i+1)
	}
	require.Equal(t, len(wl), len(gl), "%s: %d lines, want %d", name, len(gl), len(wl))
	require.Equal(t, string(want), string(got), name)
}

// The reports written as the rows are read from the catalog are the ones
// written when the job was read whole (testdata/stream, written by the
// dit before it streamed), line by line, for a job with Unicode names,
// with and without a cascade; the PDF's text holds every word it had.
// Changed since, on purpose: the JSON's cards carry the job model's
// "failed" and "tb_per_hour" (its fields in the model's order), and a
// verdict reads "NOT safe: failed: ..." where it read "fAILED".
func TestStreamedReportsAreThePrevious(t *testing.T) {
	for _, cascade := range []bool{false, true} {
		name := map[bool]string{false: "unicode", true: "unicode-cascade"}[cascade]
		t.Run(name, func(t *testing.T) {
			defer func(n int) { maxHTMLFiles = n }(maxHTMLFiles)
			maxHTMLFiles = 40 // card A001 has more, B002 fewer
			cat, id := streamFixture(t, cascade)
			r, err := Build(cat, id, Options{Now: func() time.Time { return generated }})
			require.NoError(t, err)
			for _, f := range streamFormats {
				var b bytes.Buffer
				require.NoError(t, r.Write(f, &b), f)
				p := filepath.Join("testdata", "stream", name+"."+f)
				if *update {
					require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
					require.NoError(t, os.WriteFile(p, b.Bytes(), 0o644))
				}
				want, err := os.ReadFile(p)
				require.NoError(t, err)
				linesEqual(t, p, want, b.Bytes())
			}
			if _, err := exec.LookPath("pdftotext"); err != nil {
				t.Skip("pdftotext not installed")
			}
			var b bytes.Buffer
			require.NoError(t, r.Write("pdf", &b))
			pdf := filepath.Join(t.TempDir(), "r.pdf")
			require.NoError(t, os.WriteFile(pdf, b.Bytes(), 0o644))
			got := strings.Join(pdfAllText(t, pdf), "\n")
			p := filepath.Join("testdata", "stream", name+".pdf.txt")
			if *update {
				require.NoError(t, os.WriteFile(p, []byte(got), 0o644))
			}
			want, err := os.ReadFile(p)
			require.NoError(t, err)
			// Every word of the previous PDF, in order: it may say more
			// (where the files are), not less.
			// (Page footers left out: a note more moves the page breaks.)
			pages := regexp.MustCompile(`dit job [0-9]+ [^·]*· report generated [^·]*· page [0-9]+ of [0-9]+`)
			gotWords := strings.Fields(pages.ReplaceAllString(got, ""))
			k := 0
			for i, w := range strings.Fields(pages.ReplaceAllString(string(want), "")) {
				for k < len(gotWords) && gotWords[k] != w {
					k++
				}
				require.Less(t, k, len(gotWords), "%s: word %d %q missing or out of order", p, i+1, w)
				k++
			}
			require.Contains(t, got, "This PDF lists no files: all 85 files, with their hashes and their state on every destination, are in the job's CSV and JSON reports")
		})
	}
}

// breakFile makes the catalog's row of card label's n-th file (in path
// order) unreadable: a modification time that is no number, as a damaged
// or hand-edited catalog may hold. It returns the file's path.
func breakFile(t *testing.T, cat *catalog.Catalog, jobID int64, label string, n int) string {
	t.Helper()
	cards, err := cat.Cards(jobID)
	require.NoError(t, err)
	for _, k := range cards {
		if k.Label != label || k.Hop == 2 {
			continue
		}
		files, err := cat.Files(k.ID)
		require.NoError(t, err)
		_, err = cat.Exec(`UPDATE files SET mtime_ns='not a time' WHERE card_id=? AND rel_path=?`, k.ID, files[n].Rel)
		require.NoError(t, err)
		return files[n].Rel
	}
	t.Fatalf("no card %s", label)
	return ""
}

// everyCopyVerified turns the fixture's failed and missing copies into
// verified ones: the counts then come from the catalog's totals, and
// Build reads no file.
func everyCopyVerified(t *testing.T, cat *catalog.Catalog) {
	t.Helper()
	_, err := cat.Exec(`UPDATE copies SET state='verified', error=''`)
	require.NoError(t, err)
	_, err = cat.Exec(`INSERT INTO copies (card_id, rel_path, dest_id, path, state, verify_algos)
		SELECT f.card_id, f.rel_path, d.id, 'y/' || f.rel_path, 'verified', 'xxh64' FROM files f, cards k, destinations d
		WHERE k.id=f.card_id AND d.job_id=k.job_id AND d.hop=1
		AND NOT EXISTS (SELECT 1 FROM copies c WHERE c.card_id=f.card_id AND c.rel_path=f.rel_path AND c.dest_id=d.id)`)
	require.NoError(t, err)
}

// A report whose catalog read fails midway is an error, never a file cut
// short that reads as complete: the CSV ends with a row that says
// INCOMPLETE, the JSON does not parse, the HTML says INCOMPLETE, and at
// the end of a job those formats are not written at all (the PDF, which
// lists no file, is).
func TestACatalogReadThatFailsMidwayIsAnError(t *testing.T) {
	cat, id := streamFixture(t, false)
	everyCopyVerified(t, cat)
	bad := breakFile(t, cat, id, "A001 🎬", 50)
	r, err := Build(cat, id, Options{Now: func() time.Time { return generated }})
	require.NoError(t, err, "the counts are the totals': Build reads no file")
	for _, f := range []string{"csv", "json", "html"} {
		var b bytes.Buffer
		err := r.Write(f, &b)
		require.Error(t, err, f)
		require.Contains(t, err.Error(), "reading the files of card A001 🎬 from the catalog", f)
		out := b.String()
		switch f {
		case "csv":
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			require.True(t, strings.HasPrefix(lines[len(lines)-1], "# INCOMPLETE: reading the files of card A001 🎬"), lines[len(lines)-1])
			require.Len(t, lines, 1+2+50+1, "the header, the destinations, the 50 files before the bad one, the last row")
			require.NotContains(t, out, bad)
		case "json":
			require.False(t, json.Valid(b.Bytes()), "a JSON cut short must not parse")
		case "html":
			require.Contains(t, out, "INCOMPLETE REPORT: reading the files of card A001 🎬")
		}
	}

	r.Job.Layout = "{job}/{card}"
	dest := t.TempDir()
	r.Destinations = r.Destinations[:1]
	r.Destinations[0].Path = dest
	written, err := r.WriteToDestinations(nil)
	require.Error(t, err)
	dir := filepath.Join(dest, filepath.FromSlash(Dir(r.Job.Layout, r.Job.Name, r.Job.Started, nil)))
	for _, f := range r.Outputs() {
		_, serr := os.Stat(filepath.Join(dir, r.OutputName(f)))
		if f == "pdf" {
			require.NoError(t, serr, f)
			continue
		}
		require.True(t, os.IsNotExist(serr), "%s: %v", f, serr)
		require.Contains(t, err.Error(), "the "+f+" report of job")
	}
	require.Len(t, written, 1)
}

// When the counts need the files (a copy missing or failed), a read that
// fails makes Build fail: no report at all.
func TestBuildFailsWhenItsCountingReadFails(t *testing.T) {
	cat, id := streamFixture(t, false)
	breakFile(t, cat, id, "A001 🎬", 10)
	_, err := Build(cat, id, Options{})
	require.Error(t, err)
}
