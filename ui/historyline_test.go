package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/verdict"
)

// drawnText is the text a label draws (its lines joined by spaces).
func drawnText(l *widget.Label) string {
	var parts []string
	for _, o := range test.LaidOutObjects(l) {
		if t, ok := o.(*canvas.Text); ok && o.Visible() && t.Text != "" {
			parts = append(parts, strings.TrimSpace(t.Text))
		}
	}
	return strings.Join(parts, " ")
}

// At 1280x720 History's destination line of a card reads whole, its
// failed count included, however long the destination's path.
func TestHistoryDestLineReadsWhole(t *testing.T) {
	raceCoveredElsewhere(t)
	h := newHarness(t, nil)
	long := "/media/dit/SHUTTLE_SAMSUNG_T7_2TB_NUMBER_3/2026-11-27_day01_second_unit_B_camera/A002"
	sum := &offload.Summary{JobFigures: offload.JobFigures{Files: 17, Bytes: 7e9, Failed: 1}, JobID: 7, Name: "day01", Status: verdict.Failed, Started: t0, Hashes: "xxh64", Verify: "dest", Destinations: []string{"/media/dit/RAID", "/media/dit/SHUTTLE"}, Cards: []offload.CardSummary{{CardFigures: offload.CardFigures{Label: "A002", Status: verdict.Failed, Files: 17, Bytes: 7e9, Failed: 1, Verdict: "FAILED: NOT safe to format"}, Path: "/media/dit/A002", Destinations: []offload.DestSummary{
		{Path: "/media/dit/RAID/2026-11-27_day01_second_unit_B_camera/A002", Verified: 17},
		{Path: long, Verified: 16, Failed: 1}}}}}
	h.locked(func() {
		h.a.win.Resize(fyne.NewSize(1280, 720))
		v := h.a.history
		v.rows = []jobRow{{ID: 7, Name: "day01", State: "failed", Started: t0, Cards: 1, Files: 17, Failed: 1, Bytes: 7e9}}
		v.list.Refresh()
		v.selected = 7
		v.open = &jobDetail{sum: sum}
		v.renderDetail()
		h.a.tabs.SelectIndex(2)
		v.seq++ // drop the read of the empty catalog the tab started
	})
	h.locked(func() {
		var lines []*widget.Label
		walk(h.a.history.detail, func(o fyne.CanvasObject) {
			if l, ok := o.(*widget.Label); ok && strings.Contains(l.Text, " skipped") {
				lines = append(lines, l)
			}
		})
		require.Len(t, lines, 2)
		require.Equal(t, long+": 16 verified, 0 copied, 1 failed, 0 skipped", lines[1].Text)
		require.Equal(t, widget.DangerImportance, lines[1].Importance)
		win := h.a.win.Canvas().Size()
		for _, l := range lines {
			got := drawnText(l)
			require.NotContains(t, got, "…")
			require.Equal(t, strings.Join(strings.Fields(l.Text), ""), strings.Join(strings.Fields(got), ""), "the whole line is drawn")
			pos := fyne.CurrentApp().Driver().AbsolutePositionForObject(l)
			require.LessOrEqual(t, pos.X+l.Size().Width, win.Width, "the line is inside the window")
			require.Positive(t, l.Size().Width)
		}
	})
}
