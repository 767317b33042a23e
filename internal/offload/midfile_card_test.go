package offload

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/fsys"
)

// interruptAfterCheckpoint copies card (one big file) to dests with
// checkpoints every `every` bytes and cancels once stop bytes are read:
// the interrupted job, its checkpoints kept.
func interruptAfterCheckpoint(t *testing.T, e *env, card string, dests []string, every, stop int64) *Summary {
	t.Helper()
	read := &atomic.Int64{}
	o := e.opts([]string{card}, dests)
	o.CheckpointEvery, o.Throttle = every, 8<<20
	o.FS = countFS{FS: fsys.OS{}, root: card, n: read}
	j, err := New(context.Background(), o)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for read.Load() < stop && ctx.Err() == nil {
			runtime.Gosched()
		}
		cancel()
	}()
	s, err := j.Run(ctx)
	require.NoError(t, err)
	require.Equal(t, ExitInterrupted, s.ExitCode)
	return s
}

// The card's file changes inside the part a mid-file resume keeps (one
// byte, same size and time: the last MiB before the checkpoint untouched).
// The resume reads the card's kept part again, finds it differs from the
// checkpoint's, says so, and copies the file whole from one read: the
// copies are the card's bytes as they are now, never a splice of two
// reads called verified.
func TestMidFileResumeCardChangedInKeptPart(t *testing.T) {
	e := newEnv(t)
	body := bigContent(4<<20, 21)
	card := testCard(t, filepath.Join(e.dir, "cards"), "A001", map[string]string{"BIG.mov": body})
	d1, d2 := e.dest("d1"), e.dest("d2")
	s := interruptAfterCheckpoint(t, e, card, []string{d1, d2}, 256<<10, 3<<20)
	parts, err := e.cat.Partials(mustCardID(t, e, s.JobID))
	require.NoError(t, err)
	require.Len(t, parts["BIG.mov"], 2)
	for _, p := range parts["BIG.mov"] {
		require.Greater(t, p.Offset, int64(1<<20)+1000, "the change lies before the last MiB kept")
	}

	src := filepath.Join(card, "BIG.mov")
	fi, err := os.Stat(src)
	require.NoError(t, err)
	now := []byte(body)
	now[1000] ^= 0x10
	require.NoError(t, os.WriteFile(src, now, 0o644))
	require.NoError(t, os.Chtimes(src, fi.ModTime(), fi.ModTime()))

	o2 := e.opts(nil, nil)
	o2.CheckpointEvery = 256 << 10
	j2, err := Resume(context.Background(), e.cat, s.JobID, o2)
	require.NoError(t, err)
	s2, err := j2.Run(context.Background())
	require.NoError(t, err)
	for _, d := range []string{d1, d2} {
		got, err := os.ReadFile(filepath.Join(d, "day01", "A001", "BIG.mov"))
		require.NoError(t, err)
		require.True(t, bytes.Equal(now, got), "the copy on %s is the card's file as it is now, whole (differs at %d)", d, firstDiff(now, got))
	}
	require.Equal(t, ExitOK, s2.ExitCode, "%+v", s2.Cards[0].Failures)
	var warned []string
	for _, ev := range e.events {
		if ev.Type == EvWarning && strings.Contains(ev.Message, "BIG.mov") {
			warned = append(warned, ev.Message)
		}
	}
	require.Len(t, warned, 1, "a warning says why the file is copied whole")
	require.Contains(t, warned[0], "changed")
	require.Contains(t, strings.Join(s2.Warnings, "\n"), "BIG.mov", "and the summary keeps it")
}

// firstDiff is the first offset where a and b differ (-1: equal).
func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}
