package ui

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/clips"
	"github.com/dit-org/dit/internal/testcards"
)

// realClip is a clip ffmpeg reads (a poster frame is made of it), added
// to card A001 when ffmpeg is on PATH (not under -short).
const realClip = "A001C099_261122_R1AB"

// addRealClip writes a two-second ProRes clip into the card's CLIPS
// folder; it tells whether it could (ffmpeg found).
func addRealClip(t *testing.T, card string) bool {
	t.Helper()
	if testing.Short() {
		return false // the quick loop runs no ffmpeg
	}
	if _, err := clips.FindFFmpeg(); err != nil {
		return false
	}
	ff, _ := exec.LookPath("ffmpeg")
	out := filepath.Join(card, "CLIPS", realClip+".mov")
	require.NoError(t, os.MkdirAll(filepath.Dir(out), 0o755))
	cmd := exec.CommandContext(context.Background(), ff, "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi",
		"-i", "testsrc=size=640x360:rate=25:duration=2", "-c:v", "prores_ks", "-profile:v", "3", out)
	b, err := cmd.CombinedOutput()
	require.NoError(t, err, string(b))
	return true
}

// A real job on generated ARRI-style cards: once a card is done its panel
// shows the camera, clip count and duration (from the catalog's clips),
// and History lists each card's clips (the catalog's names) with a
// thumbnail or "no thumbnail".
func TestCardPanelAndHistoryShowClips(t *testing.T) {
	raceCoveredElsewhere(t)
	dir := t.TempDir()
	// Mixed: ARRI-style clips (sidecars without a length) and Sony X-OCN
	// frame folders (with one).
	cards, err := testcards.Generate(context.Background(), testcards.Options{Out: filepath.Join(dir, "cards"), Cards: 2,
		Size: 3_000_000, Seed: 7, Style: testcards.StyleMixed})
	require.NoError(t, err)
	real := addRealClip(t, cards[0].Path)
	d1 := mkdir(t, filepath.Join(dir, "d1"))
	h := newHarness(t, nil)
	h.locked(func() {
		h.a.Prepare(Preparation{Name: "clips", Cards: []string{cards[0].Path, cards[1].Path}, Dests: []string{d1}, Start: true})
	})
	h.waitJob()
	require.Equal(t, []string{stateSafe, stateSafe}, h.panelStates())

	// The catalog's clips of each card.
	jobID := h.view().JobID
	recs, err := h.cat.Cards(jobID)
	require.NoError(t, err)
	want := map[string][]catalog.Clip{}
	for _, k := range catalog.FirstRun(recs) {
		rows, err := h.cat.Clips(k.ID)
		require.NoError(t, err)
		require.NotEmpty(t, rows, "card %s has no clips in the catalog", k.Label)
		want[k.Label] = rows
	}

	// The card panels: camera, clip count and duration.
	v := h.view()
	h.locked(func() {
		for i, c := range v.Cards {
			p := h.a.running.panels[i]
			require.NotNil(t, c.Clips, "card %s has no clips in the model", c.Label)
			k := summariseClips(want[c.Label])
			require.Equal(t, len(want[c.Label]), c.Clips.Count)
			require.True(t, p.clips.Visible())
			require.Equal(t, k.text(), p.clips.Text)
			require.Contains(t, p.clips.Text, plural(k.Count, "clip"))
			require.NotEmpty(t, k.Camera, "the sidecars name the camera")
			require.Contains(t, p.clips.Text, k.Camera)
			require.Greater(t, k.Seconds, 0.0, "the X-OCN sidecars give their clips' durations")
			require.NotContains(t, p.clips.Text, "duration unknown")
		}
	})

	// History: the job's clips, by name, with thumbnails where ffmpeg
	// made them.
	h.locked(func() { h.a.selectTab(h.a.history.content) })
	h.eventually("the job in History", func() bool { return len(h.a.history.rows) == 1 })
	h.locked(func() { h.a.history.list.Select(0) })
	h.eventually("the job's detail", func() bool { return h.a.history.open != nil })
	h.locked(func() {
		txt := texts(h.a.history.detail)
		for label, rows := range want {
			require.Contains(t, txt, "Clips: "+summariseClips(rows).text())
			require.Len(t, h.a.history.open.clips[label], len(rows))
			for i, r := range rows {
				require.Equal(t, r.Name, h.a.history.open.clips[label][i].Name)
				require.Contains(t, txt, "\n"+r.Name+"\n")
			}
		}
		var images []*canvas.Image
		walk(h.a.history.detail, func(o fyne.CanvasObject) {
			if img, ok := o.(*canvas.Image); ok && img.MinSize().Width == thumbWidth { // not an icon
				images = append(images, img)
			}
		})
		if real {
			require.Contains(t, txt, "\n"+realClip+"\n")
			require.Len(t, images, 1, "one clip ffmpeg reads: one thumbnail")
			require.NotEmpty(t, h.a.history.open.clips["A001"])
			var jpeg []byte
			for i := range h.a.history.open.clips["A001"] {
				if k := &h.a.history.open.clips["A001"][i]; k.Name == realClip {
					jpeg = k.JPEG()
				}
			}
			require.NotEmpty(t, jpeg, "the real clip's poster frame")
			require.NotEmpty(t, h.a.history.open.clips["A001"])
		} else {
			require.Empty(t, images)
		}
		require.Contains(t, txt, "no thumbnail")
		require.False(t, strings.Contains(txt, "NOT verified"))
	})
}
