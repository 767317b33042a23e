package jobreport

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"html"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/hashing"
)

// manyFixture is a finished job of one card, A001, with failed files
// of its files and skipped entries beside them, each more than a report
// lists (MaxListed), in a fresh catalog.
func manyFixture(t *testing.T, failed, skipped int) (*catalog.Catalog, int64) {
	t.Helper()
	cat, err := catalog.Open(filepath.Join(t.TempDir(), "catalog.db"))
	require.NoError(t, err)
	t.Cleanup(func() { cat.Close() })
	j := &catalog.Job{Name: "Day 21", State: catalog.JobRunning, Host: "dit-test-host", ToolVersion: "1.0.0-test", Hashes: "xxh64",
		VerifyMode: "dest", VerifyHashes: "fastest", Layout: "{job}/{card}", OnConflict: "fail", Started: t0}
	require.NoError(t, cat.CreateJob(j))
	d := &catalog.Dest{JobID: j.ID, Path: "/Volumes/RAID"}
	require.NoError(t, cat.AddDest(d))
	k := &catalog.Card{JobID: j.ID, Label: "A001", Path: "/media/A001", State: "pending"}
	require.NoError(t, cat.AddCard(k))
	for i := range failed + 10 {
		rel := fmt.Sprintf("A001/A001_%07d.dng", i)
		st, e := "verified", ""
		if i >= 10 {
			st, e = "failed", "reading the card: input/output error"
		}
		cat.PutFile(&catalog.File{CardID: k.ID, Rel: rel, Size: 1000, Mtime: t0, State: st, Error: e, Sums: hashing.Bytes([]hashing.Algo{hashing.XXH64}, []byte(rel))})
		cat.PutCopy(k.ID, rel, &catalog.Copy{DestID: d.ID, Path: rel, State: st, Error: e})
		k.Files++
		k.Bytes += 1000
	}
	for i := range skipped {
		cat.PutSkipped(k.ID, catalog.Skip{Rel: fmt.Sprintf("A001/._A001_%07d.dng", i), Kind: "metadata", Reason: "macOS AppleDouble file"})
	}
	k.State, k.CopyStarted, k.CopyFinished = "failed", at(0), at(600)
	cat.UpdateCard(k)
	run, err := cat.StartRun(j.ID, at(0))
	require.NoError(t, err)
	require.NoError(t, cat.EndRun(j.ID, run, at(700)))
	require.NoError(t, cat.Flush())
	require.NoError(t, cat.SetJobState(j.ID, catalog.JobDone, at(700), ""))
	return cat, j.ID
}

// A card with more failed files and more skipped entries than a report
// lists: the report holds the first MaxListed of each and counts the
// others; its totals are the true counts; the JSON, the CSV, the HTML
// and the PDF each say how many more there are, with the command that
// lists them all.
func TestReportSaysWhatItLeavesOut(t *testing.T) {
	const failed, skipped = MaxListed + 321, MaxListed + 567
	cat, id := manyFixture(t, failed, skipped)
	r, err := Build(cat, id, Options{})
	require.NoError(t, err)
	c := r.Cards[0]
	require.Len(t, c.Skipped, MaxListed)
	require.Equal(t, 567, c.SkippedMore)
	require.Len(t, c.Failures, MaxListed)
	require.Equal(t, 321, c.FailuresMore)
	require.Equal(t, failed, c.Failed)
	require.Equal(t, skipped, r.Totals.Skipped)
	require.Equal(t, failed, r.Totals.Failed)
	moreSkipped := fmt.Sprintf("… and 567 more skipped, not listed here: dit job show %d lists them all", id)
	moreFailed := fmt.Sprintf("… and 321 more failed, not listed here: dit job show %d lists them all", id)

	var js bytes.Buffer
	require.NoError(t, r.WriteJSON(&js))
	var doc struct {
		Totals struct {
			Skipped int `json:"skipped"`
			Failed  int `json:"failed"`
		} `json:"totals"`
		Cards []struct {
			Skipped      []Skip    `json:"skipped"`
			Failures     []Failure `json:"failures"`
			SkippedMore  int       `json:"skipped_more"`
			FailuresMore int       `json:"failures_more"`
			NotListed    string    `json:"not_listed"`
		} `json:"cards"`
	}
	require.NoError(t, json.Unmarshal(js.Bytes(), &doc))
	require.Equal(t, skipped, doc.Totals.Skipped)
	require.Equal(t, failed, doc.Totals.Failed)
	jc := doc.Cards[0]
	require.Len(t, jc.Skipped, MaxListed)
	require.Len(t, jc.Failures, MaxListed)
	require.Equal(t, 567, jc.SkippedMore)
	require.Equal(t, 321, jc.FailuresMore)
	require.Equal(t, moreFailed+"; "+moreSkipped, jc.NotListed)

	var cb bytes.Buffer
	require.NoError(t, r.WriteCSV(&cb))
	cr := csv.NewReader(&cb)
	cr.FieldsPerRecord = -1
	rows, err := cr.ReadAll()
	require.NoError(t, err)
	skips, failedRows, notes := 0, 0, 0
	for _, row := range rows {
		switch {
		case row[4] == "skipped (metadata)":
			skips++
		case row[4] == "failed":
			failedRows++
		case row[0] == "# not listed":
			notes++
			require.Equal(t, []string{"# not listed", "A001", "", "", "skipped", moreSkipped}, row[:6])
		}
	}
	require.Equal(t, MaxListed, skips)
	require.Equal(t, failed, failedRows, "the CSV has every file")
	require.Equal(t, 1, notes)

	var hb bytes.Buffer
	require.NoError(t, r.WriteHTML(&hb))
	page := html.UnescapeString(hb.String())
	for _, want := range []string{"1,567 skipped, 1,321 failed</td>", "<h3>Failures (1,321)</h3>", "<h3>Skipped, not copied (1,567)</h3>",
		`<li class="more">` + moreFailed + "</li>", `<li class="more">` + moreSkipped + "</li>"} {
		require.Contains(t, page, want)
	}

	pages := pdfAllText(t, writePDF(t, r))
	require.Contains(t, pages[0], "1,567 skipped, 1,321 failed", "page 1")
	var cardPage string
	for _, p := range pages {
		if strings.Contains(p, "Card A001") || cardPage != "" {
			cardPage += p + " "
		}
	}
	for _, want := range []string{"1,567 skipped, 1,321 failed", "Failures (1,321)", "Skipped, not copied (1,567)",
		fmt.Sprintf("… and 1,281 more failed, not listed here: dit job show %d lists them all", id),
		fmt.Sprintf("… and 1,527 more skipped, not listed here: dit job show %d lists them all", id)} {
		require.Contains(t, cardPage, want)
	}
}
