package jobreport

import (
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// printReport is resumedReport with clips at the rates sets shoot at
// (23.976, 25, 29.97 drop-frame, 59.94 drop-frame) on its first card, and
// destinations with long paths.
func printReport() *Report {
	r := resumedReport()
	long := "/Volumes/SHUTTLE_DRIVE_01/PROJECT_NAME_2026_FEATURE/OFFLOADS/CAMERA_ORIGINALS/RAID/Day 14 Main Unit"
	r.Destinations[0].Path = long
	r.Cards[0].Destinations[0].Path = long + "/A001"
	rates := []struct{ fps, in, out string }{
		{"23.976", "01:00:00:00", "01:00:02:00"}, {"25", "23:59:58:12", "00:00:00:12"},
		{"29.97", "10:00:00;00", "10:00:02;00"}, {"59.94", "11:59:59;58", "12:00:01;58"},
	}
	for i, x := range rates {
		r.Cards[0].Clips = append(r.Cards[0].Clips, Clip{Name: fmt.Sprintf("A001C%03d_230512_R2EC_LONG_NAME", i+1), Reel: "A001",
			Camera: "ARRI ALEXA 35", Type: "ProRes", Codec: "ProRes 422 HQ", Resolution: "4608x3164", FPS: x.fps, Frames: 48,
			TCStart: x.in, TCEnd: x.out, SourceFile: fmt.Sprintf("A001C%03d.mov", i+1), Files: 2, Bytes: 1_234_567_890, Verified: true})
	}
	return r
}

// The PDF's text holds every frame rate, timecode and size of the clip
// table whole (never "29.9" and "7" on two lines), and a long destination
// path breaks only after a folder's separator.
func TestPDFNeverSplitsFiguresAndBreaksPathsAtSeparators(t *testing.T) {
	r := printReport()
	pages := pdfAllTextLines(t, writePDF(t, r))
	var words []string
	for _, p := range pages {
		words = append(words, strings.Fields(p)...)
	}
	for _, k := range r.Cards[0].Clips {
		for _, v := range []string{k.FPS, k.TCStart, k.TCEnd, k.Resolution, k.Duration()} {
			require.Contains(t, words, v, "%s: %q whole in the PDF's text", k.Name, v)
		}
	}
	text := strings.Join(pages, "\n")
	require.Contains(t, text, "1.23 GB", "a size with its unit on one line")
	// The long path: its lines, joined, give it back; each but the last
	// ends with a separator (or at a space of the path).
	path := r.Destinations[0].Path
	found := false
	lines := strings.Split(text, "\n")
	for i := range lines {
		if !strings.HasPrefix(path, lines[i]) || len(lines[i]) < 10 {
			continue
		}
		got, j := "", i
		for ; j < len(lines) && strings.HasPrefix(path, got+lines[j]) && len(got) < len(path); j++ {
			if got != "" && !strings.HasSuffix(got, "/") {
				got += " " // a line broken at a space of the path
				require.True(t, strings.HasPrefix(path, got+lines[j]), "the path broken inside a name: %q then %q", got, lines[j])
			}
			got += lines[j]
		}
		if strings.HasPrefix(got, path) {
			found = true
		}
	}
	require.True(t, found, "the destination's path broken only at separators and spaces:\n%s", text)
}

// pdfAllTextLines is the PDF's text by pdftotext -raw, page by page, its
// lines kept (trimmed).
func pdfAllTextLines(t *testing.T, path string) []string {
	t.Helper()
	pages := pdfRawPages(t, path)
	for i, p := range pages {
		ls := strings.Split(p, "\n")
		for j := range ls {
			ls[j] = strings.TrimSpace(ls[j])
		}
		pages[i] = strings.Join(slices.DeleteFunc(ls, func(s string) bool { return s == "" }), "\n")
	}
	return pages
}

// pdfRawPages is the PDF's text by pdftotext -raw, page by page.
func pdfRawPages(t *testing.T, path string) []string {
	t.Helper()
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Skip("pdftotext not installed (Debian: apt-get install poppler-utils)")
	}
	out, err := exec.Command("pdftotext", "-raw", path, "-").Output()
	require.NoError(t, err)
	return strings.Split(string(out), "\f")
}

// Clips whose names and source files are 255 bytes with no place to break
// (the longest name a card holds) squeeze the other columns to nothing:
// the PDF is still written, each squeezed cell a character a line, and
// never a line of nothing again and again (that ate the machine's memory
// after the verdict of a job with such names).
func TestPDFOfClipsWith255ByteNames(t *testing.T) {
	r := printReport()
	for i := range r.Cards[0].Clips {
		c := &r.Cards[0].Clips[i]
		c.Name = strings.Repeat("n", 251) + ".mov"
		c.SourceFile = strings.Repeat("東", 85)
		c.Reel = strings.Repeat("R", 255)
	}
	var b strings.Builder
	require.NoError(t, r.WritePDF(&b))
	require.True(t, strings.HasPrefix(b.String(), "%PDF-"), "a PDF")
	require.Less(t, b.Len(), 20<<20, "a few pages, not an endless column of empty lines")
}
