package offload

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/hashing"
)

// A card's files are hashed and written behind its one reader: while
// the first file's copy cannot be written (its destination stops
// answering at its first byte), the reader goes on and reads the next
// files whole, up to filesInFlight files in flight; every file is still
// read once, in order, and every copy verifies with the card's hashes.
func TestReadAheadReadsOnWhileAFileIsWritten(t *testing.T) {
	e := newEnv(t)
	const n = filesInFlight + 2
	// Each file is Buffers (4) blocks of 64 KiB: without a read-ahead
	// the first file held back holds the card's whole pool.
	size := 4 * 64 << 10
	files := map[string]string{}
	for i := range n {
		files[fmt.Sprintf("C%03d.mov", i)] = bigContent(size, byte(i))
	}
	card := testCard(t, e.dir, "A001", files)
	d1 := e.dest("d1")
	f := fsys.NewFaulty(fsys.OS{})
	hold := make(chan struct{})
	var holdOnce sync.Once
	release := func() { holdOnce.Do(func() { close(hold) }) }
	// The first file's copy waits at its first byte...
	f.Add(fsys.Fault{Match: ".C000.mov.", Hold: hold})
	// ...until the last file of the read-ahead is read whole.
	var mu sync.Mutex
	var reads []int // the file of each read from the card, in order
	read := make([]int64, n)
	for i := range n {
		f.Add(fsys.Fault{Match: filepath.Join(card, fmt.Sprintf("C%03d.mov", i)), OnRead: func(total int64) {
			mu.Lock()
			reads, read[i] = append(reads, i), total
			mu.Unlock()
			if i == filesInFlight-1 && total == int64(size) {
				release()
			}
		}})
	}
	if dl, ok := t.Deadline(); ok {
		// Without the read-ahead the reader waits for the held copy for
		// ever: fail before the package's timeout does, saying why.
		timer := time.AfterFunc(time.Until(dl)-10*time.Second, func() {
			t.Errorf("the reader did not read %d files ahead of a copy held back", filesInFlight-1)
			release()
		})
		defer timer.Stop()
	}
	o := e.opts([]string{card}, []string{d1})
	o.FS = f
	s, err := e.run(o)
	require.NoError(t, err)
	require.True(t, s.Cards[0].SafeToFormat)

	for i := 1; i < len(reads); i++ {
		require.LessOrEqual(t, reads[i-1], reads[i], "the card is read file after file, in order: %v", reads)
	}
	for i := range n {
		require.Equal(t, int64(size), read[i], "C%03d.mov read once, whole", i)
	}
	cards, err := e.cat.Cards(s.JobID)
	require.NoError(t, err)
	got, err := e.cat.Files(cards[0].ID)
	require.NoError(t, err)
	require.Len(t, got, n)
	for _, fr := range got {
		require.Equal(t, StateVerified, fr.State, fr.Rel)
		require.Equal(t, hashing.Bytes([]hashing.Algo{hashing.MD5, hashing.XXH64}, []byte(files[fr.Rel])), fr.Sums, fr.Rel)
	}
}

// Consecutive files take the ring's hashers in turn, so each file in
// flight has its own; a hasher comes back after filesInFlight files.
func TestHashRingGivesEachFileInFlightItsOwnHashers(t *testing.T) {
	hr := newHashRing([]hashing.Algo{hashing.MD5}, 2, filesInFlight)
	defer hr.close()
	seen := map[*hashing.Multi]int{}
	var order []*hashing.Multi
	for i := range 2 * filesInFlight {
		m := hr.take()
		if i < filesInFlight {
			require.NotContains(t, seen, m, "file %d shares the hashers of a file in flight", i)
		} else {
			require.Same(t, order[i-filesInFlight], m)
		}
		seen[m] = i
		order = append(order, m)
	}
	// Files written at once, interleaved, keep their own digests.
	ms := make([]*hashing.Multi, filesInFlight)
	data := make([][]byte, filesInFlight)
	for i := range ms {
		ms[i], data[i] = hr.take(), []byte(bigContent(100_000+i, byte(i)))
		ms[i].Write(data[i][:50_000], nil)
	}
	for i, m := range ms {
		m.Write(data[i][50_000:], nil)
		require.Equal(t, hashing.Bytes([]hashing.Algo{hashing.MD5}, data[i]), <-m.Finish(), "file %d", i)
	}
}

// A checkpointed file in the middle of a card, its hashers one of the
// ring's with the files before it still in flight, resumes from its
// checkpoint: the card side saved from its own hashers, the kept part
// not read again, and every file (those hashed on the same hashers
// after it too) recorded with its own hashes and copied whole. When the
// card's file changed in the kept part, the file is copied again whole
// (its hashers reset, and used again by a later file).
func TestReadAheadMidFileResumeAmongSmallFiles(t *testing.T) {
	t.Run("from the checkpoint", func(t *testing.T) { testReadAheadMidFileResume(t, false) })
	t.Run("card changed: copied again whole", func(t *testing.T) { testReadAheadMidFileResume(t, true) })
}

func testReadAheadMidFileResume(t *testing.T, changed bool) {
	e := newEnv(t)
	files := map[string]string{}
	small := 300 << 10
	for i, name := range []string{"A.mov", "B.mov", "C.mov", "E.mov", "F.mov", "G.mov", "H.mov", "I.mov"} {
		files[name] = bigContent(small+i*1000, byte(40+i))
	}
	size := 4 << 20
	files["D_BIG.mov"] = bigContent(size, 31)
	card := testCard(t, filepath.Join(e.dir, "cards"), "A001", files)
	d1 := e.dest("d1")
	// Stopped three MiB into the big file (the small files before it
	// read whole).
	stop := int64(3*small+3000) + 3<<20
	s := interruptAfterCheckpoint(t, e, card, []string{d1}, 256<<10, stop)
	parts, err := e.cat.Partials(mustCardID(t, e, s.JobID))
	require.NoError(t, err)
	require.Len(t, parts["D_BIG.mov"], 1)
	var low int64
	for _, p := range parts["D_BIG.mov"] {
		require.NotEmpty(t, p.State, "the card side is recorded: the big file's own hashers saved their state")
		require.Greater(t, p.Offset, int64(2<<20))
		low = p.Offset
	}
	if changed {
		// One byte in the span read again before the checkpoint, same
		// size and time.
		src := filepath.Join(card, "D_BIG.mov")
		fi, err := os.Stat(src)
		require.NoError(t, err)
		b := []byte(files["D_BIG.mov"])
		b[low-1000] ^= 0x10
		files["D_BIG.mov"] = string(b)
		require.NoError(t, os.WriteFile(src, b, 0o644))
		require.NoError(t, os.Chtimes(src, fi.ModTime(), fi.ModTime()))
	}

	o2 := e.opts(nil, nil)
	o2.CheckpointEvery = 256 << 10
	j2, err := Resume(context.Background(), e.cat, s.JobID, o2)
	require.NoError(t, err)
	s2, err := j2.Run(context.Background())
	require.NoError(t, err)
	require.Equal(t, ExitOK, s2.ExitCode, "%+v", s2.Cards[0].Failures)
	if changed {
		require.Contains(t, strings.Join(s2.Warnings, "\n"), "D_BIG.mov", "the file copied again whole is said")
	} else {
		require.Equal(t, int64(1), s2.Resumed.NotRereadFiles, "the big file goes on from its checkpoint")
		require.Greater(t, s2.Resumed.NotReread, int64(1<<20))
	}
	got, err := e.cat.Files(mustCardID(t, e, s.JobID))
	require.NoError(t, err)
	require.Len(t, got, len(files))
	for _, fr := range got {
		require.Equal(t, StateVerified, fr.State, fr.Rel)
		require.Equal(t, hashing.Bytes([]hashing.Algo{hashing.MD5, hashing.XXH64}, []byte(files[fr.Rel])), fr.Sums, fr.Rel)
		b, err := os.ReadFile(filepath.Join(d1, "day01", "A001", fr.Rel))
		require.NoError(t, err)
		require.Equal(t, files[fr.Rel], string(b), fr.Rel)
	}
}
