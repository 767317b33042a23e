package ui

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/offload"
)

// fullFS refuses to create the clips (.mov) of the card folder under
// under: a destination that fills up on them.
type fullFS struct {
	fsys.FS
	under string
}

func (f fullFS) CreateTemp(dir, pattern string) (fsys.WFile, error) {
	if strings.HasPrefix(dir, f.under) && strings.Contains(pattern, ".mov.") {
		return nil, errors.New("no space left on device")
	}
	return f.FS.CreateTemp(dir, pattern)
}

// A card whose clips fail on one destination and whose hash lists cannot
// be written there either: the destination's row, the card's tile, its
// details and History all count the failed files with the engine's one
// figure (the summary's Failed, the live model's FilesFailed before:
// equal), and the hash lists are said apart, not as one more file (they
// once read "FAILED (6 files)" on the row and "7 files failed" on the
// card).
func TestFailedFilesCountedOnceEverywhere(t *testing.T) {
	raceCoveredElsewhere(t)
	dir := t.TempDir()
	cards := genCards(t, dir, 2_000_000)
	d1 := mkdir(t, filepath.Join(dir, "d1"))
	d2 := mkdir(t, filepath.Join(dir, "d2"))
	cardDir := filepath.Join(d2, "hl", "A001")
	mkdir(t, cardDir)
	require.NoError(t, os.WriteFile(filepath.Join(cardDir, "ascmhl"), []byte("not a folder\n"), 0o644))
	h := newHarness(t, func(c *Config) { c.FS = fullFS{FS: fsys.OS{}, under: cardDir} })
	h.locked(func() {
		h.a.Prepare(Preparation{Name: "hl", Cards: []string{cards[0].Path}, Dests: []string{d1, d2}, Start: true})
	})
	h.waitJob()
	require.Equal(t, []string{stateFailed}, h.panelStates())
	sum, err := offload.LoadSummary(h.cat, h.view().JobID)
	require.NoError(t, err)
	cs := sum.Cards[0]
	require.Equal(t, 6, cs.Failed, "the engine's figure: the 6 clips")
	require.Len(t, cs.Failures, 7, "the clips and the hash lists")
	var hashLists offload.Failure
	for _, f := range cs.Failures {
		if !strings.HasSuffix(f.Path, ".mov") {
			hashLists = f
		}
	}
	require.Contains(t, hashLists.Error, "hash lists not written in "+cardDir)
	h.locked(func() {
		p := h.a.running.panels[0]
		require.Equal(t, 6, p.last.failedFiles())
		require.Equal(t, 6, p.last.Prog.FilesFailed, "the live model said the same")
		var row string
		for _, r := range p.dests.rows {
			if r.state.Text != "Verified" {
				row = r.state.Text
			}
		}
		require.Equal(t, "FAILED (6 files)", row)
		require.Equal(t, "Files 13 of 13 done, 6 failed", p.files.Text)
		require.True(t, strings.HasPrefix(p.failShort.Text, "6 files failed: CLIPS/A001C00"), p.failShort.Text)
		p.setMore(true)
		p.set(p.last, h.a.running.run.modelOrNil().view())
		require.True(t, strings.HasPrefix(p.failures.Text, "6 files failed:\n"), p.failures.Text)
		require.Contains(t, p.failures.Text, "\n"+hashLists.Path+": hash lists not written in "+cardDir)
		require.Equal(t, 7, strings.Count(p.failures.Text, "\n"), "6 files and the hash lists, one line each")
	})
	// History: the same count.
	h.locked(func() { h.a.selectTab(h.a.history.content) })
	h.eventually("the job in History", func() bool { return len(h.a.history.rows) == 1 })
	h.locked(func() { h.a.history.list.Select(0) })
	h.eventually("the job's detail", func() bool { return h.a.history.open != nil })
	h.locked(func() {
		txt := texts(h.a.history.detail)
		require.Contains(t, txt, "6 files failed:\n")
		require.NotContains(t, txt, "7 files failed")
		require.Contains(t, txt, ": 7 verified, 0 copied, 6 failed, 0 skipped", "the destination's row: the same 6")
	})
}
