package ui

import (
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/stretchr/testify/require"
)

// entryIn finds the entry whose placeholder starts with prefix in o.
func entryIn(o fyne.CanvasObject, prefix string) *widget.Entry {
	var found *widget.Entry
	walk(o, func(o fyne.CanvasObject) {
		if e, ok := o.(*widget.Entry); ok && found == nil && strings.HasPrefix(e.PlaceHolder, prefix) {
			found = e
		}
	})
	return found
}

// The Offload tab takes a card's and a destination's path typed beside
// their dialog buttons (Enter, or the button beside the entry): no folder
// dialog (the harness fails on one). A path that is not there is said,
// naming it; nothing typed is said too.
func TestOffloadTypedPaths(t *testing.T) {
	dir := t.TempDir()
	cards := genCards(t, dir, 100_000)
	dest := mkdir(t, filepath.Join(dir, "SHUTTLE"))
	h := newHarness(t, nil)
	var errs []string
	h.locked(func() {
		v := h.a.offload
		card := entryIn(v.content, "Or type a card's path")
		require.NotNil(t, card)
		test.Type(card, "  '"+cards[0].Path+"'")
		card.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
		d := entryIn(v.content, "Or type a destination's path")
		require.NotNil(t, d)
		test.Type(d, dest)
		test.Tap(buttonIn(v.content, "Add this destination"))
	})
	h.eventually("the card and the destination read", func() bool {
		v := h.a.offload
		return len(v.cards) == 1 && len(v.dests) == 1 && !v.cards[0].Scanning && !v.dests[0].Loading
	})
	h.locked(func() {
		v := h.a.offload
		require.Equal(t, cards[0].Path, v.cards[0].Path)
		require.Empty(t, v.cards[0].Err)
		require.Equal(t, "A001", v.cards[0].Label)
		require.Equal(t, dest, v.dests[0].Path)
		require.Empty(t, v.dests[0].Err)
		// A typo: the card is listed with why it cannot be read.
		card := entryIn(v.content, "Or type a card's path")
		card.SetText(filepath.Join(dir, "cards", "A00l"))
		card.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	})
	h.eventually("the missing card read", func() bool {
		v := h.a.offload
		return len(v.cards) == 2 && !v.cards[1].Scanning
	})
	h.locked(func() {
		require.Contains(t, h.a.offload.cards[1].Err, filepath.Join(dir, "cards", "A00l"))
		require.Contains(t, texts(h.a.offload.cardBox), "A00l")
		// Nothing typed: said, nothing added.
		f := h.a.newPathField("x", "Use", "", "", func(string) { t.Error("nothing typed was used") })
		f.onErr = func(err error) { errs = append(errs, err.Error()) }
		test.Tap(f.use)
	})
	require.Equal(t, []string{"type a folder's path first (or choose it in the folder dialog)"}, errs)
}
