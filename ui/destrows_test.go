package ui

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"fyne.io/fyne/v2/widget"
	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/live"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/units"
)

// A card whose copy on d2 reads back other bytes: its panel has a row per
// destination, d1 verified and d2 FAILED in the failure colour, each with
// the bytes the engine counted written and read back there; the other
// card's rows are both verified.
func TestDestRowsShowTheFailingDestination(t *testing.T) {
	raceCoveredElsewhere(t)
	dir := t.TempDir()
	cards := genCards(t, dir, 1_000_000)
	d1, d2 := mkdir(t, filepath.Join(dir, "d1")), mkdir(t, filepath.Join(dir, "d2"))
	var rels []string
	filepath.Walk(cards[0].Path, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() && fi.Size() > 2000 && !strings.Contains(p, "/.") {
			rel, _ := filepath.Rel(cards[0].Path, p)
			rels = append(rels, rel)
		}
		return nil
	})
	require.NotEmpty(t, rels)
	sort.Strings(rels)
	h := newHarness(t, func(c *Config) {
		c.FS = flipFS{FS: fsys.OS{}, match: filepath.Join("d2", "rows", "A001", rels[0])}
	})
	h.locked(func() {
		h.a.Prepare(Preparation{Name: "rows", Cards: []string{cards[0].Path, cards[1].Path}, Dests: []string{d1, d2}, Start: true})
	})
	h.waitJob()
	v := h.view()
	h.locked(func() {
		for i, want := range [][]string{{"Verified", "FAILED (1 file)"}, {"Verified", "Verified"}} {
			p := h.a.running.panels[i]
			prog := v.Cards[i].Prog
			require.Len(t, prog.Dests, 2)
			require.Len(t, p.dests.rows, 2)
			require.True(t, p.dests.box.Visible())
			for di, r := range p.dests.rows {
				dp := prog.Dests[di]
				require.Equal(t, []string{d1, d2}[di], dp.Dest)
				require.Equal(t, shortDest(dp.Dest), r.name.Text)
				require.Equal(t, want[di], r.state.Text, "card %d dest %d", i, di)
				require.Equal(t, "Written "+units.FormatBytes(dp.BytesWritten)+" of "+units.FormatBytes(dp.Bytes), r.written.Text)
				require.Equal(t, "Read back "+units.FormatBytes(dp.BytesVerified)+" of "+units.FormatBytes(dp.VerifyTotal), r.verified.Text)
				require.Equal(t, dp.Bytes, dp.BytesWritten, "every byte reached both destinations")
				require.Equal(t, dp.VerifyTotal, dp.BytesVerified)
				require.Positive(t, dp.BytesWritten)
				if want[di] == "Verified" {
					require.Equal(t, widget.SuccessImportance, r.state.Importance)
				} else {
					require.Equal(t, widget.DangerImportance, r.state.Importance)
					require.Equal(t, offload.DestFailed, dp.State)
				}
			}
		}
	})
}

// A destination that lags reads behind the other in its row, while both
// are writing; one not started is queued with no rate.
func TestDestRowsText(t *testing.T) {
	d := newDestRows()
	d.set([]offload.DestProgress{
		{Dest: "/media/dit/RAID", State: offload.DestWriting, Bytes: 2e9, BytesWritten: 1.5e9, VerifyTotal: 2e9, BytesVerified: 1e9, Rate: 950e6},
		{Dest: "/media/dit/SHUTTLE_WITH_A_LONG_NAME/day01", State: offload.DestWriting, Bytes: 2e9, BytesWritten: 0.3e9, VerifyTotal: 2e9, Rate: 120e6},
		{Dest: "/tmp/x", State: offload.DestQueued, Bytes: 2e9},
	}, false, nil, false)
	got := func(i int) string {
		r := d.rows[i]
		return strings.Join([]string{r.name.Text, r.written.Text, r.verified.Text, r.rate.Text, r.state.Text}, " | ")
	}
	require.Equal(t, "/media/dit/RAID | Written 1.50 GB of 2.00 GB | Read back 1.00 GB of 2.00 GB | 0.950 GB/s | Writing", got(0))
	require.Equal(t, ".../SHUTTLE_WITH_A_LONG_NAME/day01 | Written 300 MB of 2.00 GB | Read back 0 B of 2.00 GB | 0.120 GB/s | Writing", got(1))
	require.Equal(t, "/tmp/x | Written 0 B of 2.00 GB | Not read back |  | Queued", got(2))
	d.set(nil, false, nil, false)
	require.False(t, d.box.Visible())
}

// While a card verifies, its current file reads as the one being read
// back (the engine's, TestCurrentFileWhileVerifyingIsTheOneReadBack).
func TestCurrentFileWhileVerifying(t *testing.T) {
	l := func() *widget.Label { return widget.NewLabel("") }
	b, f, r, cur := l(), l(), l(), l()
	setRun(b, f, r, cur, runState{Prog: offload.CardProgress{Phase: live.Copying, Current: "CLIPS/C003.mov"}}, false, false)
	require.Equal(t, "CLIPS/C003.mov", cur.Text)
	setRun(b, f, r, cur, runState{Prog: offload.CardProgress{Phase: live.Verifying, Current: "CLIPS/C001.mov"}}, false, false)
	require.Equal(t, "Reading back CLIPS/C001.mov", cur.Text)
	require.True(t, cur.Visible())
	setRun(b, f, r, cur, runState{Prog: offload.CardProgress{Phase: live.Done}, Done: true}, false, false)
	require.False(t, cur.Visible())
}

// A destination whose files all read back but whose hash lists could not
// be written reads as failed on its row, in the failure colour, where the
// engine says so (live.DestSealFailed), never "Verified".
func TestDestRowSealFailed(t *testing.T) {
	d := newDestRows()
	d.set([]offload.DestProgress{
		{Dest: "/media/dit/RAID", State: offload.DestVerified, Bytes: 2e9, BytesWritten: 2e9, VerifyTotal: 2e9, BytesVerified: 2e9},
		{Dest: "/media/dit/SHUTTLE", State: live.DestSealFailed, Bytes: 2e9, BytesWritten: 2e9, VerifyTotal: 2e9, BytesVerified: 2e9},
	}, true, nil, false)
	require.Equal(t, "Verified", d.rows[0].state.Text)
	require.Equal(t, widget.SuccessImportance, d.rows[0].state.Importance)
	require.Equal(t, "FAILED (hash lists)", d.rows[1].state.Text)
	require.Equal(t, widget.DangerImportance, d.rows[1].state.Importance)
}
