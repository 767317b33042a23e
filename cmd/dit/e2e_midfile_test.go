//go:build linux

package main

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

// Mid-file resume through the real binary: kill -9 at random offsets of a
// 2 GiB clip (checkpoints every 64 MiB, the default), resume; the copy is
// byte-identical and the card is read again from the last checkpoint
// only: killed at 90 %, less than a quarter of the clip.
func TestMidFileResumeAfterKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("copies a 2 GiB clip three times")
	}
	const size = 2 << 30
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
		if trial == 0 {
			at = size * 9 / 10 // late in the clip: the case a DIT dreads
		}
		cmd := exec.Command(ditBin, "offload", "--db", db, "--name", "day01", "-d", d, card.Dir())
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
		r := ditNoEnv(t, "offload", "--resume", "1", "--db", db)
		require.Equal(t, 0, r.code, r.stdout+r.stderr)
		again := card.Reads("CLIPS/A001C001.mov") - before
		t.Logf("trial %d: killed at %.0f %% (%d bytes read); the resume read %d bytes (%.1f %% of the clip)",
			trial, 100*float64(before)/size, before, again, 100*float64(again)/size)
		require.Equal(t, want, fileSum(t, filepath.Join(d, "day01", "A001", "CLIPS", "A001C001.mov")), "byte-identical")
		// What the resume reads again of what was read before the kill: the
		// last checkpoint's distance (64 MiB) and the pipeline's buffers.
		reread := again - (size - before)
		require.Less(t, reread, int64(size/16), "the resume goes on from a checkpoint near the kill (read again: %d bytes)", reread)
		if trial == 0 {
			require.Less(t, again, int64(size/4), "killed at 90 %%: the resume reads less than a quarter of the clip from the card")
		}
		require.NoError(t, os.RemoveAll(dir)) // 2 GiB a trial: not kept to the end
	}
}

func runtimeYield() { time.Sleep(time.Millisecond) }
