package offload

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/raid"
)

// A big file interrupted mid-copy goes on from its last checkpoint on
// resume: the copies are byte-identical to the card, and the card is read
// again only from the checkpoint on.
func TestMidFileResume(t *testing.T) {
	t.Run("from the span", func(t *testing.T) { midFileResume(t, false) })
	// --reread-card: the kept prefix is read again from the card, and
	// checked against its recorded digest.
	t.Run("reread card", func(t *testing.T) { midFileResume(t, true) })
}

func midFileResume(t *testing.T, reread bool) {
	e := newEnv(t)
	body := bigContent(8<<20, 3) // 8 MiB, checkpoints every 512 KiB
	card := testCard(t, filepath.Join(e.dir, "cards"), "A001", map[string]string{"CLIPS/BIG.mov": body})
	d1, d2 := e.dest("d1"), e.dest("d2")
	read := &atomic.Int64{}
	o := e.opts([]string{card}, []string{d1, d2})
	o.CheckpointEvery, o.Throttle = 512<<10, 8<<20 // 1 s for the file
	o.FS = countFS{FS: fsys.OS{}, root: card, n: read}
	j, err := New(context.Background(), o)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	stop := int64(6 << 20)
	j.opts.OnEvent = func(ev Event) {
		if ev.Type == EvProgress && read.Load() >= stop {
			cancel()
		}
	}
	go func() { // stop as soon as 6 MiB have been read
		for read.Load() < stop && ctx.Err() == nil {
			runtimeGosched()
		}
		cancel()
	}()
	s, err := j.Run(ctx)
	require.NoError(t, err)
	require.Equal(t, ExitInterrupted, s.ExitCode)
	first := read.Load()
	require.Less(t, first, int64(len(body)), "interrupted before the end")
	parts, err := e.cat.Partials(mustCardID(t, e, s.JobID))
	require.NoError(t, err)
	require.Len(t, parts["CLIPS/BIG.mov"], 2, "a checkpoint per destination")
	temps := map[uint64]bool{}
	kept := parts["CLIPS/BIG.mov"]
	for _, p := range parts["CLIPS/BIG.mov"] {
		temps[inode(t, p.Temp)] = true
	}

	read.Store(0)
	o2 := e.opts(nil, nil)
	o2.CheckpointEvery = 512 << 10
	o2.FS = countFS{FS: fsys.OS{}, root: card, n: read}
	o2.RereadCard = reread
	j2, err := Resume(context.Background(), e.cat, s.JobID, o2)
	require.NoError(t, err)
	s2, err := j2.Run(context.Background())
	require.NoError(t, err)
	require.Equal(t, ExitOK, s2.ExitCode, "%+v", s2.Cards[0].Failures)
	require.NotNil(t, s2.Resumed)
	for _, d := range []string{d1, d2} {
		p := filepath.Join(d, "day01", "A001", "CLIPS", "BIG.mov")
		got, err := os.ReadFile(p)
		require.NoError(t, err)
		require.Equal(t, body, string(got), "the copy on %s is the card's file", d)
		require.True(t, temps[inode(t, p)], "the copy on %s is the kept temp, gone on with, not written again", d)
	}
	t.Logf("first run read %d bytes; the resume read %d of %d", first, read.Load(), len(body))
	// md5 and xxh64 save their state at each checkpoint: the card is read
	// from the span before the lowest checkpoint a copy goes on from.
	spanFrom := int64(len(body))
	for _, p := range kept {
		cs, err := catalog.ParseCardState(p.State)
		require.NoError(t, err)
		require.NotNil(t, cs, "the checkpoint records the card side")
		require.Less(t, cs.SpanFrom, p.Offset)
		require.GreaterOrEqual(t, cs.SpanFrom, p.Offset-2*o2.CheckpointEvery)
		spanFrom = min(spanFrom, cs.SpanFrom)
	}
	if reread {
		require.Equal(t, int64(len(body)), read.Load(), "the resume reads the whole file from the card, once")
		require.Zero(t, s2.Resumed.NotReread)
	} else {
		require.Equal(t, int64(len(body))-spanFrom, read.Load(), "the resume reads the card from the span before the checkpoint on, once")
		require.Equal(t, spanFrom, s2.Resumed.NotReread, "the summary says how many of the card's bytes were not read again")
		require.Equal(t, int64(1), s2.Resumed.NotRereadFiles)
	}
	files, err := e.cat.Files(mustCardID(t, e, s.JobID))
	require.NoError(t, err)
	require.Len(t, files, 1)
	require.Equal(t, hashing.Bytes(o2.Hashes, []byte(body)), files[0].Sums, "the recorded hashes are the whole file's (hashers restored at the checkpoint)")
	parts, err = e.cat.Partials(mustCardID(t, e, s.JobID))
	require.NoError(t, err)
	require.Empty(t, parts, "checkpoints go once the file is copied")
	entries, err := os.ReadDir(filepath.Join(d1, "day01", "A001", "CLIPS"))
	require.NoError(t, err)
	require.Len(t, entries, 1, "no temp left")
}

func mustCardID(t *testing.T, e *env, jobID int64) int64 {
	cards, err := e.cat.Cards(jobID)
	require.NoError(t, err)
	return cards[0].ID
}

func runtimeGosched() { runtime.Gosched() }

// A kept temp whose prefix no longer reads as it was written (a flipped
// byte on the destination) is not trusted: the file is copied again from
// the start, and the copies are right.
func TestMidFileResumeChecksTheKeptPrefix(t *testing.T) {
	e := newEnv(t)
	body := bigContent(4<<20, 5)
	card := testCard(t, filepath.Join(e.dir, "cards"), "A001", map[string]string{"BIG.mov": body})
	d1 := e.dest("d1")
	read := &atomic.Int64{}
	o := e.opts([]string{card}, []string{d1})
	o.CheckpointEvery, o.Throttle = 256<<10, 8<<20
	o.FS = countFS{FS: fsys.OS{}, root: card, n: read}
	j, err := New(context.Background(), o)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for read.Load() < 3<<20 && ctx.Err() == nil {
			runtime.Gosched()
		}
		cancel()
	}()
	s, err := j.Run(ctx)
	require.NoError(t, err)
	parts, err := e.cat.Partials(mustCardID(t, e, s.JobID))
	require.NoError(t, err)
	p := parts["BIG.mov"]
	require.Len(t, p, 1)
	for _, cp := range p {
		fh, err := os.OpenFile(cp.Temp, os.O_RDWR, 0)
		require.NoError(t, err)
		var b [1]byte
		fh.ReadAt(b[:], 1000)
		b[0] ^= 0x40
		fh.WriteAt(b[:], 1000)
		fh.Close()
	}
	read.Store(0)
	o2 := e.opts(nil, nil)
	o2.CheckpointEvery, o2.FS = 256<<10, countFS{FS: fsys.OS{}, root: card, n: read}
	j2, err := Resume(context.Background(), e.cat, s.JobID, o2)
	require.NoError(t, err)
	s2, err := j2.Run(context.Background())
	require.NoError(t, err)
	require.Equal(t, ExitOK, s2.ExitCode)
	got, err := os.ReadFile(filepath.Join(d1, "day01", "A001", "BIG.mov"))
	require.NoError(t, err)
	require.Equal(t, body, string(got))
	require.Equal(t, int64(len(body)), read.Load(), "read from the start again, once")
}

// A big file to a dit array and a folder at once: the array commits files
// whole, so only the folder is checkpointed, and the array copy is whole
// and right.
func TestCheckpointsSkipArrays(t *testing.T) {
	e := newEnv(t)
	body := bigContent(3<<20, 11)
	card := testCard(t, filepath.Join(e.dir, "cards"), "A001", map[string]string{"BIG.mov": body})
	blades := makeArray(t, e, raid.RAID4, 3)
	d2 := e.dest("d2")
	o := e.opts([]string{card}, []string{blades[0], d2})
	o.CheckpointEvery = 256 << 10
	s, err := e.run(o)
	require.NoError(t, err)
	require.Equal(t, ExitOK, s.ExitCode, "%+v", s.Cards[0].Failures)
	require.True(t, s.Cards[0].SafeToFormat)
}
