package jobreport

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"html"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/units"
)

// The figures of a cascade as people read them, worked out here from the
// fixture's bytes, seconds and times, not copied from a rendering.

// wantTBH is bytes over seconds in TB/hour as the report prints it.
func wantTBH(bytes int64, seconds float64) string {
	return fmt.Sprintf("%.3f", float64(bytes)/1e12/(seconds/3600))
}

// wantTime is a time as the report prints it (UTC, like every other time
// of the report).
func wantTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05") + " UTC" }

// wantHMS is a duration as H:MM:SS.
func wantHMS(d time.Duration) string {
	s := int(d.Round(time.Second).Seconds())
	return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
}

// cardFigures are what one cascade row should read.
type cardFigures struct {
	label, free, safe, copyTBH, e2eTBH string
}

func cascadeFigures(t *testing.T, r *Report) []cardFigures {
	t.Helper()
	var out []cardFigures
	for _, c := range r.Cards {
		require.NotNil(t, c.Then, c.Label)
		f := cardFigures{label: c.Label, free: wantTime(c.FreeAt),
			copyTBH: wantTBH(c.Then.BytesCopied, c.Then.CopySeconds), e2eTBH: wantTBH(c.Then.BytesCopied, c.Then.ActiveSeconds)}
		// The fixture's figures match their definitions.
		require.Equal(t, f.copyTBH, fmt.Sprintf("%.3f", c.Then.CopyTBPerHour), c.Label)
		require.Equal(t, f.e2eTBH, fmt.Sprintf("%.3f", c.Then.EndToEndTBPerHour), c.Label)
		if c.SafeToFormat {
			f.safe = wantTime(c.SafeAt)
		}
		out = append(out, f)
	}
	return out
}

func TestCascadeFixture(t *testing.T) {
	r := cascadeReport()
	require.True(t, r.Cascade())
	require.False(t, resumedReport().Cascade())
	require.False(t, idleReport().Cascade())
	s := r.Cards[2]
	require.True(t, s.CardFree)
	require.False(t, s.SafeToFormat, "its second run failed")
	require.True(t, s.SafeAt.IsZero())
	// The job's figures are the first run's: bytes read from the cards.
	var fromCards int64
	for _, c := range r.Cards {
		fromCards += c.BytesCopied
	}
	require.Equal(t, fromCards, r.Totals.BytesCopied)
}

// pdfAllText is the PDF's text by pdftotext -raw, page by page.
func pdfAllText(t *testing.T, path string) []string {
	t.Helper()
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Skip("pdftotext not installed (Debian: apt-get install poppler-utils)")
	}
	out, err := exec.Command("pdftotext", "-raw", path, "-").Output()
	require.NoError(t, err)
	var pages []string
	for _, p := range strings.Split(string(out), "\f") {
		pages = append(pages, squash(p))
	}
	return pages
}

func TestCascadePDF(t *testing.T) {
	r := cascadeReport()
	figs := cascadeFigures(t, r)
	pages := pdfAllText(t, writePDF(t, r))
	p1 := pages[0]
	for _, want := range []string{
		"NOT VERIFIED: 1 of 3 cards NOT safe to format",
		"Cascade: first run (from the cards) to /Volumes/RAID_A; second run (from the first copy) to /Volumes/SHUTTLE_01, /Volumes/SHUTTLE_02",
		"First card free " + figs[2].free + "; 1 of 3 cards NOT safe to format",
		"SOUND_D16 96 3.20 GB 0.288 0.209 0.192 NOT safe: second run failed",
		"Cascade: card free, then safe to format",
	} {
		require.Contains(t, p1, want)
	}
	// One row per card: free, 2nd run copy and end to end TB/hour, safe.
	for _, f := range figs {
		safe := f.safe
		if safe == "" {
			safe = "NOT safe to format: second run failed"
		}
		require.Contains(t, p1, strings.Join([]string{f.label, f.free, f.copyTBH, f.e2eTBH, safe}, " "))
	}
	require.NotContains(t, p1, "last card safe to format 2026", "not every card is safe")
	// The Cards table's end to end is what its note says: a card's own
	// (its bytes over the time it was being copied or verified: the
	// model's card TBPerHour), the job's in the All cards row (over the
	// time the job ran, second runs included).
	for _, c := range r.Cards {
		require.Contains(t, p1, strings.Join([]string{c.Label, thousands(c.Files), units.FormatBytes(c.Bytes), wantTBH(c.BytesCopied, c.CopySeconds),
			wantTBH(c.BytesVerified, c.VerifySeconds), wantTBH(c.BytesCopied, c.ActiveSeconds)}, " "))
		require.Equal(t, wantTBH(c.BytesCopied, c.ActiveSeconds), tbhNum(c.TBPerHour), c.Label)
	}
	tt := r.Totals
	require.Contains(t, p1, strings.Join([]string{"All cards", thousands(tt.Files), units.FormatBytes(tt.Bytes), tbhNum(tt.CopyTBPerHour),
		tbhNum(tt.VerifyTBPerHour), wantTBH(tt.BytesCopied, tt.ActiveSeconds)}, " "))
	require.Contains(t, p1, "end to end: a card's bytes over the time it was read or verified, all cards' over the time the job ran, second runs included (pauses left out).")

	// The job's page marks the second run's destinations.
	require.Contains(t, pages[1], "/Volumes/RAID_A 1st 1,609")
	require.Contains(t, pages[1], "/Volumes/SHUTTLE_01 2nd 1,609")
	require.Contains(t, pages[1], "/Volumes/SHUTTLE_02 2nd 1,608 0 1")

	// The card pages.
	for i, f := range figs {
		c := r.Cards[i]
		p := pages[2+i]
		require.Contains(t, p, "Card "+f.label)
		require.Contains(t, p, "Card free "+f.free)
		require.Contains(t, p, "2nd run from "+c.Then.Source)
		moved := units.FormatBytes(c.Then.BytesCopied)
		require.Contains(t, p, fmt.Sprintf("2nd run (reading the first copy) %s %s %s", moved,
			wantHMS(time.Duration(c.Then.CopySeconds)*time.Second), f.copyTBH))
		require.Contains(t, p, fmt.Sprintf("2nd run end to end %s %s %s", moved,
			wantHMS(time.Duration(c.Then.ActiveSeconds)*time.Second), f.e2eTBH))
		if f.safe != "" {
			require.Contains(t, p, "Safe to format "+f.safe)
		} else {
			require.Contains(t, p, "Safe to format NOT safe to format: second run failed")
			// The verdict's clock time (the summary's local time) reads
			// as every other time of the report.
			require.Contains(t, p, "Second run FAILED (card free since "+f.free+"): NOT safe to format: keep the card")
			require.Contains(t, p, "Day16/T001_01.WAV (2nd run): /Volumes/SHUTTLE_02: read-back: xxh64 differs")
		}
	}
}

// TestCascadeAllSafe: when every card is safe to format, the summary
// gives the time from the first card free to the last card safe.
func TestCascadeAllSafe(t *testing.T) {
	r := cascadeReport()
	s := &r.Cards[2]
	s.SafeToFormat, s.SafeAt, s.Verdict, s.Failures = true, s.Then.DoneAt, "Verified: safe to format", []Failure{}
	s.Then.State, s.Then.Failed = "verified", 0
	r.Totals.SafeToFormat, r.Totals.Verified, r.Totals.Failed = 3, true, 0

	firstFree, lastSafe := r.Cards[0].FreeAt, r.Cards[0].SafeAt
	for _, c := range r.Cards {
		if c.FreeAt.Before(firstFree) {
			firstFree = c.FreeAt
		}
		if c.SafeAt.After(lastSafe) {
			lastSafe = c.SafeAt
		}
	}
	want := fmt.Sprintf("First card free %s, last card safe to format %s: %s from the first card free to the last card safe to format",
		wantTime(firstFree), wantTime(lastSafe), wantHMS(lastSafe.Sub(firstFree)))
	require.Equal(t, "0:50:40", wantHMS(lastSafe.Sub(firstFree)), "SOUND_D16 free at 0:02:00, B001 safe at 0:52:40")

	pages := pdfAllText(t, writePDF(t, r))
	require.Contains(t, pages[0], "VERIFIED: all 3 cards safe to format")
	require.Contains(t, pages[0], want)

	var b bytes.Buffer
	require.NoError(t, r.WriteHTML(&b))
	require.Contains(t, b.String(), "<p>"+want+"</p>")
}

func TestCascadeHTML(t *testing.T) {
	r := cascadeReport()
	figs := cascadeFigures(t, r)
	var b bytes.Buffer
	require.NoError(t, r.WriteHTML(&b))
	h := b.String()
	require.Contains(t, h, `<p class="status on">Cascade: first run (from the cards) to /Volumes/RAID_A; second run (from the first copy) to /Volumes/SHUTTLE_01, /Volumes/SHUTTLE_02</p>`)
	for i, f := range figs {
		c := r.Cards[i]
		safe := `<td class="safe">` + f.safe + `</td>`
		if f.safe == "" {
			safe = `<td class="notsafe">NOT safe to format: second run failed</td>`
		}
		row := fmt.Sprintf(`<tr><td><a href="#card-%d">%s</a></td><td>%s</td><td>%s</td><td class="num">%s</td><td class="num">%s</td>%s</tr>`,
			i, f.label, f.free, c.Then.Source, f.copyTBH, f.e2eTBH, safe)
		require.Contains(t, h, row)
		require.Contains(t, h, `<tr><th>Card free</th><td>`+f.free+`</td></tr>`)
	}
	require.Contains(t, h, `<tr><td>/Volumes/SHUTTLE_02</td><td>2nd</td><td class="num">1,608</td>`)
	require.Contains(t, h, `<tr><td>/Volumes/SHUTTLE_02/Day 16 Second Unit/SOUND_D16</td><td>2nd</td><td class="num">95</td>`)
	require.Contains(t, h, "Second run FAILED (card free since "+figs[2].free+"): NOT safe to format: keep the card")
	require.NotContains(t, h, "keep the card (")
	require.Contains(t, html.UnescapeString(h), "end to end: a card's bytes over the time it was read or verified, all cards' over the time the job ran, second runs included (pauses left out).")

	// Without a cascade, none of it.
	b.Reset()
	require.NoError(t, resumedReport().WriteHTML(&b))
	for _, no := range []string{"Cascade", "2nd run", "Card free", "<th>Run</th>"} {
		require.NotContains(t, b.String(), no)
	}
}

func TestCascadeCSV(t *testing.T) {
	r := cascadeReport()
	figs := cascadeFigures(t, r)
	var b bytes.Buffer
	require.NoError(t, r.WriteCSV(&b))
	golden(t, "cascade.csv", b.Bytes())

	cr := csv.NewReader(bytes.NewReader(b.Bytes()))
	all, err := cr.ReadAll()
	require.NoError(t, err)
	head := all[3]
	require.Equal(t, []string{"card_free_at", "safe_to_format_at", "second_run_copy_tb_per_hour", "second_run_tb_per_hour"}, head[len(head)-4:],
		"the cascade's columns come last")
	require.Equal(t, []string{"# dest3", "/Volumes/SHUTTLE_02"}, all[2][:2])
	require.Equal(t, "2nd run", all[2][head2col(head, "state")])
	require.Equal(t, "1st run", all[0][head2col(head, "state")])
	seen := map[string]bool{}
	for _, row := range all[4:] {
		i := map[string]int{"A001": 0, "B001": 1, "SOUND_D16": 2}[row[0]]
		f, c := figs[i], r.Cards[i]
		require.Equal(t, c.FreeAt.UTC().Format(time.RFC3339), row[head2col(head, "card_free_at")])
		safe := ""
		if f.safe != "" {
			safe = c.SafeAt.UTC().Format(time.RFC3339)
		}
		require.Equal(t, safe, row[head2col(head, "safe_to_format_at")], "%s: empty when NOT safe to format", f.label)
		require.Equal(t, f.copyTBH, row[head2col(head, "second_run_copy_tb_per_hour")])
		require.Equal(t, f.e2eTBH, row[head2col(head, "second_run_tb_per_hour")])
		seen[row[0]] = true
	}
	require.Len(t, seen, 3)
	require.Empty(t, all[len(all)-1][head2col(head, "safe_to_format_at")], "SOUND_D16's second run failed")
}

// cascadeFixture is a finished cascade in a fresh catalog: card A001
// copied to /mnt/raid (first run, 0 to 600 s, free at 620 s), then its
// copy there to /mnt/shuttle (second run, 700 to 1000 s, safe at 1030 s).
func cascadeFixture(t *testing.T) (*catalog.Catalog, int64) {
	t.Helper()
	cat, err := catalog.Open(filepath.Join(t.TempDir(), "catalog.db"))
	require.NoError(t, err)
	t.Cleanup(func() { cat.Close() })
	j := &catalog.Job{Name: "Cascade", State: catalog.JobRunning, Host: "dit-test-host", ToolVersion: "1.0.0-test",
		Hashes: "xxh64", VerifyMode: "dest", VerifyHashes: "fastest", Layout: "{job}/{card}", OnConflict: "fail", Started: t0}
	require.NoError(t, cat.CreateJob(j))
	raid := &catalog.Dest{JobID: j.ID, Seq: 0, Path: "/mnt/raid"}
	shuttle := &catalog.Dest{JobID: j.ID, Seq: 1, Path: "/mnt/shuttle", Hop: 2}
	require.NoError(t, cat.AddDest(raid))
	require.NoError(t, cat.AddDest(shuttle))
	sums := hashing.Bytes([]hashing.Algo{hashing.XXH64}, []byte("clip"))
	a := &catalog.Card{JobID: j.ID, Seq: 0, Label: "A001", Path: "/media/A001", Bytes: 60e9, Files: 1, State: "pending"}
	require.NoError(t, cat.AddCard(a))
	a.State, a.CopyStarted, a.CopyFinished, a.VerifyStarted, a.VerifyFinished, a.DoneAt = "verified", at(0), at(600), at(10), at(610), at(620)
	cat.UpdateCard(a)
	h := &catalog.Card{JobID: j.ID, Seq: 1, Label: "A001", Path: "/mnt/raid/Cascade/A001", Bytes: 60e9, Files: 1, State: "pending",
		Hop: 2, FromCard: a.ID}
	require.NoError(t, cat.AddCard(h))
	h.State, h.CopyStarted, h.CopyFinished, h.VerifyStarted, h.VerifyFinished, h.DoneAt = "verified", at(700), at(1000), at(710), at(1020), at(1030)
	cat.UpdateCard(h)
	for _, k := range []*catalog.Card{a, h} {
		cat.PutFile(&catalog.File{CardID: k.ID, Rel: "clip.mov", Size: 60e9, Mtime: t0, State: "verified", Sums: sums})
	}
	cat.PutCopy(a.ID, "clip.mov", &catalog.Copy{DestID: raid.ID, Path: "x/clip.mov", State: "verified", Written: true, VerifyAlgos: "xxh64", VerifiedAt: at(610)})
	cat.PutCopy(h.ID, "clip.mov", &catalog.Copy{DestID: shuttle.ID, Path: "y/clip.mov", State: "verified", Written: true, VerifyAlgos: "xxh64", VerifiedAt: at(1020)})
	// Samples every 60 s: the card read at 100 MB/s for 600 s, the first
	// copy at 200 MB/s for 300 s; each read back in the minute after.
	for i := 0; i < 10; i++ {
		cat.PutSample(j.ID, catalog.Sample{CardID: a.ID, T: at(float64(60 * (i + 1))), Rate: 100e6, Phase: "copy", Seconds: 60})
		cat.PutSample(j.ID, catalog.Sample{CardID: a.ID, T: at(float64(10 + 60*(i+1))), Rate: 100e6, Phase: "verify", Seconds: 60})
	}
	for i := 0; i < 5; i++ {
		cat.PutSample(j.ID, catalog.Sample{CardID: h.ID, T: at(float64(700 + 60*(i+1))), Rate: 200e6, Phase: "copy", Seconds: 60})
		cat.PutSample(j.ID, catalog.Sample{CardID: h.ID, T: at(float64(720 + 60*(i+1))), Rate: 200e6, Phase: "verify", Seconds: 60})
	}
	run, err := cat.StartRun(j.ID, at(0))
	require.NoError(t, err)
	require.NoError(t, cat.EndRun(j.ID, run, at(1040)))
	require.NoError(t, cat.Flush())
	require.NoError(t, cat.SetJobState(j.ID, catalog.JobDone, at(1040), ""))
	return cat, j.ID
}

// TestCascadeFromCatalog: a cascade built from the catalog reads as the
// hand-built fixture does.
func TestCascadeFromCatalog(t *testing.T) {
	cat, id := cascadeFixture(t)
	r, err := Build(cat, id, Options{Now: func() time.Time { return generated }})
	require.NoError(t, err)
	require.True(t, r.Cascade())
	require.Equal(t, []int{0, 2}, []int{r.Destinations[0].Run, r.Destinations[1].Run})
	require.Len(t, r.Cards, 1, "the second run goes with its card")
	c := r.Cards[0]
	require.True(t, c.CardFree)
	require.True(t, c.SafeToFormat)
	require.Equal(t, at(620), c.FreeAt.UTC())
	require.Equal(t, at(1030), c.SafeAt.UTC())
	require.NotNil(t, c.Then)
	require.Equal(t, []int{0, 2}, []int{c.Destinations[0].Run, c.Destinations[1].Run})
	// The second run read 5 x 60 s at 200 MB/s = 60 GB in 300 s; it was
	// busy from 700 to 1060 s (its last read-back sample).
	require.Equal(t, int64(60e9), c.Then.BytesCopied)
	require.Equal(t, 300.0, c.Then.CopySeconds)
	require.Equal(t, wantTBH(60e9, 300), fmt.Sprintf("%.3f", c.Then.CopyTBPerHour))
	require.Equal(t, wantTBH(60e9, c.Then.ActiveSeconds), fmt.Sprintf("%.3f", c.Then.EndToEndTBPerHour))
	// The job's bytes are the card's: 10 x 60 s at 100 MB/s.
	require.Equal(t, int64(60e9), r.Totals.BytesCopied)

	var b bytes.Buffer
	require.NoError(t, r.WriteHTML(&b))
	require.Contains(t, b.String(), "<td>"+wantTime(at(620))+"</td><td>/mnt/raid/Cascade/A001</td><td class=\"num\">"+wantTBH(60e9, 300)+"</td>")
	require.Contains(t, b.String(), `<td class="safe">`+wantTime(at(1030))+`</td>`)
	require.Contains(t, b.String(), "<p>First card free "+wantTime(at(620))+", last card safe to format "+wantTime(at(1030))+": 0:06:50 from")
	b.Reset()
	require.NoError(t, r.WriteCSV(&b))
	all, err := csv.NewReader(bytes.NewReader(b.Bytes())).ReadAll()
	require.NoError(t, err)
	// Two destinations' rows, then the header, then the file.
	require.Equal(t, "verified", all[3][head2col(all[2], "dest2_state")], "the second run's copy on the shuttle")
	require.Equal(t, at(1030).Format(time.RFC3339), all[3][head2col(all[2], "safe_to_format_at")])
}
