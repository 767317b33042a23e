package ui

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"fyne.io/fyne/v2/test"
	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/fsys"
)

// retryFS flips a byte of the copy at victim the first time it is read
// back (a destination that returned other bytes once), and records every
// file opened under cards (the reads of the cards).
type retryFS struct {
	fsys.FS
	victim, cards string
	mu            sync.Mutex
	flipped       bool
	read          map[string]int
}

func (f *retryFS) OpenNoCache(name string) (fsys.File, error) {
	f.mu.Lock()
	flip := !f.flipped && name == f.victim
	f.flipped = f.flipped || flip
	f.mu.Unlock()
	if flip {
		if fh, err := os.OpenFile(name, os.O_RDWR, 0); err == nil {
			var b [1]byte
			fh.ReadAt(b[:], 1000)
			b[0] ^= 0x01
			fh.WriteAt(b[:], 1000)
			fh.Close()
		}
	}
	return f.FS.OpenNoCache(name)
}

func (f *retryFS) Open(name string) (fsys.File, error) {
	if rel, err := filepath.Rel(f.cards, name); err == nil && !strings.HasPrefix(rel, "..") {
		f.mu.Lock()
		f.read[filepath.ToSlash(rel)]++
		f.mu.Unlock()
	}
	return f.FS.Open(name)
}

func (f *retryFS) cardReads() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for p := range f.read {
		out = append(out, p)
	}
	sort.Strings(out)
	f.read = map[string]int{}
	return out
}

// A job whose copy of one file on d2 read back wrong ends failed; History's
// "Retry failed files" reads only that file from its card again, and the
// job ends with every card safe to format.
func TestRetryFailedFilesReadsOnlyThem(t *testing.T) {
	raceCoveredElsewhere(t)
	dir := t.TempDir()
	cards := genCards(t, dir, 1_000_000)
	d1, d2 := mkdir(t, filepath.Join(dir, "d1")), mkdir(t, filepath.Join(dir, "d2"))
	var rels []string
	filepath.Walk(cards[0].Path, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() && fi.Size() > 2000 && !strings.Contains(p, "/.") {
			rel, _ := filepath.Rel(cards[0].Path, p)
			rels = append(rels, filepath.ToSlash(rel))
		}
		return nil
	})
	require.NotEmpty(t, rels)
	sort.Strings(rels)
	victim := rels[0]
	fs := &retryFS{FS: fsys.OS{}, cards: filepath.Dir(cards[0].Path), read: map[string]int{},
		victim: filepath.Join(d2, "retry", "A001", filepath.FromSlash(victim))}
	h := newHarness(t, func(c *Config) { c.FS = fs })
	h.locked(func() {
		h.a.Prepare(Preparation{Name: "retry", Cards: []string{cards[0].Path, cards[1].Path}, Dests: []string{d1, d2}, Start: true})
	})
	h.waitJob()
	require.Equal(t, []string{stateFailed, stateSafe}, h.panelStates())
	// The failure is on the banner (the job's notification, A001's).
	h.eventually("A001's failure on the banner", func() bool {
		return strings.Contains(h.a.banner.text(), "card A001 FAILED: NOT safe to format")
	})
	first := fs.cardReads()
	require.Contains(t, first, "A001/"+victim)
	require.Greater(t, len(first), 2, "the first run read every file of both cards")

	h.locked(func() { h.a.selectTab(h.a.history.content) })
	h.eventually("the job in History", func() bool { return len(h.a.history.rows) == 1 })
	h.locked(func() { h.a.history.list.Select(0) })
	h.eventually("the job's detail", func() bool {
		return h.a.history.open != nil && buttonIn(h.a.history.detail, "Retry failed files") != nil
	})
	h.locked(func() { test.Tap(buttonIn(h.a.history.detail, "Retry failed files")) })
	h.eventually("the retried job to end safe to format", func() bool {
		r := h.a.running.run
		if r == nil || !r.finished() || h.a.offload.busy {
			return false
		}
		for _, p := range h.a.running.panels {
			if p.state.Text != stateSafe {
				return false
			}
		}
		return true
	})
	require.Equal(t, []string{"A001/" + victim}, fs.cardReads(), "only the failed file was read from a card again")
	// The banner follows the verdict: A001 is safe now, so what it said
	// of A001's failure is gone (the verdict came before the job's end).
	h.locked(func() {
		require.NotContains(t, h.a.banner.text(), "A001", "no stale failure notice after a successful retry")
		require.NotContains(t, h.a.banner.text(), "FAILED")
	})
	got, err := os.ReadFile(filepath.Join(d2, "retry", "A001", filepath.FromSlash(victim)))
	require.NoError(t, err)
	want, err := os.ReadFile(filepath.Join(cards[0].Path, filepath.FromSlash(victim)))
	require.NoError(t, err)
	require.Equal(t, want, got, "the copy on d2 is the card's file again")
}

// dit-gui --demo-fail: the demo's second card fails on the shuttle (a
// different file where one of its clips goes), the first is safe.
func TestDemoSpoiledFailsTheSecondCard(t *testing.T) {
	raceCoveredElsewhere(t)
	h := newHarness(t, nil)
	d, err := PrepareDemo(context.Background(), filepath.Join(h.dir, "demo"), 1_000_000)
	require.NoError(t, err)
	spoiled, err := d.Spoil("demo")
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(spoiled, filepath.Join(d.Dests[1], "demo", "A002")+string(filepath.Separator)), spoiled)
	h.locked(func() {
		h.a.Prepare(Preparation{Name: "demo", Cards: d.Cards, Dests: d.Dests, Start: true})
	})
	h.waitJob()
	require.Equal(t, []string{stateSafe, stateFailed}, h.panelStates())
	var fail string
	h.locked(func() { fail = h.a.running.panels[1].failures.Text })
	require.Contains(t, fail, "a different file already exists at "+spoiled)
	b, err := os.ReadFile(spoiled)
	require.NoError(t, err)
	require.Equal(t, "an older file of the same name\n", string(b), "never overwritten")
}
