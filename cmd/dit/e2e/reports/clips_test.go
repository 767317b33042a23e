package reports

import (
	"encoding/json"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
	"github.com/dit-org/dit/internal/catalog"
)

// clipCard makes a card as a camera writing to DCIM would: three short
// real clips from ffmpeg's test sources (ProRes 422 HQ in a .MOV, H.264 in
// two .MP4s), or, without ffmpeg, three dummy movies of the same names.
func clipCard(t *testing.T, dir string) string {
	card := filepath.Join(dir, "cards", "A001")
	media := filepath.Join(card, "DCIM", "100MEDIA")
	require.NoError(t, os.MkdirAll(media, 0o755))
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		for _, n := range []string{"C0001.MOV", "C0002.MP4", "C0003.MP4"} {
			require.NoError(t, os.WriteFile(filepath.Join(media, n), []byte("\x00\x00\x00\x14ftypqt  not a movie"), 0o644))
		}
		return card
	}
	for _, c := range [][]string{
		{"-f", "lavfi", "-i", "testsrc=size=640x360:rate=25:duration=2", "-c:v", "prores_ks", "-profile:v", "3", "C0001.MOV"},
		{"-f", "lavfi", "-i", "smptebars=size=640x360:rate=25:duration=2", "-c:v", "libx264", "-pix_fmt", "yuv420p", "C0002.MP4"},
		{"-f", "lavfi", "-i", "mandelbrot=size=640x360:rate=24", "-t", "1.5", "-c:v", "libx264", "-pix_fmt", "yuv420p", "C0003.MP4"},
	} {
		cmd := exec.Command("ffmpeg", append([]string{"-v", "error", "-nostdin"}, c...)...)
		cmd.Dir = media
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, string(out))
	}
	return card
}

type clipsShow struct {
	Cards []struct {
		Label    string `json:"label"`
		CardType string `json:"card_type"`
		Clips    []struct {
			Name      string  `json:"name"`
			Codec     string  `json:"codec"`
			Seconds   float64 `json:"seconds"`
			Frames    int     `json:"frames"`
			Verified  bool    `json:"verified"`
			Thumbnail string  `json:"thumbnail"`
			ThumbNote string  `json:"thumbnail_note"`
		} `json:"clips"`
	} `json:"cards"`
}

// With ffmpeg: a card of three real clips is offloaded by the dit binary;
// dit job show --clips lists them with what ffprobe read, the clip sheet
// has a row each, and the PDF report holds their three poster frames (as
// JPEG images, and visible once pdftoppm renders the page).
func TestClipsThumbnailsEndToEnd(t *testing.T) {
	for _, tool := range []string{"ffmpeg", "ffprobe", "pdftoppm", "pdfimages"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed (Debian: apt-get install ffmpeg poppler-utils): the run without it is TestClipsWithoutFFmpeg", tool)
		}
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	card := clipCard(t, dir)
	dest := filepath.Join(dir, "raid")
	require.NoError(t, os.Mkdir(dest, 0o755))
	r := e2e.Dit(t, db, "offload", "--name", "day01", "-d", dest, card)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	require.Contains(t, r.Stdout, "dit-report_job1_day01_clips.csv")

	r = e2e.Dit(t, db, "job", "show", "1", "--clips", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	var show clipsShow
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &show))
	require.Len(t, show.Cards, 1)
	k := show.Cards[0]
	require.Len(t, k.Clips, 3)
	want := []struct {
		name, codec string
		frames      int
		seconds     float64
	}{{"C0001", "ProRes 422 HQ", 50, 2}, {"C0002", "H.264", 50, 2}, {"C0003", "H.264", 36, 1.5}}
	reports := filepath.Join(dest, "day01", "reports")
	for i, w := range want {
		c := k.Clips[i]
		require.Equal(t, w.name, c.Name)
		require.Equal(t, w.codec, c.Codec)
		require.Equal(t, w.frames, c.Frames)
		require.InDelta(t, w.seconds, c.Seconds, 0.05)
		require.True(t, c.Verified)
		require.Equal(t, "thumbnails/A001/"+w.name+".jpg", c.Thumbnail, c.ThumbNote)
		b, err := os.ReadFile(filepath.Join(reports, filepath.FromSlash(c.Thumbnail)))
		require.NoError(t, err, "the poster frame is stored next to the reports")
		require.Equal(t, []byte{0xff, 0xd8}, b[:2], "a JPEG")
	}
	sheet, err := os.ReadFile(filepath.Join(reports, "dit-report_job1_day01_clips.csv"))
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(sheet)), "\n")
	require.Len(t, lines, 4, "a header and a row per clip")
	require.Contains(t, lines[3], "A001,C0003,A001,,,00:00:01:12,36,24,")

	pdf := filepath.Join(reports, "dit-report_job1_day01.pdf")
	out, err := exec.Command("pdfimages", "-list", pdf).Output()
	require.NoError(t, err)
	jpegs := 0
	for _, l := range strings.Split(string(out), "\n") {
		if f := strings.Fields(l); len(f) > 8 && f[8] == "jpeg" {
			jpegs++
		}
	}
	require.Equal(t, 3, jpegs, "three poster frames in the PDF:\n%s", out)

	// Rendered: the card's page shows three thumbnail-sized pictures in
	// the thumbnail column (rows of colour about 18 mm high).
	prefix := filepath.Join(dir, "page")
	o, err := exec.Command("pdftoppm", "-r", "50", "-png", pdf, prefix).CombinedOutput()
	require.NoError(t, err, string(o))
	pages, _ := filepath.Glob(prefix + "*.png")
	require.NotEmpty(t, pages)
	last := pages[len(pages)-1]
	if a := os.Getenv("DIT_CLIPS_PNG"); a != "" {
		b, _ := os.ReadFile(last)
		os.WriteFile(a, b, 0o644)
	}
	// The clip list may go on over a page break: its pages are those
	// after the job's first (the verdict, the figures, the chart).
	bands := 0
	for _, p := range pages[1:] {
		bands += colourBands(t, p, 50)
	}
	require.Equal(t, 3, bands, "thumbnails on the rendered clip pages %s", pages[1:])
}

// colourBands counts runs of rows, 14 to 22 mm high, with colourful
// pixels in the clip list's thumbnail column (15 to 47 mm from the left)
// of a page rendered at dpi.
func colourBands(t *testing.T, pngPath string, dpi float64) int {
	f, err := os.Open(pngPath)
	require.NoError(t, err)
	defer f.Close()
	img, err := png.Decode(f)
	require.NoError(t, err)
	mm := dpi / 25.4
	x0, x1 := int(16*mm), int(46*mm)
	colourful := func(y int, b image.Rectangle) bool {
		n := 0
		for x := x0; x < x1 && x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			hi, lo := max(r, g, bl)>>8, min(r, g, bl)>>8
			if hi-lo > 40 {
				n++
			}
		}
		return n > (x1-x0)/4
	}
	bands, run := 0, 0
	b := img.Bounds()
	for y := b.Min.Y; y <= b.Max.Y; y++ {
		if y < b.Max.Y && colourful(y, b) {
			run++
			continue
		}
		if h := float64(run) / mm; h >= 14 && h <= 22 {
			bands++
		}
		run = 0
	}
	return bands
}

// Without ffmpeg on PATH the same offload passes: the clips are listed
// (from their names), and the reports say there are no thumbnails.
func TestClipsWithoutFFmpeg(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	card := clipCard(t, dir)
	dest := filepath.Join(dir, "raid")
	require.NoError(t, os.Mkdir(dest, 0o755))
	empty := filepath.Join(dir, "bin")
	require.NoError(t, os.Mkdir(empty, 0o755))
	env := []string{"DIT_DB=" + db, "PATH=" + empty, "HOME=" + dir}
	r := e2e.RunDit(t, env, "offload", "--name", "day01", "-d", dest, card)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)

	r = e2e.RunDit(t, env, "job", "show", "1", "--clips", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	var show clipsShow
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &show))
	require.Len(t, show.Cards[0].Clips, 3)
	for _, c := range show.Cards[0].Clips {
		require.Empty(t, c.Thumbnail)
		require.Equal(t, "ffmpeg not found", c.ThumbNote)
		require.True(t, c.Verified)
	}
	r = e2e.RunDit(t, env, "job", "show", "1", "--clips")
	require.Contains(t, r.Stdout, "C0002")
	require.Contains(t, r.Stdout, "- (ffmpeg not found)")
	// Without ffprobe nobody knows how long they are: never "0:00:00".
	require.Contains(t, lineWith(r.Stdout, "C0002"), " unknown ")
	require.Contains(t, r.Stdout, "3 clips, length unknown")
	require.NotContains(t, r.Stdout, "0:00:00")

	reports := filepath.Join(dest, "day01", "reports")
	_, err := os.Stat(filepath.Join(reports, "thumbnails"))
	require.True(t, os.IsNotExist(err), "no thumbnails folder")
	html, err := os.ReadFile(filepath.Join(reports, "dit-report_job1_day01.html"))
	require.NoError(t, err)
	require.Contains(t, string(html), "no thumbnails (ffmpeg not found)")
	require.Contains(t, string(html), "Clips (3)")
	require.Contains(t, lineWith(string(html), ">C0002<"), "<td class=\"num\">unknown</td>")
	if _, err := exec.LookPath("pdftotext"); err == nil {
		out, err := exec.Command("pdftotext", filepath.Join(reports, "dit-report_job1_day01.pdf"), "-").Output()
		require.NoError(t, err)
		require.Contains(t, string(out), "no thumbnails (ffmpeg not found)")
		require.Equal(t, 3, strings.Count(string(out), "unknown"), "three clips of unknown length:\n%s", out)
		require.NotContains(t, string(out), "0:00:00.000")
	}
	// The ASC MHL lists files, as before: no clips in it.
	mhl, _ := filepath.Glob(filepath.Join(dest, "day01", "A001", "ascmhl", "*.mhl"))
	require.Len(t, mhl, 1)
	b, err := os.ReadFile(mhl[0])
	require.NoError(t, err)
	require.Equal(t, 3, strings.Count(string(b), "<hash>"), "one entry per file")
}

// A card dit cannot make sense of is offloaded as files: no clips, the
// reports as for any job (no clip sheet), every file copied.
func TestUnknownCardOffloadsAsFiles(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	card := filepath.Join(dir, "cards", "STUFF")
	for _, f := range []string{"Documents/notes.txt", "Photos/set.png", "backup.zip"} {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(card, f)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(card, f), []byte(f), 0o644))
	}
	dest := filepath.Join(dir, "raid")
	require.NoError(t, os.Mkdir(dest, 0o755))
	r := e2e.Dit(t, db, "offload", "--name", "day01", "-d", dest, card)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	require.NotContains(t, r.Stdout, "_clips.csv")
	copied := e2e.Footage(e2e.Tree(t, filepath.Join(dest, "day01", "STUFF")))
	for p := range copied {
		if strings.HasPrefix(p, "ascmhl/") {
			delete(copied, p) // the hash lists dit writes
		}
	}
	require.Equal(t, e2e.Footage(e2e.Tree(t, card)), copied)
	r = e2e.Dit(t, db, "job", "show", "1", "--clips")
	require.Contains(t, r.Stdout, "no clips recognised: the card is files")
	cat, err := catalog.OpenExisting(db)
	require.NoError(t, err)
	defer cat.Close()
	ks, err := cat.Cards(1)
	require.NoError(t, err)
	cl, err := cat.Clips(ks[0].ID)
	require.NoError(t, err)
	require.Empty(t, cl)
}
