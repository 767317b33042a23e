package ui

import (
	"os"
	"path/filepath"
	"testing"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/watch"
)

// The Offload view lists the camera cards among the mounted volumes (as
// dit watch recognises them; not a plain drive, not a destination of the
// form), and one click adds one to the form.
func TestMountedCardsOneClickAdd(t *testing.T) {
	dir := t.TempDir()
	cards := genCards(t, dir, 100_000) // dir/cards/A001, A002
	vols := filepath.Join(dir, "cards")
	plain := mkdir(t, filepath.Join(vols, "BACKUP"))
	require.NoError(t, os.WriteFile(filepath.Join(plain, "notes.txt"), []byte("x"), 0o644))
	dest := mkdir(t, filepath.Join(vols, "SHUTTLE"))
	mkdir(t, filepath.Join(dest, "CLIPS")) // looks like a card, but it is the form's destination
	h := newHarness(t, func(c *Config) { c.Volumes = watch.Dir(vols) })
	h.locked(func() { h.a.offload.addDest(dest) })
	h.eventually("the destination added", func() bool { return len(h.a.offload.dests) == 1 })
	h.a.LookForCards()
	h.eventually("the mounted cards listed", func() bool { return h.a.offload.mounted.seq > 0 && len(h.a.offload.mounted.found) > 0 })
	h.a.bg.Wait()
	var add *widget.Button
	h.locked(func() {
		m := h.a.offload.mounted
		require.Len(t, m.found, 2)
		for i, c := range cards {
			require.Equal(t, c.Path, m.found[i].Path)
			require.Equal(t, c.Label, m.found[i].Label)
		}
		require.Contains(t, m.found[0].Why, "CLIPS")
		text := texts(m.box)
		require.NotContains(t, text, "BACKUP")
		require.NotContains(t, text, "SHUTTLE")
		add = buttonIn(m.rows.Objects[0], "Add")
		require.NotNil(t, add)
		test.Tap(add)
	})
	h.eventually("the card in the form", func() bool { return len(h.a.offload.cards) == 1 })
	h.locked(func() {
		require.Equal(t, cards[0].Path, h.a.offload.cards[0].Path)
		m := h.a.offload.mounted
		require.NotNil(t, buttonIn(m.rows.Objects[0], "Added"))
		require.True(t, buttonIn(m.rows.Objects[0], "Added").Disabled())
		require.False(t, buttonIn(m.rows.Objects[1], "Add").Disabled())
	})
}

// With no camera card mounted, the list says so.
func TestMountedCardsNone(t *testing.T) {
	dir := t.TempDir()
	mkdir(t, filepath.Join(dir, "vols", "EMPTY"))
	h := newHarness(t, func(c *Config) { c.Volumes = watch.Dir(filepath.Join(dir, "vols")) })
	h.a.LookForCards()
	h.a.bg.Wait()
	h.eventually("the look done", func() bool { return h.a.offload.mounted.note.Text == "No camera card among the mounted volumes." })
}
