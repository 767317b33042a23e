package ui

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/clips"
	"github.com/dit-org/dit/internal/testcards"
	"github.com/dit-org/dit/reports/jobreport"
)

// clipGrid is the cells' texts of the History's clip grids (headers
// included), row by row: each row's Clip cell is the clip's name.
func clipGrids(o fyne.CanvasObject) [][]string {
	var out [][]string
	walk(o, func(o fyne.CanvasObject) {
		c, ok := o.(*fyne.Container)
		if !ok {
			return
		}
		if _, ok := c.Layout.(*rowsLayout); !ok || len(c.Objects)%len(clipColumns) != 0 {
			return
		}
		if l, ok := c.Objects[0].(*widget.Label); !ok || l.Text != clipColumns[0] {
			return
		}
		for r := 0; r < len(c.Objects); r += len(clipColumns) {
			var row []string
			for i, cell := range c.Objects[r : r+len(clipColumns)] {
				if l, ok := cell.(*widget.Label); ok {
					row = append(row, l.Text)
				} else if i == 0 {
					// The clip cell: thumbnail, name, details.
					row = append(row, cell.(*fyne.Container).Objects[1].(*widget.Label).Text)
				}
			}
			out = append(out, row)
		}
	})
	return out
}

// A job whose clips carry timecodes (generated ARRI clips: a start, no
// length; Sony X-OCN: a start and frames): History lists each clip with
// TC in, TC out, fps, resolution and codec as the catalog has them,
// "unknown" where nothing tells it, never a zero.
func TestHistoryClipColumns(t *testing.T) {
	raceCoveredElsewhere(t)
	dir := t.TempDir()
	cards, err := testcards.Generate(context.Background(), testcards.Options{Out: filepath.Join(dir, "cards"), Cards: 2,
		Size: 3_000_000, Seed: 7, Style: testcards.StyleMixed})
	require.NoError(t, err)
	d1 := mkdir(t, filepath.Join(dir, "d1"))
	h := newHarness(t, nil)
	h.locked(func() {
		h.a.Prepare(Preparation{Name: "tc", Cards: []string{cards[0].Path, cards[1].Path}, Dests: []string{d1}, Start: true})
	})
	h.waitJob()
	recs, err := h.cat.Cards(h.view().JobID)
	require.NoError(t, err)
	var want [][]string
	tcIn, tcOut := 0, 0
	for _, k := range catalog.FirstRun(recs) {
		rows, err := h.cat.Clips(k.ID)
		require.NoError(t, err)
		want = append(want, clipColumns)
		for _, r := range rows {
			out := clips.TCOut(r.TCStart, r.Frames, r.FPS)
			if r.TCStart != "" {
				tcIn++
			}
			if out != "" {
				tcOut++
			}
			want = append(want, []string{r.Name, orUnknown(r.TCStart), orUnknown(out), orUnknown(r.FPS), orUnknown(r.Resolution), orUnknown(r.Codec)})
		}
	}
	require.Greater(t, tcIn, 0, "the sidecars give start timecodes")
	require.Greater(t, tcOut, 0, "the X-OCN sidecars give lengths: TC out")
	h.locked(func() { h.a.selectTab(h.a.history.content) })
	h.eventually("the job in History", func() bool { return len(h.a.history.rows) == 1 })
	h.locked(func() { h.a.history.list.Select(0) })
	h.eventually("the job's detail", func() bool { return h.a.history.open != nil })
	h.locked(func() {
		got := clipGrids(h.a.history.detail)
		require.Equal(t, want, got)
		for _, row := range got {
			for _, cell := range row[1:] {
				require.NotRegexp(t, `^[0:]+$`, cell, "a zero where nothing is known")
			}
		}
		txt := texts(h.a.history.detail)
		require.Contains(t, txt, "length unknown", "the ARRI clips have no length")
		require.NotContains(t, txt, "0:00:00\n")
	})
}

// goldenClips are a card's clips: one with everything known, one with a
// start timecode only, one with nothing but its name, one not verified.
func goldenClips() []jobreport.Clip {
	return []jobreport.Clip{
		{Name: "A001C001_261122_R1AB", Type: "ProRes", Codec: "Apple ProRes 4444 XQ", Resolution: "4608x3164", FPS: "23.976", Frames: 2880,
			Seconds: 120.12, TCStart: "14:03:11:00", TCEnd: "14:05:11:00", Files: 2, Bytes: 9_400_000_000, Verified: true, ThumbnailNote: "ffmpeg could not read it"},
		{Name: "A001C002_261122_R1AB", Type: "ProRes", Codec: "Apple ProRes 4444 XQ", FPS: "24", TCStart: "14:07:40:00", Files: 2, Bytes: 4_100_000_000, Verified: true},
		{Name: "A001C003_261122_R1AB", Type: "ProRes", Files: 1, Bytes: 900_000_000, Verified: true},
		{Name: "A001C004_261122_R1AB", Type: "X-OCN", Codec: "X-OCN_ST", Resolution: "8640x5760", FPS: "23.98p", Frames: 240, Seconds: 10.01,
			TCStart: "15:00:00:00", TCEnd: "15:00:10:00", Files: 241, Bytes: 12_000_000_000},
	}
}

// History with a card's clips, as drawn (a golden image of the test
// renderer): the columns, "unknown" where nothing tells it.
func TestGoldenHistoryClips(t *testing.T) {
	renderOnly(t)
	skipRendersUnderRace(t)
	h := newHarness(t, nil)
	fillHistory(h)
	h.locked(func() {
		v := h.a.history
		v.open.clips = map[string][]jobreport.Clip{"A001": goldenClips()}
		v.open.thumbNote = "thumbnails: ffmpeg is not installed"
		v.renderDetail()
		h.a.win.Resize(fyne.NewSize(1280, 860))
		grids := clipGrids(v.detail)
		require.Equal(t, []string{"A001C002_261122_R1AB", "14:07:40:00", "unknown", "24", "unknown", "Apple ProRes 4444 XQ"}, grids[2])
		require.Equal(t, []string{"A001C003_261122_R1AB", "unknown", "unknown", "unknown", "unknown", "unknown"}, grids[3])
		txt := texts(v.detail)
		require.Contains(t, txt, "ProRes, 00:02:00:00, 2 files, 9.40 GB, no thumbnail: ffmpeg could not read it")
		require.Contains(t, txt, "ProRes, length unknown, 1 file, 900 MB")
		require.Contains(t, txt, "NOT verified")
		// Scrolled to the clips.
		walk(h.a.history.content, func(o fyne.CanvasObject) {
			if s, ok := o.(*container.Scroll); ok && strings.Contains(texts(s.Content), "A001C001") {
				s.ScrollToOffset(fyne.NewPos(0, 330))
			}
		})
		test.AssertImageMatches(t, "history-clips.png", h.a.win.Canvas().Capture())
	})
}
