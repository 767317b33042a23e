//go:build linux

package faults

import (
	"bytes"
	"crypto/sha256"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
)

// bigFile writes n pseudo-random bytes to p and returns their sha256.
func bigFile(t *testing.T, p string, n int64, seed uint64) [32]byte {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	f, err := os.Create(p)
	require.NoError(t, err)
	h := sha256.New()
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	buf := make([]byte, 1<<20)
	for done := int64(0); done < n; done += int64(len(buf)) {
		for i := 0; i+8 <= len(buf); i += 8 {
			v := r.Uint64()
			for k := 0; k < 8; k++ {
				buf[i+k] = byte(v >> (8 * k))
			}
		}
		w := buf[:min(int64(len(buf)), n-done)]
		_, err := f.Write(w)
		require.NoError(t, err)
		h.Write(w)
	}
	require.NoError(t, f.Close())
	var sum [32]byte
	copy(sum[:], h.Sum(nil))
	return sum
}

func fileSum(t *testing.T, p string) [32]byte {
	f, err := os.Open(p)
	require.NoError(t, err)
	defer f.Close()
	h := sha256.New()
	_, err = io.Copy(h, f)
	require.NoError(t, err)
	var sum [32]byte
	copy(sum[:], h.Sum(nil))
	return sum
}

// Mid-file resume through the real binary: kill -9 at offsets of a 512
// MiB clip, resume; the copy is byte-identical, the kept temp is gone on
// with from a checkpoint near the kill (not written again), and the card
// is read only from the interval before that checkpoint on (the default
// hashes, xxh64 and md5, save their state at each checkpoint): the
// interval again, to check it is still the card's, then the rest. The
// first kill is late in the clip (the case a DIT dreads), at the default
// checkpoint interval (64 MiB: 8 of them); the two others at random
// offsets, with a checkpoint every 32 MiB (16 of them, as 64 MiB in a 1
// GiB clip: the same proportions, half the bytes; an interval still at
// least the card's read-ahead, 32 MiB at the defaults, which the bound
// below allows for). It runs beside the scan's interrupt points (the kills
// wait on the card's bytes read, not on time).
func TestMidFileResumeAfterKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("copies a 512 MiB clip three times")
	}
	t.Parallel()
	const size = 512 << 20
	backing := filepath.Join(t.TempDir(), "A001")
	want := bigFile(t, filepath.Join(backing, "CLIPS", "A001C001.mov"), size, 7)
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 3; trial++ {
		dir := t.TempDir()
		db := filepath.Join(dir, "catalog.db")
		card := mountCard(t, backing, "A001")
		d := filepath.Join(dir, "d1")
		require.NoError(t, os.Mkdir(d, 0o755))
		at := int64(float64(size) * (0.15 + 0.75*rng.Float64())) // kill somewhere in 15..90 %
		every, flags := int64(32<<20), []string{"--checkpoint-every", "32MiB"}
		if trial == 0 {
			at = size * 9 / 10 // late in the clip: the case a DIT dreads
			every, flags = 64<<20, nil
		}
		cmd := exec.Command(e2e.Bin, append([]string{"offload", "--db", db, "--name", "day01", "-d", d, card.Dir()}, flags...)...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		require.NoError(t, cmd.Start())
		for card.Reads("CLIPS/A001C001.mov") < at {
			if cmd.ProcessState != nil {
				break
			}
			runtimeYield()
		}
		require.NoError(t, cmd.Process.Kill())
		cmd.Wait()
		before := card.Reads("CLIPS/A001C001.mov")
		temps, err := filepath.Glob(filepath.Join(d, "day01", "A001", "CLIPS", ".A001C001.mov.*.dit-tmp"))
		require.NoError(t, err)
		require.Len(t, temps, 1, "the kill left the checkpointed temp")
		kept, err := os.Stat(temps[0])
		require.NoError(t, err)
		r := ditNoEnv(t, append([]string{"offload", "--resume", "1", "--db", db}, flags...)...)
		require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
		again := card.Reads("CLIPS/A001C001.mov") - before
		t.Logf("trial %d: checkpoint every %d MiB, killed at %.0f %% (%d bytes read); the resume read %d bytes (%.1f %% of the clip)",
			trial, every>>20, 100*float64(before)/size, before, again, 100*float64(again)/size)
		final := filepath.Join(d, "day01", "A001", "CLIPS", "A001C001.mov")
		require.Equal(t, want, fileSum(t, final), "byte-identical")
		fi, err := os.Stat(final)
		require.NoError(t, err)
		require.True(t, os.SameFile(kept, fi), "the copy is the kept temp, gone on with, not written again")
		// The card read from the checkpoint's interval on: the rest, and
		// at most the interval before the last checkpoint recorded (the
		// writer lags the reads by at most the card's buffers, 32 MiB,
		// and one checkpoint), not the kept part.
		require.GreaterOrEqual(t, again, int64(size)-before, "the rest is read from the card")
		require.LessOrEqual(t, again, int64(size)-before+3*every, "the resume reads the card from the checkpoint's interval on, not the kept part")
		require.NoError(t, os.RemoveAll(dir))
	}
}

func runtimeYield() { time.Sleep(time.Millisecond) }

// A mid-file resume whose card changed inside the kept part: dit is
// killed (kill -9) after a checkpoint, one byte of the card's clip is
// changed before it (size and time kept), and the resume must not call a
// splice of two reads verified: it finds the kept part no longer the
// card's, says so, and copies the clip whole; the copy is the card's
// clip as it is now. With xxh3 (no saved state: the card's file is read
// from the start) a change anywhere in the kept part is found, here far
// from the checkpoint; with the default hashes (the card read from the
// interval before the checkpoint on) a change in that interval.
func TestMidFileResumeCardChangedAfterKill9(t *testing.T) {
	t.Run("xxh3", func(t *testing.T) { testMidFileResumeCardChangedAfterKill9(t, "xxh3,md5", 100) })
	t.Run("default hashes", func(t *testing.T) { testMidFileResumeCardChangedAfterKill9(t, "xxh64,md5", 3<<20+512<<10) })
}

func testMidFileResumeCardChangedAfterKill9(t *testing.T, hashes string, at int) {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	card := filepath.Join(dir, "A001")
	clip := filepath.Join(card, "CLIPS", "A001C001.mov")
	bigFile(t, clip, 8<<20, 3)
	fi, err := os.Stat(clip)
	require.NoError(t, err)
	d := filepath.Join(dir, "d1")
	require.NoError(t, os.Mkdir(d, 0o755))
	_, killed := e2e.DitCrash(t, db, []string{"DIT_CRASH_AT=copy: checkpoint recorded#4"},
		"offload", "--name", "day01", "--hash", hashes, "--checkpoint-every", "1MiB", "-d", d, card)
	require.True(t, killed, "killed after the fourth checkpoint")

	b, err := os.ReadFile(clip)
	require.NoError(t, err)
	b[at] ^= 0x01 // in the kept part (4 MiB)
	require.NoError(t, os.WriteFile(clip, b, 0o644))
	require.NoError(t, os.Chtimes(clip, fi.ModTime(), fi.ModTime()))

	r := e2e.Dit(t, db, "offload", "--resume", "1", "--checkpoint-every", "1MiB")
	out := r.Stdout + r.Stderr
	require.Equal(t, 0, r.Code, out)
	require.Equal(t, fileSum(t, clip), fileSum(t, filepath.Join(d, "day01", "A001", "CLIPS", "A001C001.mov")), "the copy is the card's clip as it is now")
	require.Contains(t, out, "changed on the card since the interrupted copy", "the resume says why it copied the clip whole")
	s := showJob(t, db, 1)
	require.True(t, s.Cards[0].SafeToFormat)
	got := s.Cards[0].FileList[0].Hashes
	require.Equal(t, trueHashes(t, clip)["md5"], got["md5"], "the recorded hashes are the card's as it is now")
	if x, ok := got["xxh64"]; ok {
		require.Equal(t, trueHashes(t, clip)["xxh64"], x)
	}
}
