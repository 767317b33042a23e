package jobreport

import (
	"bytes"
	"compress/zlib"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/hashing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

var t0 = time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)

func at(sec float64) time.Time { return t0.Add(time.Duration(sec * float64(time.Second))) }

// fixture builds a finished job in a fresh catalog with fixed names, times
// and samples, so that reports of it never change.
func fixture(t *testing.T) (*catalog.Catalog, int64) {
	t.Helper()
	cat, err := catalog.Open(filepath.Join(t.TempDir(), "catalog.db"))
	require.NoError(t, err)
	t.Cleanup(func() { cat.Close() })
	j := &catalog.Job{Name: "Day 01 & \"B\" unit", State: catalog.JobRunning, Host: "dit-test-host", ToolVersion: "1.0.0-test",
		Hashes: "md5,xxh64", VerifyMode: "dest", VerifyHashes: "fastest", Layout: "{job}/{card}", OnConflict: "fail", Started: t0}
	require.NoError(t, cat.CreateJob(j))
	var dests []*catalog.Dest
	for i, p := range []string{"/mnt/raid", "/mnt/shuttle"} {
		d := &catalog.Dest{JobID: j.ID, Seq: i, Path: p}
		require.NoError(t, cat.AddDest(d))
		dests = append(dests, d)
	}
	sums := func(s string) hashing.Sums {
		return hashing.Bytes([]hashing.Algo{hashing.MD5, hashing.XXH64}, []byte(s))
	}
	mt := time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)

	// A001: 250 GB in two files, verified everywhere; copy 30 min, verify 34 min.
	a := &catalog.Card{JobID: j.ID, Seq: 0, Label: "A001", Path: "/media/A001", Bytes: 250e9, Files: 2, State: "pending"}
	require.NoError(t, cat.AddCard(a))
	a.State, a.CopyStarted, a.CopyFinished, a.VerifyStarted, a.VerifyFinished = "verified", at(0), at(1800), at(60), at(2100)
	cat.UpdateCard(a)
	for i, f := range []struct {
		rel  string
		size int64
	}{{"Clips/A001C001.mov", 200e9}, {"Clips/A001C002 \u00e9t\u00e9.mov", 50e9}} {
		cat.PutFile(&catalog.File{CardID: a.ID, Rel: f.rel, Size: f.size, Mtime: mt, State: "verified", Sums: sums(f.rel),
			CopyStarted: at(float64(i * 900)), CopyFinished: at(float64(i*900 + 900))})
		for _, d := range dests {
			cat.PutCopy(a.ID, f.rel, &catalog.Copy{DestID: d.ID, Path: "x/" + f.rel, State: "verified", Written: true,
				VerifyAlgos: "xxh64", VerifiedAt: at(float64(1000 + i*1100))})
		}
	}
	cat.PutSkipped(a.ID, catalog.Skip{Rel: ".DS_Store", Kind: "metadata", Reason: "macOS Finder metadata"})
	// A002: 1 GB, one file failed on the shuttle.
	b := &catalog.Card{JobID: j.ID, Seq: 1, Label: "A002", Path: "/media/A002", Bytes: 1e9, Files: 2, State: "pending"}
	require.NoError(t, cat.AddCard(b))
	b.State, b.CopyStarted, b.CopyFinished, b.VerifyStarted, b.VerifyFinished = "failed", at(0), at(4), at(2), at(6)
	b.Error = "1 file(s) failed"
	cat.UpdateCard(b)
	cat.PutFile(&catalog.File{CardID: b.ID, Rel: "ok.mov", Size: 6e8, Mtime: mt, State: "verified", Sums: sums("ok")})
	cat.PutFile(&catalog.File{CardID: b.ID, Rel: "bad.mov", Size: 4e8, Mtime: mt, State: "failed", Sums: sums("bad"),
		Error: "/mnt/shuttle: read-back: xxh64 differs"})
	for _, d := range dests {
		cat.PutCopy(b.ID, "ok.mov", &catalog.Copy{DestID: d.ID, Path: "y/ok.mov", State: "verified", VerifyAlgos: "xxh64", VerifiedAt: at(5)})
		st, e := "verified", ""
		if d.Seq == 1 {
			st, e = "failed", "read-back: xxh64 differs"
		}
		cat.PutCopy(b.ID, "bad.mov", &catalog.Copy{DestID: d.ID, Path: "y/bad.mov", State: st, VerifyAlgos: "xxh64", VerifiedAt: at(5), Error: e})
	}
	// Samples, one a minute (each covers the minute before it): A001 copies
	// for 30 min at 100..160 MB/s, its copies are read back from minute 1
	// to 35 at 200..300 MB/s (both destinations); A002 copies 1 GB in 4 s.
	// The job ran once, 0 to 2160 s.
	copyRates := []float64{100e6, 160e6, 140e6, 150e6, 120e6}
	for i := 0; i < 30; i++ {
		r := copyRates[i%5]
		cat.PutSample(j.ID, catalog.Sample{CardID: a.ID, T: at(float64(60 * (i + 1))), Bytes: int64(i+1) * 1e8, Rate: r, Phase: "copy", Seconds: 60})
		for _, d := range dests {
			cat.PutSample(j.ID, catalog.Sample{CardID: a.ID, DestID: d.ID, T: at(float64(60 * (i + 1))), Bytes: int64(i+1) * 1e8, Rate: r, Phase: "copy", Seconds: 60})
		}
	}
	verifyRates := []float64{200e6, 300e6, 250e6}
	for i := 0; i < 34; i++ {
		r := verifyRates[i%3]
		cat.PutSample(j.ID, catalog.Sample{CardID: a.ID, T: at(float64(60 + 60*(i+1))), Bytes: int64(i+1) * 2e8, Rate: r, Phase: "verify", Seconds: 60})
		cat.PutSample(j.ID, catalog.Sample{CardID: a.ID, DestID: dests[0].ID, T: at(float64(60 + 60*(i+1))), Bytes: int64(i+1) * 1e8, Rate: r / 2, Phase: "verify", Seconds: 60})
	}
	cat.PutSample(j.ID, catalog.Sample{CardID: b.ID, T: at(4), Bytes: 1e9, Rate: 250e6, Phase: "copy", Seconds: 4})
	cat.PutSample(j.ID, catalog.Sample{CardID: b.ID, T: at(6), Bytes: 1e9, Rate: 250e6, Phase: "verify", Seconds: 4})
	run, err := cat.StartRun(j.ID, at(0))
	require.NoError(t, err)
	require.NoError(t, cat.EndRun(j.ID, run, at(2160)))
	require.NoError(t, cat.Flush())
	require.NoError(t, cat.SetJobState(j.ID, catalog.JobDone, at(2160), ""))
	return cat, j.ID
}

var generated = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

func build(t *testing.T) *Report {
	cat, id := fixture(t)
	r, err := Build(cat, id, Options{Now: func() time.Time { return generated }})
	require.NoError(t, err)
	return r
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(p, got, 0o644))
	}
	want, err := os.ReadFile(p)
	require.NoError(t, err, "run go test ./reports/jobreport -update to create %s", p)
	require.Equal(t, string(want), string(got), "%s differs (go test ./reports/jobreport -update rewrites it after a wanted change)", p)
}

func TestGoldenCSV(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, build(t).WriteCSV(&b))
	golden(t, "report.csv", b.Bytes())
}

func TestGoldenJSON(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, build(t).WriteJSON(&b))
	golden(t, "report.json", b.Bytes())
}

// TestTBPerHourFromCatalog checks every TB/hour figure against bytes over
// the duration recorded in the catalog, and the rate statistics against
// the samples.
// The report's TB/hour are bytes moved over time spent, from the samples
// (see offload.Activity), worked out here by hand for the fixture.
func TestTBPerHourFromCatalog(t *testing.T) {
	cat, id := fixture(t)
	r, err := Build(cat, id, Options{})
	require.NoError(t, err)
	a := r.Cards[0]
	// Copy: 6 rounds of 60 s at 100, 160, 140, 150, 120 MB/s = 241.2 GB in
	// 1800 s; read back: 11 rounds of 60 s at 200, 300, 250 MB/s and one
	// at 200 = 507 GB in 2040 s; the card was busy from 0 to 2100 s.
	require.Equal(t, int64(241.2e9), a.BytesCopied)
	require.Equal(t, int64(507e9), a.BytesVerified)
	require.Equal(t, 1800.0, a.CopySeconds)
	require.Equal(t, 2040.0, a.VerifySeconds)
	require.Equal(t, 2100.0, a.ActiveSeconds)
	require.Equal(t, 0.482, a.CopyTBPerHour)                                 // 241.2e9 / 1800 s
	require.Equal(t, 0.895, a.VerifyTBPerHour)                               // 507e9 / 2040 s
	require.InEpsilon(t, 241.2e9/2100*3600/1e12, a.EndToEndTBPerHour, 1e-12) // unrounded: 0.4135
	tot := r.Totals
	require.Equal(t, int64(242.2e9), tot.BytesCopied)
	require.Equal(t, 1, tot.Runs)
	require.False(t, tot.Resumed)
	require.Equal(t, 2160.0, tot.ActiveSeconds)
	require.Zero(t, tot.PausedSeconds)
	require.Equal(t, 0.484, tot.CopyTBPerHour)                         // 242.2e9 / 1800 s (A002 copied within A001's time)
	require.InEpsilon(t, 242.2e9/2160*3600/1e12, tot.TBPerHour, 1e-12) // unrounded: 0.4037
	require.False(t, tot.Verified, "A002 failed")
	require.Equal(t, Rate{Samples: 30, Mean: 134e6, Min: 100e6, Max: 160e6, P95: 160e6}, a.CopyRate)
	require.Equal(t, 34, a.VerifyRate.Samples)
	require.Equal(t, 200e6, a.VerifyRate.Min)
	require.Equal(t, 300e6, a.VerifyRate.Max)
	require.Equal(t, 34, r.Destinations[0].ReadBackRate.Samples)
	require.Equal(t, 0, r.Destinations[1].ReadBackRate.Samples)
	require.Equal(t, "0.482 TB/hour", FormatTBH(a.CopyTBPerHour))
	require.Equal(t, 4, r.Destinations[0].Verified)
	require.Equal(t, int64(251e9), r.Destinations[0].Bytes)
	require.Equal(t, 1, r.Destinations[1].Failed)
	require.False(t, r.Cards[1].SafeToFormat)
	require.True(t, r.Cards[0].SafeToFormat)
}

func TestReportRefusesMissingOrUnfinishedJob(t *testing.T) {
	cat, id := fixture(t)
	_, err := Build(cat, 99, Options{})
	require.ErrorIs(t, err, catalog.ErrNoJob)
	require.NoError(t, cat.SetJobState(id, catalog.JobInterrupted, at(100), ""))
	_, err = Build(cat, id, Options{})
	require.ErrorIs(t, err, ErrNotFinished)
	require.Contains(t, err.Error(), "dit offload --resume")
}

func TestHTMLParsesAndHoldsTheCharts(t *testing.T) {
	r := resumedReport()
	r.Job.Name = `Day 14 & "B" unit`
	var b bytes.Buffer
	require.NoError(t, r.WriteHTML(&b))
	doc, err := html.Parse(bytes.NewReader(b.Bytes()))
	require.NoError(t, err)
	var charts, svgs, polylines int
	var title string
	var walk func(n *html.Node, inChart bool)
	walk = func(n *html.Node, inChart bool) {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "figure":
				for _, a := range n.Attr {
					if a.Key == "class" && a.Val == "chart" {
						charts++
						inChart = true
					}
				}
			case "svg":
				if inChart {
					svgs++
				}
			case "path", "polyline":
				if inChart {
					polylines++
				}
			case "title":
				title = n.FirstChild.Data
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, inChart)
		}
	}
	walk(doc, false)
	require.Equal(t, 3, charts)
	require.Equal(t, 3, svgs, "one inline SVG chart per card")
	require.Greater(t, polylines, 10, "the charts draw lines")
	require.Equal(t, `Offload report: Day 14 & "B" unit (job 12)`, title)
	s := b.String()
	require.Contains(t, s, "Day 14 &amp; &#34;B&#34; unit")
	require.Contains(t, s, `<td class="num">1.620</td>`)
	require.Contains(t, s, "A001C001_261120_R1AB.mxf")
	require.Contains(t, s, "copy (reading the card)")
}

// pdfText returns the text drawn in a PDF made by fpdf with UTF-8 fonts:
// the content streams are inflated and each (...) string operand, which
// fpdf writes as UTF-16BE, is decoded.
func pdfText(t *testing.T, pdf []byte) (string, int) {
	t.Helper()
	pages := len(regexp.MustCompile(`/Type /Page\b`).FindAll(pdf, -1))
	var out strings.Builder
	streams := regexp.MustCompile(`(?s)stream\r?\n(.*?)\r?\nendstream`).FindAllSubmatch(pdf, -1)
	for _, m := range streams {
		zr, err := zlib.NewReader(bytes.NewReader(m[1]))
		if err != nil {
			continue
		}
		data, err := io.ReadAll(zr)
		if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
			continue
		}
		for _, s := range regexp.MustCompile(`(?s)\(((?:\\.|[^\\)])*)\)\s*Tj`).FindAllSubmatch(data, -1) {
			raw := unescapePDF(s[1])
			if len(raw)%2 != 0 {
				continue
			}
			u := make([]uint16, len(raw)/2)
			for i := range u {
				u[i] = uint16(raw[2*i])<<8 | uint16(raw[2*i+1])
			}
			out.WriteString(string(utf16.Decode(u)))
			out.WriteByte('\n')
		}
	}
	return out.String(), pages
}

func unescapePDF(b []byte) []byte {
	var out []byte
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' || i+1 == len(b) {
			out = append(out, b[i])
			continue
		}
		i++
		switch b[i] {
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		default:
			if b[i] >= '0' && b[i] <= '7' {
				v, n := 0, 0
				for n < 3 && i < len(b) && b[i] >= '0' && b[i] <= '7' {
					v = v*8 + int(b[i]-'0')
					i++
					n++
				}
				i--
				out = append(out, byte(v))
			} else {
				out = append(out, b[i])
			}
		}
	}
	return out
}

func TestPDFHasCardsAndTBPerHour(t *testing.T) {
	r := resumedReport()
	r.Job.Name = `Day 14 & "B" unit`
	var b bytes.Buffer
	require.NoError(t, r.WritePDF(&b))
	require.True(t, bytes.HasPrefix(b.Bytes(), []byte("%PDF-")))
	text, pages := pdfText(t, b.Bytes())
	require.Equal(t, 5, pages, "the summary, the job's details, a page per card")
	for _, want := range []string{"Card A001", "Card SOUND_D14", "1.620", "2.964", "1.401", "TB/hour",
		"Day 14 & \"B\" unit", "Failures (1)", "Day14/T012_03.WAV:", "Resumed: 2 runs, paused 1:00:00"} {
		require.Contains(t, text, want)
	}
	// Each card's chart is drawn into its page: its title, axes and
	// legend are the page's text, and no image.
	require.Equal(t, 3, strings.Count(text, "throughput per second"), "one chart per card")
	require.Equal(t, 3, strings.Count(text, "copy (reading the card)"), "each chart's legend")
	require.Contains(t, text, "time since the job started")
	require.Zero(t, bytes.Count(b.Bytes(), []byte("/Subtype /Image")), "the charts are vector drawings")

	// Where poppler is installed, its text extraction agrees.
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Log("pdftotext not installed: checked the PDF text with the Go reader only")
		return
	}
	p := filepath.Join(t.TempDir(), "r.pdf")
	require.NoError(t, os.WriteFile(p, b.Bytes(), 0o644))
	out, err := exec.Command("pdftotext", p, "-").Output()
	require.NoError(t, err)
	for _, want := range []string{"Card A001", "1.620", "2.964", "Resumed: 2 runs, paused 1:00:00"} {
		require.Contains(t, string(out), want)
	}
}

func TestDir(t *testing.T) {
	require.Equal(t, "Day01/reports", Dir("{job}/{card}", "Day01", t0, []string{"A001"}))
	require.Equal(t, "2026-11-20/Day01/reports", Dir("{date}/{job}/{card}", "Day01", t0, []string{"A001"}))
	require.Equal(t, "Day01/reports", Dir("{job}/{date}/{card}", "Day01", t0, []string{"A001"}))
	require.Equal(t, "dit-reports/Day01", Dir("{card}", "Day01", t0, []string{"A001"}))
	require.Equal(t, "dit-reports/Day01", Dir("{job}_{card}", "Day01", t0, []string{"A001"}))
	require.Equal(t, "dit-reports/Day01", Dir("{job}/{card}", "Day01", t0, []string{"reports"}), "a card named reports")
	require.Equal(t, "dit-reports/a_b", Dir("{card}", "a/b", t0, nil))
}

func TestWriteToDestinations(t *testing.T) {
	r := build(t)
	d1, d2 := t.TempDir(), t.TempDir()
	r.Destinations[0].Path, r.Destinations[1].Path = d1, d2
	paths, err := r.WriteToDestinations(nil)
	require.NoError(t, err)
	require.Len(t, paths, 8)
	for _, d := range []string{d1, d2} {
		for _, ext := range Formats {
			p := filepath.Join(d, "Day 01 & \"B\" unit", "reports", "dit-report_job1_Day 01 & \"B\" unit."+ext)
			fi, err := os.Stat(p)
			require.NoError(t, err)
			require.Greater(t, fi.Size(), int64(100))
		}
	}
	var back Report
	data, _ := os.ReadFile(paths[1])
	require.NoError(t, json.Unmarshal(data, &back))
	require.Equal(t, r.Cards[0].CopyTBPerHour, back.Cards[0].CopyTBPerHour)
}

// A job run with a bus-budget plan: the report names each card's medium
// and bus from the recorded plan.
func TestMediaAndBusFromThePlan(t *testing.T) {
	cat, id := fixture(t)
	r, err := Build(cat, id, Options{Now: func() time.Time { return at(1000) }})
	require.NoError(t, err)
	require.Empty(t, r.Cards[0].Media, "no plan: nothing invented")
	detail := `{"cards":[{"name":"A001","media":"cfast2","bus":"usb-a","rate_bytes_per_s":5.5e8,"limited_by":"media"},` +
		`{"name":"A002","media":"axs","bus":"usb-b","rate_bytes_per_s":2.35e8,"limited_by":"media"}]}`
	require.NoError(t, cat.AddPlan(&catalog.Plan{JobID: id, T: at(0), Reason: "start", Total: 7.85e8, Detail: detail}))
	r, err = Build(cat, id, Options{Now: func() time.Time { return at(1000) }})
	require.NoError(t, err)
	require.Equal(t, "cfast2", r.Cards[0].Media)
	require.Equal(t, "usb-a", r.Cards[0].Bus)
	require.Equal(t, "axs", r.Cards[1].Media)
}
