package jobreport

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/offload"
)

// The PDF as people see it: rendered by poppler at 50 dpi, page by page,
// against golden PNGs in testdata/render/. go test -update rewrites them
// (look at them before committing: they are what the producer gets).

// A rendering matches its golden when the mean absolute difference per
// pixel and channel (0 to 255) is at most renderTolerance and at most
// renderChanged of its pixels differ by more than a quarter of the scale:
// anti-aliasing and hinting of another poppler stay under both; a moved
// table, a lost chart, a line added or a verdict changing colour do not
// (the figures themselves are checked as text).
const (
	renderTolerance = 1.0
	renderChanged   = 0.0005
)

func writePDF(t *testing.T, r *Report) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, r.WritePDF(&b))
	p := filepath.Join(t.TempDir(), "report.pdf")
	require.NoError(t, os.WriteFile(p, b.Bytes(), 0o644))
	return p
}

// renderPDF renders every page of the PDF at path to PNG, at dpi.
func renderPDF(t *testing.T, path string, dpi int) []string {
	t.Helper()
	prefix := filepath.Join(t.TempDir(), "page")
	out, err := exec.Command("pdftoppm", "-r", fmt.Sprint(dpi), "-png", path, prefix).CombinedOutput()
	require.NoError(t, err, "pdftoppm: %s", out)
	pages, err := filepath.Glob(prefix + "-*.png")
	require.NoError(t, err)
	sort.Strings(pages) // fewer than 10 pages: page-1 ... page-9
	require.NotEmpty(t, pages)
	return pages
}

func readPNG(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	img, err := png.Decode(f)
	require.NoError(t, err, path)
	return img
}

// imageDiff is the mean absolute difference per pixel and RGB channel, on
// the 0..255 scale, and the fraction of pixels with a channel that
// differs by more than 64; sizes must match.
func imageDiff(a, b image.Image) (mean, changed float64, err error) {
	if a.Bounds().Size() != b.Bounds().Size() {
		return 0, 0, fmt.Errorf("size %v, golden %v", a.Bounds().Size(), b.Bounds().Size())
	}
	var sum float64
	var n int
	ab, bb := a.Bounds(), b.Bounds()
	for y := 0; y < ab.Dy(); y++ {
		for x := 0; x < ab.Dx(); x++ {
			r1, g1, b1, _ := a.At(ab.Min.X+x, ab.Min.Y+y).RGBA()
			r2, g2, b2, _ := b.At(bb.Min.X+x, bb.Min.Y+y).RGBA()
			big := false
			for _, d := range [][2]uint32{{r1, r2}, {g1, g2}, {b1, b2}} {
				v := math.Abs(float64(d[0]>>8) - float64(d[1]>>8))
				sum += v
				big = big || v > 64
			}
			if big {
				n++
			}
		}
	}
	px := float64(ab.Dx() * ab.Dy())
	return sum / (3 * px), float64(n) / px, nil
}

func TestPDFGoldenRendering(t *testing.T) {
	if _, err := exec.LookPath("pdftoppm"); err != nil {
		t.Skip("pdftoppm not installed (Debian: apt-get install poppler-utils): the PDF rendering is not checked")
	}
	for _, tc := range []struct {
		name string
		r    *Report
	}{{"resumed", resumedReport()}, {"idle", idleReport()}, {"cascade", cascadeReport()}} {
		t.Run(tc.name, func(t *testing.T) {
			pages := renderPDF(t, writePDF(t, tc.r), 50)
			dir := filepath.Join("testdata", "render")
			if *update {
				require.NoError(t, os.MkdirAll(dir, 0o755))
				old, _ := filepath.Glob(filepath.Join(dir, tc.name+"-*.png"))
				for _, o := range old {
					require.NoError(t, os.Remove(o))
				}
				for i, p := range pages {
					data, err := os.ReadFile(p)
					require.NoError(t, err)
					require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s-%d.png", tc.name, i+1)), data, 0o644))
				}
			}
			goldens, _ := filepath.Glob(filepath.Join(dir, tc.name+"-*.png"))
			require.Len(t, goldens, len(pages), "pages of %s (go test ./reports/jobreport -update rewrites the goldens)", tc.name)
			for i, p := range pages {
				g := filepath.Join(dir, fmt.Sprintf("%s-%d.png", tc.name, i+1))
				diff, changed, err := imageDiff(readPNG(t, p), readPNG(t, g))
				if err == nil && diff <= renderTolerance && changed <= renderChanged {
					continue
				}
				// Keep the rendering where it can be looked at.
				keep := filepath.Join(os.TempDir(), fmt.Sprintf("dit-jobreport-%s-%d.png", tc.name, i+1))
				data, _ := os.ReadFile(p)
				_ = os.WriteFile(keep, data, 0o644)
				require.NoError(t, err, "page %d of %s, rendered as %s", i+1, tc.name, keep)
				t.Errorf("page %d of %s differs from %s: mean difference %.2f (at most %.2f), %.3f%% of the pixels changed (at most %.3f%%); "+
					"rendered as %s (go test ./reports/jobreport -update rewrites the goldens after a wanted change)",
					i+1, tc.name, g, diff, renderTolerance, 100*changed, 100*renderChanged, keep)
			}
		})
	}
}

// page1Text is the text of page 1 of the PDF: by pdftotext where it is
// installed, else from the PDF's content (fpdf writes one string per
// cell) up to the footer of page 1.
func page1Text(t *testing.T, path string) string {
	t.Helper()
	if _, err := exec.LookPath("pdftotext"); err == nil {
		out, err := exec.Command("pdftotext", "-raw", "-f", "1", "-l", "1", path, "-").Output()
		require.NoError(t, err)
		return string(out)
	}
	t.Log("pdftotext not installed: reading page 1 from the PDF's content")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	text, _ := pdfText(t, data)
	if i := strings.Index(text, "page 1 of"); i >= 0 {
		text = text[:i]
	}
	return text
}

// squash folds runs of white space into one space.
func squash(s string) string { return strings.Join(strings.Fields(s), " ") }

func TestPDFPage1LeadsWithTheTotals(t *testing.T) {
	r := resumedReport()
	text := squash(page1Text(t, writePDF(t, r)))
	for _, want := range []string{
		"Offload report: Day 14 Main Unit", "Job 12 (done) on dit-cart-1",
		"NOT VERIFIED: 1 of 3 cards NOT safe to format",
		"Cards 3", "Files 1,711", "Size 757 GB", "Verified No",
		"Copy, TB/hour 0.971", "Verify, TB/hour 1.815", "End to end, TB/hour 0.782", "Running time 1:00:00",
		"Resumed: 2 runs, paused 1:00:00", "Simulated: card readers and buses at 25% of their planned rates",
		"A001 412 498 GB 1.620 2.964 1.401 safe to format",
		"B001 1,203 256 GB 0.576 1.065 0.546 safe to format",
		"SOUND_D14 96 3.20 GB 0.288 0.384 0.165 NOT safe: failed",
		"All cards 1,711 757 GB 0.971 1.815 0.782 2 of 3 safe",
	} {
		require.Contains(t, text, want)
	}
	require.Equal(t, 0.971, r.Totals.CopyTBPerHour, "the fixture's figure")

	idle := squash(page1Text(t, writePDF(t, idleReport())))
	for _, want := range []string{
		"VERIFIED: the card is safe to format", "Verified Yes", "Size 0 B",
		"Copy, TB/hour — nothing copied", "Verify, TB/hour -", "End to end, TB/hour — nothing copied",
		"Not resumed", "Not simulated",
		"C001 0 0 B - - - safe to format",
	} {
		require.Contains(t, idle, want)
	}
	require.NotContains(t, idle, "0.000")
}

// TestPDFHasNoCLIAdviceAndOneUnitPerLine reads every page: skipped files
// carry plain reasons, and no line mixes MB/s with GB/s.
func TestPDFHasNoCLIAdviceAndOneUnitPerLine(t *testing.T) {
	path := writePDF(t, resumedReport())
	var text string
	if _, err := exec.LookPath("pdftotext"); err == nil {
		out, err := exec.Command("pdftotext", "-layout", path, "-").Output()
		require.NoError(t, err)
		text = string(out)
	} else {
		t.Log("pdftotext not installed: reading the PDF's content, a line per cell")
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		text, _ = pdfText(t, data)
	}
	require.Contains(t, text, ".DS_Store:")
	require.Contains(t, text, "macOS Finder metadata")
	require.NotContains(t, text, "--include-hidden")
	require.NotContains(t, text, "--")
	for _, l := range strings.Split(text, "\n") {
		require.False(t, strings.Contains(l, "MB/s") && strings.Contains(l, "GB/s"), "two units on one line: %q", l)
	}
	require.Contains(t, text, "Mean") // the rate tables are there
}

func TestHTMLSizesAndPlainReasons(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, resumedReport().WriteHTML(&b))
	s := b.String()
	require.Contains(t, s, `<span class="size" title="757323456789 bytes">757 GB</span>`)
	require.Contains(t, s, `<span class="size" title="48123456789 bytes">48.1 GB</span>`, "file sizes too")
	require.NotContains(t, s, "include-hidden")
	require.Contains(t, s, "macOS Finder metadata</li>")
	require.Contains(t, s, "Resumed: 2 runs, paused 1:00:00")
	// No table cell holds a raw byte count.
	require.NotRegexp(t, `<td class="num">\d{7,}</td>`, s)
	// One rate unit per table: no row mixes them.
	for _, row := range regexp.MustCompile(`(?s)<tr>.*?</tr>`).FindAllString(s, -1) {
		require.False(t, strings.Contains(row, "MB/s") && strings.Contains(row, "GB/s"), row)
	}

	b.Reset()
	require.NoError(t, build(t).WriteHTML(&b), "a report from the catalog")
	require.Contains(t, b.String(), "A001C002 \u00e9t\u00e9.mov", "names byte for byte")

	b.Reset()
	require.NoError(t, idleReport().WriteHTML(&b))
	require.Contains(t, b.String(), `<div class="label">Copy, TB/hour</div><div class="value">—</div><div class="more">nothing copied</div>`)
}

func TestCSVHeaderHasNoPaths(t *testing.T) {
	r := resumedReport()
	r.Cards[0].Label = "#A001" // a card whose name looks like a comment
	var b bytes.Buffer
	require.NoError(t, r.WriteCSV(&b))

	// Every reader parses it (the rows are all as wide as the header).
	all, err := csv.NewReader(bytes.NewReader(b.Bytes())).ReadAll()
	require.NoError(t, err)
	// The destinations' block comes before the header: below it, only files.
	require.Equal(t, []string{"# dest1", "/Volumes/RAID_A"}, all[0][:2])
	require.Equal(t, []string{"# dest2", "/Volumes/SHUTTLE_01"}, all[1][:2])
	head := all[2]
	for _, h := range head {
		require.NotContains(t, h, "/", "a path in the header")
	}
	require.Equal(t, []string{"card", "path", "size_bytes", "modified_utc", "state", "error", "xxh64", "md5",
		"dest1_state", "dest1_verified_at", "dest1_verified_by", "dest2_state", "dest2_verified_at", "dest2_verified_by"}, head)

	// A reader that skips comments gets the files only.
	cr := csv.NewReader(bytes.NewReader(b.Bytes()))
	cr.Comment = '#'
	rows, err := cr.ReadAll()
	require.NoError(t, err)
	require.Equal(t, head, rows[0])
	require.Equal(t, "#A001", rows[1][0], "a card named #... is quoted, not a comment")
	require.Equal(t, "verified", rows[1][head2col(head, "dest2_state")])
	require.Len(t, rows, 1+1+3, "the header, A001's file and B001's skipped entries")
}

func head2col(head []string, name string) int {
	for i, h := range head {
		if h == name {
			return i
		}
	}
	return -1
}

func TestPresentationHelpers(t *testing.T) {
	require.Equal(t, "macOS Finder metadata", skipReason(Skip{Kind: "metadata", Reason: "macOS Finder metadata (copy it with --include-hidden)"}))
	require.Equal(t, "symbolic link, not followed", skipReason(Skip{Kind: "symlink", Reason: "symbolic link, not followed"}))
	require.Equal(t, "named pipe, not a file", skipReason(Skip{Kind: "fifo"}))
	require.Equal(t, "NOT safe: copies checked, hash lists not written", shortVerdict(&Card{CardFigures: offload.CardFigures{Verdict: "Copies checked, hash lists not written: NOT safe to format (dit offload --resume 12 writes them)"}}))
	require.Equal(t, "NOT safe: unreadable entries on the card", shortVerdict(&Card{CardFigures: offload.CardFigures{Verdict: "Incomplete (unreadable entries on the card): NOT safe to format"}}))
	require.Equal(t, "NOT safe: failed", shortVerdict(&Card{CardFigures: offload.CardFigures{Verdict: "FAILED: NOT safe to format"}}))
	require.Equal(t, "NOT safe: failed: not every copy is verified (a copy was found different since)",
		shortVerdict(&Card{CardFigures: offload.CardFigures{Verdict: "FAILED: not every copy is verified (a copy was found different since): NOT safe to format"}}))
	require.Equal(t, "safe to format", shortVerdict(&Card{CardFigures: offload.CardFigures{SafeToFormat: true, Verdict: "Verified: safe to format"}}))
	require.Equal(t, "Interrupted: NOT safe to format (resume the job)", verdictText(&Card{CardFigures: offload.CardFigures{Verdict: "Interrupted: NOT safe to format (resume the job)"}}),
		"plain words stay")

	require.Equal(t, "0:00:00", hms(0))
	require.Equal(t, "1:00:00", hms(3600))
	require.Equal(t, "26:01:05", hms(93665))
	require.Equal(t, "-", tbhNum(0))
	require.Equal(t, "1.980", tbhNum(1.98))
	require.Equal(t, "1,234,567", thousands(1234567))
	require.Equal(t, "-1,234", thousands(-1234))
	require.Equal(t, "999", thousands(999))

	u := pickRateUnit(95e6, 160e6)
	require.Equal(t, "GB/s", u.Name())
	require.Equal(t, "0.095", u.Num(95e6))
	require.Equal(t, "GB/s", rateUnitOf(Rate{Mean: 95e6, Max: 160e6}, Rate{Mean: 20e6}).Name(), "one unit for the table")
	require.Equal(t, "MB/s", pickRateUnit(80e6, 44e6).Name())
	require.Equal(t, "44.0", pickRateUnit(80e6, 44e6).Num(44e6))
	require.Equal(t, "-", pickRateUnit(0).Num(0))

	require.Equal(t, "Resumed: 3 runs, paused 0:10:00", resumedText(Totals{JobFigures: offload.JobFigures{Runs: 3, PausedSeconds: 600}, Resumed: true}))
	require.Equal(t, "Simulated: card readers and buses at 50% of their planned rates", simulatedText(Totals{Simulated: true, SimulateScale: 0.5}))
}

func TestChartTicks(t *testing.T) {
	labels := func(ts []string) string { return strings.Join(ts, " ") }
	var got []string
	for _, tk := range (timeTicks{}).Ticks(6700, 6770) {
		if tk.Label != "" {
			got = append(got, tk.Label)
		}
	}
	require.Equal(t, "1:51:40 1:51:50 1:52:00 1:52:10 1:52:20 1:52:30 1:52:40 1:52:50", labels(got))
	got = nil
	for _, tk := range (timeTicks{}).Ticks(0, 7200) {
		if tk.Label != "" {
			got = append(got, tk.Label)
		}
	}
	require.Equal(t, "0:00 0:30 1:00 1:30 2:00", labels(got))
	got = nil
	for _, tk := range (rateTicks{step: niceStep(0.36, 5)}).Ticks(0, 0.4) {
		if tk.Label != "" {
			got = append(got, tk.Label)
		}
	}
	require.Equal(t, "0.0 0.1 0.2 0.3 0.4", labels(got))
	require.Equal(t, 2.5, niceStep(11, 5))
}

// TestChartLegendOutsideTheData: the legend of the SVG chart is below the
// plot's frame, where no line is drawn.
func TestChartLegendOutsideTheData(t *testing.T) {
	c := resumedReport().Cards[1]
	svg, err := chart(&c, "svg", 160*4, 80*4) // points
	require.NoError(t, err)
	s := string(svg)
	require.Contains(t, s, "font-family:Liberation Sans")
	require.NotContains(t, s, "Liberation Serif", "one font")
	// vgsvg draws text flipped: y="-<height>"; the legend's text is the
	// lowest on the canvas, under the axis label.
	textY := func(label string) float64 {
		m := regexp.MustCompile(`y="(-?[0-9.]+)"[^>]*>` + regexp.QuoteMeta(label) + `<`).FindStringSubmatch(s)
		require.NotNil(t, m, label)
		var v float64
		fmt.Sscan(m[1], &v)
		return -v
	}
	require.Less(t, textY("copy (reading the card)"), textY("time since the job started (H:MM)"))
	require.Less(t, textY("verify (reading the copies back)"), textY("time since the job started (H:MM)"))
}
