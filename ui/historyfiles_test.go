package ui

import (
	"fmt"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/units"
)

// bigCard is file i of bigCardJob's card: its path, size, state and its
// copies' states on the two destinations ("-": no copy there).
func bigCardFile(i int) (rel string, size int64, state string, on [2]string) {
	rel, size, state = fmt.Sprintf("A001/FRAMES/A001_%06d.ari", i), int64(i)*1000+512, "verified"
	on = [2]string{"verified", "verified"}
	if i%3 == 1 {
		on[1] = "copied"
	}
	if i%7 == 3 {
		on[1] = "-"
	}
	if i%97 == 13 {
		state, on[0] = "failed", "failed"
	}
	return rel, size, state, on
}

// bigCardJob records a done job of one card of n files (bigCardFile) on
// two destinations, as an offload records them.
func bigCardJob(t *testing.T, cat *catalog.Catalog, n int) {
	t.Helper()
	j := &catalog.Job{Name: "frames", State: catalog.JobDone, Hashes: "xxh64", VerifyMode: "dest", VerifyHashes: "fastest",
		Layout: "{job}/{card}", OnConflict: "fail", Started: t0, Finished: t0.Add(20 * 60e9)}
	require.NoError(t, cat.CreateJob(j))
	var ds []*catalog.Dest
	for seq, p := range []string{"/Volumes/RAID", "/Volumes/SHUTTLE"} {
		d := &catalog.Dest{JobID: j.ID, Seq: seq, Path: p, Hop: 1}
		require.NoError(t, cat.AddDest(d))
		ds = append(ds, d)
	}
	k := &catalog.Card{JobID: j.ID, Label: "A001", Path: "/Volumes/A001", State: "failed", Hop: 1, Files: n}
	require.NoError(t, cat.AddCard(k))
	for i := range n {
		rel, size, state, on := bigCardFile(i)
		k.Bytes += size
		cat.PutFile(&catalog.File{CardID: k.ID, Rel: rel, Size: size, State: state})
		for s, d := range ds {
			if on[s] != "-" {
				cat.PutCopy(k.ID, rel, &catalog.Copy{DestID: d.ID, Path: "frames/A001/" + rel, State: on[s]})
			}
		}
	}
	require.NoError(t, cat.Flush())
}

// The History's files of a card of 5,000 frames: the count is there at
// once, each row shows "…" until its page is read, then the file's path,
// size, state and state on each destination, at the start, the middle
// (reached by a jump) and the end of the card, scrolled down page after
// page and back up; the table never holds more than filePagesHeld pages
// of filePageRows files.
func TestHistoryFilesOfABigCardInPages(t *testing.T) {
	const n = 5000
	h := newHarness(t, nil)
	bigCardJob(t, h.cat, n)
	h.locked(func() { h.a.selectTab(h.a.history.content) })
	h.eventually("the job in History", func() bool { return len(h.a.history.rows) == 1 })
	h.locked(func() { h.a.history.list.Select(0) })
	h.eventually("the job's detail", func() bool { return h.a.history.open != nil })
	h.locked(func() { test.Tap(buttonsIn(h.a.history.detail, "Files")[0]) })
	h.eventually("the card's files counted", func() bool { return h.a.history.files != nil })
	v := h.a.history
	h.locked(func() {
		require.Equal(t, n, v.files.count)
		require.Equal(t, "A001: 5000 files (destination 1 = /Volumes/RAID, destination 2 = /Volumes/SHUTTLE)", v.filesL.Text)
		rows, cols := v.table.Length()
		require.Equal(t, [2]int{n, 5}, [2]int{rows, cols})
	})
	waited := 0 // rows looked at before their page was read
	look := func(row int) {
		t.Helper()
		rel, _, _, _ := bigCardFile(row)
		h.locked(func() {
			v.table.ScrollTo(widget.TableCellID{Row: row, Col: 0})
			if v.files.pages[row/filePageRows] == nil {
				// Its read answers on the UI goroutine, held here.
				shown := texts(v.table)
				require.Contains(t, shown, "…\n", "row %d before its page", row)
				require.NotContains(t, shown, rel+"\n")
				waited++
			}
		})
		h.eventually(fmt.Sprintf("row %d shown", row), func() bool { return strings.Contains(texts(v.table), rel+"\n") })
		h.locked(func() {
			cell := widget.NewLabel("")
			got := make([]string, 5)
			for c := range got {
				v.fileCell(widget.TableCellID{Row: row, Col: c}, cell)
				got[c] = cell.Text
			}
			rel, size, state, on := bigCardFile(row)
			require.Equal(t, []string{rel, units.FormatBytes(size), state, on[0], on[1]}, got, "row %d", row)
			held := 0
			for _, p := range v.files.pages {
				held += len(p)
			}
			require.LessOrEqual(t, len(v.files.pages), filePagesHeld, "pages held")
			require.LessOrEqual(t, held, filePagesHeld*filePageRows, "files held")
		})
	}
	for _, row := range []int{0, 1, 99, 100, 150, 2500, 2543, 2650, 4999, 4901, 4800, 13, 1} {
		look(row)
	}
	// Down through the card a page at a time, then a jump back.
	for row := 3000; row < 3900; row += 90 {
		look(row)
	}
	look(2222)
	require.GreaterOrEqual(t, waited, 10, "rows on pages not held yet")
}
