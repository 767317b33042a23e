package ui

import (
	"context"
	"path/filepath"
	"testing"

	"fyne.io/fyne/v2/test"
	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload"
)

// A job with proxies, interrupted before they were made, resumed from
// History where there is no ffmpeg: the footage is finished (safe to
// format) and the running view says, as dit offload --resume does, that
// its proxies are not made; it stays there once the job ended.
func TestResumeWithoutFFmpegWarnsInTheRunningView(t *testing.T) {
	raceCoveredElsewhere(t)
	dir := t.TempDir()
	cards := genCards(t, dir, 100_000)
	raid := mkdir(t, filepath.Join(dir, "raid"))
	h := newHarness(t, nil)
	// The job as a run killed before its proxies: recorded with them,
	// interrupted before its first byte.
	ctx, cancel := context.WithCancel(context.Background())
	job, err := offload.New(ctx, offload.Options{
		JobSpec: offload.JobSpec{Name: "prox", Cards: []string{cards[0].Path}, Dests: []string{raid},
			Hashes: []hashing.Algo{hashing.XXH64, hashing.MD5}, Proxies: "h264"},
		Env: offload.Env{Catalog: h.cat}})
	require.NoError(t, err)
	cancel()
	sum, _ := job.Run(ctx)
	require.Equal(t, "interrupted", sum.State)
	job.Close()

	t.Setenv("PATH", t.TempDir()) // no ffmpeg, no ffprobe
	h.locked(func() { h.a.selectTab(h.a.history.content) })
	h.eventually("the job in History", func() bool { return len(h.a.history.rows) == 1 })
	h.locked(func() { h.a.history.list.Select(0) })
	h.eventually("the job's detail", func() bool {
		return h.a.history.open != nil && buttonIn(h.a.history.detail, "Resume job") != nil
	})
	h.locked(func() { test.Tap(buttonIn(h.a.history.detail, "Resume job")) })
	h.eventually("the resumed job to end", func() bool {
		r := h.a.running.run
		return r != nil && r.finished() && !h.a.offload.busy
	})
	require.Equal(t, []string{stateSafe}, h.panelStates())
	var text string
	h.locked(func() { text = texts(h.a.running.content) })
	require.Contains(t, text, "Before the start:\nWarning: job 1's proxies (--proxies h264) are not made by this resume: no ffmpeg and ffprobe on PATH "+
		"(Debian, Ubuntu: apt-get install ffmpeg; macOS: brew install ffmpeg); the footage is resumed without them\n")
	require.Contains(t, text, "Proxies: none made (the job asked for h264)")

	// History, read from the catalog (also after dit-gui restarts):
	// the job's proxies as dit job show says them.
	h.locked(func() { h.a.selectTab(h.a.history.content) })
	h.eventually("the job's detail read again", func() bool {
		d := h.a.history.open
		return d != nil && d.sum.State == "done"
	})
	h.locked(func() { text = texts(h.a.history.detail) })
	require.Contains(t, text, "Proxies: none made (the job asked for h264)")
	require.Contains(t, text, "Verified: safe to format")
}
