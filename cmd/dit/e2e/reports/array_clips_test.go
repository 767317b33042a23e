package reports

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
)

// A job that goes only to a 3-blade dit array: its clips are read from
// the array (never the card, which is gone once offloaded), so they get
// their timecode and codec from ffprobe and a poster frame each, stored
// in the array with the job's reports; the PDF in the array holds them,
// and so does one dit report writes later.
func TestArrayOnlyJobHasThumbnails(t *testing.T) {
	if _, err := exec.LookPath("pdfimages"); err != nil {
		t.Skip("pdfimages not installed (Debian: poppler-utils)")
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	card, want := tcCard(t, dir)
	blades := e2e.NewBladeArray(t, db, dir, 3, "--level", "4", "--stripe-unit", "64KiB", "--label", "cart")
	r := e2e.Dit(t, db, "offload", "--name", "day01", "-d", blades[0], card)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	// The card is gone: what follows can only come from the array.
	require.NoError(t, os.RemoveAll(card))

	r = e2e.Dit(t, db, "job", "show", "1", "--clips", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	var show struct {
		Cards []struct {
			Clips []struct {
				Name, Codec, Thumbnail string
				TCStart                string `json:"tc_start"`
				Note                   string `json:"thumbnail_note"`
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &show))
	got := show.Cards[0].Clips
	require.Len(t, got, len(want))
	for i, w := range want {
		require.Equal(t, w.tcIn, got[i].TCStart, got[i].Name)
		require.Contains(t, got[i].Codec, codecWord[w.codecName])
		require.Equal(t, "thumbnails/A001/"+w.name+".jpg", got[i].Thumbnail, got[i].Note)
	}

	out := filepath.Join(dir, "out")
	r = e2e.Dit(t, db, "array", "extract", "array:"+blades[0]+"//day01/reports", "--to", out)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	var pdfs []string
	filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Name() == "dit-report_job1_day01.pdf" {
			pdfs = append(pdfs, p)
		}
		return nil
	})
	require.Len(t, pdfs, 1, "the PDF in the array: %s", r.Stdout)
	thumbs, _ := filepath.Glob(filepath.Join(filepath.Dir(pdfs[0]), "thumbnails", "A001", "*.jpg"))
	require.Len(t, thumbs, len(want), "the poster frames in the array")
	require.Equal(t, len(want), pdfJPEGs(t, pdfs[0]), "poster frames in the array's PDF")

	later := filepath.Join(dir, "later.pdf")
	r = e2e.Dit(t, db, "report", "1", "--out", later)
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Equal(t, len(want), pdfJPEGs(t, later), "poster frames in a PDF dit report writes later")
}

// pdfJPEGs counts the JPEG images pdfimages -list finds in a PDF.
func pdfJPEGs(t *testing.T, pdf string) int {
	out, err := exec.Command("pdfimages", "-list", pdf).Output()
	require.NoError(t, err)
	n := 0
	for _, l := range strings.Split(string(out), "\n") {
		if f := strings.Fields(l); len(f) > 8 && f[8] == "jpeg" {
			n++
		}
	}
	return n
}
