//go:build linux

package faults

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
	"github.com/dit-org/dit/internal/offload"
)

// A resume counts the room its kept copy already has: a clip killed at
// about 60 % on a destination that holds it once, with the temp
// preallocated to the clip's size, resumes (the fresh offload was
// accepted there, so is the resume), and ends safe with the bytes
// identical. A resume refused for another reason (here: the card is not
// there, or the destination since filled by other work) leaves the job
// as it was, never failed.
func TestResumeCountsTheRoomItAlreadyHas(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a small tmpfs as the destination")
	}
	dir := t.TempDir()
	dest := filepath.Join(dir, "shuttle")
	require.NoError(t, os.Mkdir(dest, 0o755))
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=200m", "tmpfs", dest).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs (%v: %s)", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", dest).Run() })
	db := filepath.Join(dir, "c.db")
	card := filepath.Join(dir, "A001")
	want := bigFile(t, filepath.Join(card, "CLIPS", "A001C001.mov"), 100_000_000, 3)

	cmd := exec.Command(e2e.Bin, "offload", "--json", "--name", "day", "--throttle", "40MB/s", "--checkpoint-every", "8MB",
		"--mhl", "none", "-d", dest, card)
	cmd.Env = append(os.Environ(), "DIT_DB="+db)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	var id int64
	killed := false
	for sc.Scan() {
		var ev offload.Event
		require.NoError(t, json.Unmarshal(sc.Bytes(), &ev))
		id = ev.JobID
		if ev.Type == offload.EvProgress && ev.Progress != nil && len(ev.Progress.Cards) > 0 &&
			ev.Progress.Cards[0].BytesCopied >= 60_000_000 {
			require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
			killed = true
			break
		}
	}
	cmd.Wait()
	require.True(t, killed, "the copy reached 60 %% before the job ended")

	// A resume refused (the card is not there) leaves the job as it was.
	before := jobState(t, db, id)
	require.Equal(t, "interrupted", before)
	moved := card + ".away"
	require.NoError(t, os.Rename(card, moved))
	r := e2e.Dit(t, db, "offload", "--resume", e2e.Itoa(id))
	require.NotEqual(t, 0, r.Code)
	require.Equal(t, before, jobState(t, db, id), "a refused resume never turns the job failed: %s", r.Stderr)
	require.NoError(t, os.Rename(moved, card))

	// Refused for space it truly lacks (other work filled the
	// destination since): refused, and the job left as it was.
	var st syscall.Statfs_t
	require.NoError(t, syscall.Statfs(dest, &st))
	filler := filepath.Join(dest, "filler")
	require.NoError(t, os.WriteFile(filler, make([]byte, int64(st.Bavail)*st.Bsize-20_000_000), 0o644))
	r = e2e.Dit(t, db, "offload", "--resume", e2e.Itoa(id))
	require.Equal(t, 1, r.Code, r.Stdout+r.Stderr)
	require.Contains(t, r.Stderr, "not enough space")
	require.Equal(t, before, jobState(t, db, id), "a resume refused for space never turns the job failed: %s", r.Stderr)
	require.NoError(t, os.Remove(filler))

	r = e2e.Dit(t, db, "offload", "--resume", e2e.Itoa(id))
	require.Equal(t, 0, r.Code, "the resume fits in the room the kept copy has: %s", e2e.Tail(r.Stdout+r.Stderr))
	require.Contains(t, r.Stdout, "[SAFE] A001")
	require.Equal(t, want, fileSum(t, filepath.Join(dest, "day", "A001", "CLIPS", "A001C001.mov")))
}

// jobState is job id's stored state as dit jobs --json gives it.
func jobState(t *testing.T, db string, id int64) string {
	t.Helper()
	r := e2e.Dit(t, db, "jobs", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	var jobs []struct {
		ID    int64  `json:"job_id"`
		State string `json:"state"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &jobs), r.Stdout)
	for _, j := range jobs {
		if j.ID == id {
			return j.State
		}
	}
	t.Fatalf("no job %d in dit jobs", id)
	return ""
}
