package jobreport

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The verdict banner as a person sees it: the HTML report rendered by
// headless Chromium, on screen and printed, and the PDF report rendered by
// poppler; the contrast of the banner's text on its background is measured
// from the pixels (WCAG 2 contrast ratio, at least 4.5:1 for text).
//
// DIT_REPORT_SHOTS=dir keeps the renderings there, to be looked at.

const minContrast = 4.5

// chromiumBin finds a headless-capable Chromium, or skips saying why; the
// test is not run under go test -short.
func chromiumBin(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: the HTML report is not rendered in Chromium")
	}
	for _, n := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	t.Skip("HTML banner test skipped: no chromium on PATH (apt-get install chromium)")
	return ""
}

func needPdftoppm(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("pdftoppm"); err != nil {
		t.Skip("pdftoppm not installed (Debian: apt-get install poppler-utils): the rendering is not checked")
	}
}

// chromium runs Chromium headless on the file page with args
// (--screenshot=..., --print-to-pdf=...).
func chromium(t *testing.T, bin, page string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	home := t.TempDir()
	a := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
		"--user-data-dir=" + filepath.Join(home, "profile")}, args...)
	cmd := exec.CommandContext(ctx, bin, append(a, "file://"+page)...)
	cmd.Env = append(os.Environ(), "HOME="+home)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	require.NoError(t, cmd.Run(), "chromium: %s", errb.String())
}

// The banners' text, hidden and drawn in a probe colour: styles that
// change nothing else. The pixels the probe colour covers whole are the
// text's, wherever it is drawn (on its bar or off it); the page as it is
// gives their colour, the page with the text hidden their background.
const (
	hideText  = `<style>.banner,.banner *{color:transparent!important;border-color:transparent!important;text-shadow:none!important}</style>`
	probeText = `<style>.banner,.banner *{color:#f0f!important;border-color:transparent!important;text-shadow:none!important}</style>`
)

var probe = color.RGBA{255, 0, 255, 255}

// renderHTML renders page as Chromium shows it on screen or, with print,
// as it prints it (then by poppler, page by page), as it is and with each
// of the styles added: an image per page of each.
func renderHTML(t *testing.T, bin string, page []byte, print bool, keep string, styles ...string) [][]image.Image {
	t.Helper()
	i := bytes.Index(page, []byte("</head>"))
	require.Positive(t, i, "a <head> to add the style to")
	dir := t.TempDir()
	out := make([][]image.Image, 1+len(styles))
	for k := range out {
		html := page
		if k > 0 {
			html = append(append(append([]byte{}, page[:i]...), styles[k-1]...), page[i:]...)
		}
		p := filepath.Join(dir, fmt.Sprintf("page-%d.html", k))
		require.NoError(t, os.WriteFile(p, html, 0o644))
		var pngs []string
		if print {
			pdf := filepath.Join(dir, fmt.Sprintf("page-%d.pdf", k))
			chromium(t, bin, p, "--print-to-pdf="+pdf, "--no-pdf-header-footer")
			pngs = renderPDF(t, pdf, 100)
		} else {
			png := filepath.Join(dir, fmt.Sprintf("page-%d.png", k))
			chromium(t, bin, p, "--screenshot="+png, "--window-size=560,3600")
			pngs = []string{png}
		}
		for j, png := range pngs {
			out[k] = append(out[k], readPNG(t, png))
			if k == 0 {
				keepShot(t, png, fmt.Sprintf("%s-%d.png", keep, j+1))
			}
		}
		require.Len(t, out[k], len(out[0]), "the styles change no layout")
	}
	return out
}

// keepShot copies a rendering to $DIT_REPORT_SHOTS/name, if it is set.
func keepShot(t *testing.T, png, name string) {
	t.Helper()
	dir := os.Getenv("DIT_REPORT_SHOTS")
	if dir == "" {
		return
	}
	data, err := os.ReadFile(png)
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), data, 0o644))
}

// luminance is the WCAG 2 relative luminance of c.
func luminance(c color.RGBA) float64 {
	lin := func(v uint8) float64 {
		s := float64(v) / 255
		if s <= 0.04045 {
			return s / 12.92
		}
		return math.Pow((s+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(c.R) + 0.7152*lin(c.G) + 0.0722*lin(c.B)
}

// contrast is the WCAG 2 contrast ratio of a and b, 1 to 21.
func contrast(a, b color.RGBA) float64 {
	la, lb := luminance(a), luminance(b)
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

func rgbaAt(img image.Image, x, y int) color.RGBA {
	r, g, b, _ := img.At(x, y).RGBA()
	return color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), 255}
}

// differ says whether two colours differ by more than d in a channel.
func differ(a, b color.RGBA, d int) bool {
	abs := func(x, y uint8) int { return int(math.Abs(float64(x) - float64(y))) }
	return abs(a.R, b.R) > d || abs(a.G, b.G) > d || abs(a.B, b.B) > d
}

// mostCommon is the colour most of cs have (the text's own colour among
// its anti-aliased edges, a bar's colour under its text).
func mostCommon(cs []color.RGBA) color.RGBA {
	n := map[color.RGBA]int{}
	for _, c := range cs {
		n[c]++
	}
	var best color.RGBA
	for c, k := range n {
		if k > n[best] || k == n[best] && luminance(c) < luminance(best) {
			best = c
		}
	}
	return best
}

// banner is the text of one banner as rendered: where it is, the colour
// most of its pixels have, the colour most of their background has, the
// contrast ratio of the two and the share of its pixels whose own
// contrast with their background is under minContrast.
type banner struct {
	box      image.Rectangle
	text, bg color.RGBA
	ratio    float64
	low      float64
}

func (b banner) String() string {
	return fmt.Sprintf("text #%02x%02x%02x on #%02x%02x%02x at %v: %.2f:1",
		b.text.R, b.text.G, b.text.B, b.bg.R, b.bg.G, b.bg.B, b.box, b.ratio)
}

// bannerText finds the banners' text on a rendering: the pixels the
// probe colour covers whole, in bands of rows apart from the next by more
// than a line's spacing (a banner each).
func bannerText(shown, hidden, probed image.Image) []banner {
	const gap = 40 // rows: more than between two lines of a banner
	var out []banner
	var text, bg []color.RGBA
	var box image.Rectangle
	low := 0
	end := func() {
		if len(text) > 0 {
			b := banner{box: box, text: mostCommon(text), bg: mostCommon(bg), low: float64(low) / float64(len(text))}
			b.ratio = contrast(b.text, b.bg)
			out = append(out, b)
		}
		text, bg, box, low = nil, nil, image.Rectangle{}, 0
	}
	r := shown.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		if len(text) > 0 && y-box.Max.Y > gap {
			end()
		}
		for x := r.Min.X; x < r.Max.X; x++ {
			a, b := rgbaAt(shown, x, y), rgbaAt(hidden, x, y)
			if differ(rgbaAt(probed, x, y), probe, 24) || !differ(b, probe, 24) {
				continue // not the text's, or the page's own magenta
			}
			text, bg = append(text, a), append(bg, b)
			if contrast(a, b) < minContrast {
				low++
			}
			box = box.Union(image.Rect(x, y, x+1, y+1))
		}
	}
	end()
	return out
}

func renderBanners(t *testing.T, bin string, r *Report, print bool, keep string) ([]banner, error) {
	t.Helper()
	var b bytes.Buffer
	err := r.WriteHTML(&b)
	imgs := renderHTML(t, bin, b.Bytes(), print, keep, hideText, probeText)
	var out []banner
	for i := range imgs[0] {
		out = append(out, bannerText(imgs[0][i], imgs[1][i], imgs[2][i])...)
	}
	return out, err
}

// TestHTMLBannerIsReadable: every banner the HTML report can have (the
// verdict of a safe job, of a job with a card NOT safe, of a report cut
// short by a catalog that fails) has text that reads on its bar, on
// screen and printed.
func TestHTMLBannerIsReadable(t *testing.T) {
	bin := chromiumBin(t)
	needPdftoppm(t)
	for _, tc := range []struct {
		name   string
		report func(t *testing.T) *Report
		want   []string // the banners' words, top to bottom
	}{
		{"safe", func(*testing.T) *Report { return idleReport() }, []string{"VERIFIED"}},
		{"failed", func(*testing.T) *Report { return resumedReport() }, []string{"NOT VERIFIED"}},
		{"incomplete", incompleteReport, []string{"VERIFIED", "INCOMPLETE REPORT"}},
	} {
		for _, media := range []string{"screen", "print"} {
			t.Run(tc.name+"/"+media, func(t *testing.T) {
				r := tc.report(t)
				bs, err := renderBanners(t, bin, r, media == "print", "html-"+tc.name+"-"+media)
				if tc.name == "incomplete" {
					require.Error(t, err)
				} else {
					require.NoError(t, err)
				}
				require.Len(t, bs, len(tc.want), "banners %v, on the page (%s): %v", tc.want, media, bs)
				for i, b := range bs {
					t.Logf("%s banner %q: %v, %.2f%% of its pixels under %.1f:1", media, tc.want[i], b, 100*b.low, minContrast)
					require.GreaterOrEqual(t, b.ratio, minContrast, "%s banner %q: %v", media, tc.want[i], b)
					require.LessOrEqual(t, b.low, 0.002, "%s banner %q: %v, but %.2f%% of its pixels under %.1f:1 (text off its bar?)",
						media, tc.want[i], b, 100*b.low, minContrast)
					require.Greater(t, b.box.Dx(), 100, "a line of text, not a speck: %v", b)
				}
			})
		}
	}
}

// interruptedReport is the resumed job stopped before its end: every card
// NOT safe to format.
func interruptedReport() *Report {
	r := resumedReport()
	r.Job.State = "interrupted"
	for i := range r.Cards {
		r.Cards[i].SafeToFormat = false
		r.Cards[i].Verdict = "Interrupted: NOT safe to format (resume the job)"
	}
	r.Totals.SafeToFormat, r.Totals.Verified = 0, false
	return r
}

// incompleteReport is a verified job whose catalog fails as its HTML
// report lists the files of its first card.
func incompleteReport(t *testing.T) *Report {
	cat, id := streamFixture(t, false)
	everyCopyVerified(t, cat)
	breakFile(t, cat, id, "A001 🎬", 50)
	r, err := Build(cat, id, Options{Now: func() time.Time { return generated }})
	require.NoError(t, err)
	return r
}

// pdfBanner finds the verdict's bar on page 1 of the PDF report: the
// first band of rows most of which is one colour that stands out from the
// page (the bar under the text), as wide as that colour spans. Its text's
// colour is the one most of the bar's other pixels have.
func pdfBanner(img image.Image) (banner, bool) {
	r := img.Bounds()
	var all []color.RGBA
	for y := r.Min.Y; y < r.Max.Y; y += 4 {
		for x := r.Min.X; x < r.Max.X; x += 4 {
			all = append(all, rgbaAt(img, x, y))
		}
	}
	paper := mostCommon(all)
	var box image.Rectangle
	var bar color.RGBA
rows:
	for y := r.Min.Y; y < r.Max.Y; y++ {
		row := make([]color.RGBA, 0, r.Dx())
		for x := r.Min.X; x < r.Max.X; x++ {
			row = append(row, rgbaAt(img, x, y))
		}
		c := mostCommon(row)
		n, x0, x1 := 0, r.Max.X, r.Min.X
		for i, p := range row {
			if p == c {
				n, x0, x1 = n+1, min(x0, r.Min.X+i), max(x1, r.Min.X+i+1)
			}
		}
		isBar := contrast(c, paper) >= 3 && n*2 >= r.Dx()
		switch {
		case isBar && box.Empty():
			box, bar = image.Rect(x0, y, x1, y+1), c
		case isBar && c == bar:
			box = box.Union(image.Rect(x0, y, x1, y+1))
		case !box.Empty():
			break rows // the first bar only
		}
	}
	if box.Empty() {
		return banner{}, false
	}
	var text []color.RGBA
	for y := box.Min.Y; y < box.Max.Y; y++ {
		for x := box.Min.X; x < box.Max.X; x++ {
			if c := rgbaAt(img, x, y); differ(c, bar, 64) {
				text = append(text, c)
			}
		}
	}
	b := banner{box: box, text: bar, bg: bar}
	if len(text) > 0 {
		b.text = mostCommon(text)
	}
	b.ratio = contrast(b.text, b.bg)
	return b, true
}

// TestPDFBannerIsReadable: the PDF report's verdict bar, for a safe job
// and for jobs with cards NOT safe, has text that reads on it.
func TestPDFBannerIsReadable(t *testing.T) {
	needPdftoppm(t)
	var bars []string
	for _, tc := range []struct {
		name string
		r    *Report
	}{{"safe", idleReport()}, {"failed", resumedReport()}, {"interrupted", interruptedReport()}} {
		t.Run(tc.name, func(t *testing.T) {
			pages := renderPDF(t, writePDF(t, tc.r), 100)
			keepShot(t, pages[0], "pdf-"+tc.name+"-1.png")
			b, ok := pdfBanner(readPNG(t, pages[0]))
			require.True(t, ok, "no verdict bar on page 1")
			t.Logf("banner: %v", b)
			require.Greater(t, b.box.Dx(), 400, "a bar across the page: %v", b)
			require.GreaterOrEqual(t, b.ratio, minContrast, "banner: %v", b)
			bars = append(bars, fmt.Sprintf("%02x%02x%02x", b.bg.R, b.bg.G, b.bg.B))
		})
	}
	sort.Strings(bars)
	require.Len(t, bars, 3)
	require.NotEqual(t, bars[0], bars[2], "the safe job's bar is not the colour of the others': %s", strings.Join(bars, " "))
}
