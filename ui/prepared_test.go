package ui

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// What the assembly says before the start (Prepared.Warnings: here a
// destination drive that reports media errors, through the smartctl
// runner's fixture) is shown at the top of the running job's view from
// its first render, stays there after the job, and is said in the
// Offload view; the job still copies (the check warns, it does not
// refuse).
func TestPreparedWarningsShown(t *testing.T) {
	raceCoveredElsewhere(t)
	dir := t.TempDir()
	cards := genCards(t, dir, 1_000_000)
	dest := mkdir(t, filepath.Join(dir, "Shuttle 1"))
	var firstRender []string
	h := newHarness(t, func(c *Config) {
		fakeDrives(c, []string{dest}, []string{"nvme-blade-worn-media-errors.json"})
	})
	h.locked(func() {
		h.a.Prepare(Preparation{Name: "worn", Cards: []string{cards[0].Path}, Dests: []string{dest}, Start: true})
	})
	h.eventually("the job bound to the running view", func() bool {
		if h.a.running.run == nil {
			return false
		}
		if firstRender == nil {
			firstRender = strings.Split(h.a.running.prepL.Text, "\n")
		}
		return true
	})
	require.Equal(t, "Before the start:", firstRender[0], "shown as the job is bound, before it copies")
	h.waitJob()
	require.Equal(t, []string{stateSafe}, h.panelStates())
	h.locked(func() {
		p := h.a.running.prepL
		require.True(t, p.Visible())
		require.Contains(t, p.Text, "Warning: the drive of "+dest+" (/dev/nvme1 ")
		require.Contains(t, p.Text, "17 media error(s)")
		require.Contains(t, p.Text, "copying anyway; replace it soon")
		require.Equal(t, firstRender, strings.Split(p.Text, "\n"), "kept in the job's view")
		require.Contains(t, h.a.offload.status.Text, "The job started with:\nWarning: the drive of "+dest)
	})
}

// A job whose drives are healthy shows no such block.
func TestPreparedNothingToSay(t *testing.T) {
	raceCoveredElsewhere(t)
	dir := t.TempDir()
	cards := genCards(t, dir, 1_000_000)
	dest := mkdir(t, filepath.Join(dir, "d1"))
	h := newHarness(t, func(c *Config) {
		fakeDrives(c, []string{dest}, []string{"nvme-blade-healthy.json"})
	})
	h.locked(func() {
		h.a.Prepare(Preparation{Name: "fine", Cards: []string{cards[0].Path}, Dests: []string{dest}, Start: true})
	})
	h.waitJob()
	h.locked(func() {
		require.False(t, h.a.running.prepL.Visible(), h.a.running.prepL.Text)
		require.NotContains(t, h.a.offload.status.Text, "The job started with")
	})
}
