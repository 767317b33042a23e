package reports

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
)

// The reference job as make demo runs it, on smaller cards: two
// generated cards of real clips (dit testdata cards --video) offloaded at
// once to a 4-blade RAID 4 array and a shuttle folder, every copy read
// back, verified again, then the PDF report. pdfimages counts one poster
// frame a clip in it, and dit job show --clips gives each clip the start
// and end timecodes and the codec ffprobe reads in the card's file.
func TestReferenceJobHasThumbnails(t *testing.T) {
	for _, tool := range []string{"ffmpeg", "ffprobe", "pdfimages"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed (Debian: apt-get install ffmpeg poppler-utils)", tool)
		}
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	cards := filepath.Join(dir, "cards")
	r := e2e.Dit(t, db, "testdata", "cards", "--out", cards, "--cards", "2", "--size", "40MB", "--seed", "1", "--video")
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	require.Empty(t, r.Stderr, "no note: ffmpeg made the clips")
	movies, _ := filepath.Glob(filepath.Join(cards, "A00?", "CLIPS", "A*.mov")) // not the AppleDouble ._ files
	require.GreaterOrEqual(t, len(movies), 6, "3 to 8 clips a card")

	blades := e2e.NewBladeArray(t, db, dir, 4, "--level", "4", "--label", "demo-raid")
	shuttle := filepath.Join(dir, "shuttle")
	require.NoError(t, os.Mkdir(shuttle, 0o755))
	r = e2e.Dit(t, db, "offload", "--name", "demo", "--hash", "xxh64,md5", "-d", blades[0], "-d", shuttle,
		filepath.Join(cards, "A001"), filepath.Join(cards, "A002"))
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	r = e2e.Dit(t, db, "verify", "1")
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	pdf := filepath.Join(dir, "report.pdf")
	r = e2e.Dit(t, db, "report", "1", "--format", "pdf", "--out", pdf)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	require.Equal(t, len(movies), pdfJPEGs(t, pdf), "a poster frame a clip in the PDF")

	r = e2e.Dit(t, db, "job", "show", "1", "--clips", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	var show struct {
		Cards []struct {
			Label string
			Clips []struct {
				Name, Codec, Thumbnail string
				TCStart                string `json:"tc_start"`
				TCEnd                  string `json:"tc_end"`
				SourceFile             string `json:"source_file"`
				Note                   string `json:"thumbnail_note"`
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &show))
	require.Len(t, show.Cards, 2)
	n := 0
	for _, c := range show.Cards {
		for _, k := range c.Clips {
			n++
			w := ffprobeClip(t, filepath.Join(cards, c.Label, filepath.FromSlash(k.SourceFile)))
			require.Equal(t, w.name, k.Name)
			require.Equal(t, w.tcIn, k.TCStart, k.Name)
			require.Equal(t, w.tcOut, k.TCEnd, k.Name)
			require.Equal(t, "prores", w.codecName, k.Name)
			require.Contains(t, k.Codec, "ProRes 4444 "+w.profile, k.Name)
			require.Equal(t, "thumbnails/"+c.Label+"/"+k.Name+".jpg", k.Thumbnail, k.Note)
		}
	}
	require.Equal(t, len(movies), n, "a clip a movie")
}

// Without ffmpeg, dit testdata cards --video says so and writes the
// cards anyway, their movies pseudo-random bytes (make demo still runs
// on a machine without ffmpeg).
func TestTestdataVideoWithoutFFmpeg(t *testing.T) {
	dir := t.TempDir()
	cards := filepath.Join(dir, "cards")
	env := append(os.Environ(), "DIT_DB="+filepath.Join(dir, "catalog.db"), "PATH="+filepath.Join(dir, "no-tools"))
	r := e2e.RunDit(t, env, "testdata", "cards", "--out", cards, "--cards", "1", "--size", "2MB", "--video")
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	require.Contains(t, r.Stderr, "dit: note: --video: ffmpeg not found on PATH")
	require.Contains(t, r.Stderr, "no thumbnails")
	require.Contains(t, r.Stdout, filepath.Join(cards, "A001")+"\t")
	movies, _ := filepath.Glob(filepath.Join(cards, "A001", "CLIPS", "A*.mov"))
	require.NotEmpty(t, movies)
}
