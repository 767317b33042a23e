//go:build unix

package offload

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/cloud"
	"github.com/dit-org/dit/internal/cloud/s3test"
	"github.com/dit-org/dit/internal/offload/dest/remote"
	"github.com/dit-org/dit/internal/testneeds"
)

// loggedRclone is the real rclone run through a script that logs each
// run's arguments (one line each) to the file it returns.
func loggedRclone(t *testing.T, s *s3test.Server) (*cloud.Rclone, string) {
	t.Helper()
	real := testneeds.Tool(t, "rclone", "Debian: apt-get install rclone")
	dir := t.TempDir()
	log := filepath.Join(dir, "args.log")
	bin := filepath.Join(dir, "rclone")
	require.NoError(t, os.WriteFile(bin, []byte("#!/bin/sh\necho \"$*\" >> '"+log+"'\nexec '"+real+"' \"$@\"\n"), 0o755))
	return &cloud.Rclone{Bin: bin, Env: s.Env}, log
}

// readBacks counts the objects read back (rclone cat) in the log.
func readBacks(t *testing.T, log string) int {
	t.Helper()
	b, err := os.ReadFile(log)
	require.NoError(t, err)
	n := 0
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(" "+l+" ", " cat ") {
			n++
		}
	}
	return n
}

func copyError(t *testing.T, e *env, jobID int64, hop int, rel string) (state, msg string) {
	t.Helper()
	ks, err := e.cat.Cards(jobID)
	require.NoError(t, err)
	for _, k := range ks {
		if max(k.Hop, 1) != hop {
			continue
		}
		files, err := e.cat.Files(k.ID)
		require.NoError(t, err)
		for _, f := range files {
			if f.Rel == rel {
				require.Len(t, f.Copies, 1)
				return f.Copies[0].State, f.Copies[0].Error
			}
		}
	}
	t.Fatalf("no file %s in run %d", rel, hop)
	return "", ""
}

// A cascade whose first copy goes bad after the card is free: the object
// uploaded from it has a single-part ETag other than the card's MD5,
// which proves it differs, so it is not downloaded; the message says
// the first copy no longer matches the card (it is read again to tell),
// and what to do.
func TestCloudMismatchBlamesBadFirstCopy(t *testing.T) {
	s := s3test.Start(t, "ditcloud", "shots")
	e := newEnv(t)
	card := testCard(t, e.dir, "A001", map[string]string{"clip1.mov": bigContent(300<<10, 1), "clip2.mov": bigContent(100<<10, 2)})
	first := e.dest("raid")
	o := e.opts([]string{card}, []string{first})
	o.Then = []string{"rclone:ditcloud:shots/bad"}
	r, log := loggedRclone(t, s)
	o.Remote = remote.Settings{Rclone: r}
	o.Seal = nil
	inner := o.OnEvent
	o.OnEvent = func(ev Event) {
		if ev.Type == EvCardFree {
			flipByte(t, filepath.Join(first, "day01", "A001", "clip1.mov"), 1000)
		}
		inner(ev)
	}
	sum, err := e.run(o)
	require.NoError(t, err)
	require.False(t, sum.Cards[0].SafeToFormat)
	state, msg := copyError(t, e, sum.JobID, 2, "clip1.mov")
	require.Equal(t, StateFailed, state)
	require.Contains(t, msg, "rclone:ditcloud:shots/bad/day01/A001/clip1.mov differs from the card: md5 ")
	require.Contains(t, msg, "the storage's own (S3 ETag): the card is NOT safe to format; the first copy "+filepath.Join(first, "day01", "A001", "clip1.mov")+
		" it was uploaded from no longer matches the card (")
	require.Contains(t, msg, "the first copy is bad; keep the card, check it with dit verify")
	require.NotContains(t, msg, "an object that was at that name before")
	require.Zero(t, readBacks(t, log), "a differing single-part ETag is proof: nothing is downloaded")
	state, _ = copyError(t, e, sum.JobID, 2, "clip2.mov")
	require.Equal(t, StateVerified, state)
}

// A card streamed to a folder where an object of another's bytes is at a
// file's name already: it fails without a download, saying it was there
// before this run's upload and that dit does not replace it.
func TestCloudMismatchObjectThereBefore(t *testing.T) {
	s := s3test.Start(t, "ditcloud", "shots")
	e := newEnv(t)
	card := testCard(t, e.dir, "A001", map[string]string{"clip1.mov": bigContent(300<<10, 1), "clip2.mov": bigContent(100<<10, 2)})
	other := filepath.Join(e.dir, "other")
	require.NoError(t, os.WriteFile(other, []byte(bigContent(300<<10, 9)), 0o644))
	s.Rclone(t, "copyto", other, "ditcloud:shots/there/day01/A001/clip1.mov")
	o := e.opts([]string{card}, []string{"rclone:ditcloud:shots/there"})
	r, log := loggedRclone(t, s)
	o.Remote = remote.Settings{Rclone: r}
	o.Seal = nil
	sum, err := e.run(o)
	require.NoError(t, err)
	require.False(t, sum.Cards[0].SafeToFormat)
	state, msg := copyError(t, e, sum.JobID, 1, "clip1.mov")
	require.Equal(t, StateFailed, state)
	require.Contains(t, msg, "the storage's own (S3 ETag): the card is NOT safe to format; the object was at that name before this run's upload (an earlier run's, or anyone's), and dit never overwrites or deletes on a remote: move it away and resume")
	require.Zero(t, readBacks(t, log))
	b, err := os.ReadFile(other)
	require.NoError(t, err)
	require.Equal(t, string(b), s.Rclone(t, "cat", "ditcloud:shots/there/day01/A001/clip1.mov"), "not written over")
}
