//go:build unix

package offload

import (
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/cloud"
	"github.com/dit-org/dit/internal/cloud/s3test"
	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/offload/dest/remote"
)

// cardReads counts the opens of the files below a card: the streaming
// read (Open) and the re-reads from the medium (OpenNoCache).
type cardReads struct {
	fsys.OS
	root       string
	mu         sync.Mutex
	open, miss map[string]int
}

func (c *cardReads) Open(name string) (fsys.File, error) {
	c.count(c.open, name)
	return c.OS.Open(name)
}

func (c *cardReads) OpenNoCache(name string) (fsys.File, error) {
	c.count(c.miss, name)
	return c.OS.OpenNoCache(name)
}

func (c *cardReads) count(m map[string]int, name string) {
	if rel, err := filepath.Rel(c.root, name); err == nil && !strings.HasPrefix(rel, "..") {
		c.mu.Lock()
		m[filepath.ToSlash(rel)]++
		c.mu.Unlock()
	}
}

// --verify source+dest with only cloud destinations reads every card file
// a second time, from the medium, after its upload; --verify dest does
// not. The job records the mode it really did.
func TestCloudSourceDestRereadsCard(t *testing.T) {
	s := s3test.Start(t, "ditcloud", "shots")
	for _, mode := range []VerifyMode{VerifySourceDest, VerifyDest} {
		t.Run(string(mode), func(t *testing.T) {
			e := newEnv(t)
			card := testCard(t, e.dir, "A001", map[string]string{"clip1.mov": bigContent(200<<10, 5), "sub/c.mov": bigContent(50<<10, 6)})
			fs := &cardReads{root: card, open: map[string]int{}, miss: map[string]int{}}
			o := e.opts([]string{card}, []string{"rclone:ditcloud:shots/reread-" + strings.ReplaceAll(string(mode), "+", "-")})
			o.Remote = remote.Settings{Rclone: &cloud.Rclone{Env: s.Env}}
			o.Seal = nil
			o.Verify = mode
			o.FS = fs
			sum, err := e.run(o)
			require.NoError(t, err)
			require.Equal(t, ExitOK, sum.ExitCode, "%+v", sum.Cards)
			require.True(t, sum.Cards[0].SafeToFormat, sum.Cards[0].Verdict)
			rec, err := e.cat.Job(sum.JobID)
			require.NoError(t, err)
			require.Equal(t, string(mode), rec.VerifyMode)
			want := 0
			if mode == VerifySourceDest {
				want = 1
			}
			for _, rel := range []string{"clip1.mov", "sub/c.mov"} {
				require.Equal(t, 1, fs.open[rel], "%s streamed from one read", rel)
				require.Equal(t, want, fs.miss[rel], "%s re-read from the medium", rel)
			}
		})
	}
}

// A card whose second read differs from the one sent to the cloud: the
// file fails, naming the re-read and both hashes; its copy is not
// verified; the card is not safe to format. The other file verifies.
func TestCloudSourceDestUnstableCard(t *testing.T) {
	s := s3test.Start(t, "ditcloud", "shots")
	e := newEnv(t)
	card := testCard(t, e.dir, "A001", map[string]string{"clip1.mov": bigContent(200<<10, 5), "c2.mov": bigContent(50<<10, 6)})
	var opens atomic.Int64
	o := e.opts([]string{card}, []string{"rclone:ditcloud:shots/unstable"})
	o.Remote = remote.Settings{Rclone: &cloud.Rclone{Env: s.Env}}
	o.Seal = nil
	o.Verify = VerifySourceDest
	o.FS = unstableFS{FS: fsys.OS{}, match: filepath.Join(card, "clip1.mov"), flips: map[int64]bool{2: true}, opens: &opens}
	sum, err := e.run(o)
	require.NoError(t, err)
	require.Equal(t, int64(2), opens.Load(), "clip1.mov read twice")
	require.False(t, sum.Cards[0].SafeToFormat, sum.Cards[0].Verdict)
	require.NotEqual(t, ExitOK, sum.ExitCode)
	state, _, _ := fileRecord(t, e, sum.JobID, "clip1.mov")
	require.Equal(t, StateFailed, state)
	k, err := e.cat.Cards(sum.JobID)
	require.NoError(t, err)
	files, err := e.cat.Files(k[0].ID)
	require.NoError(t, err)
	for _, f := range files {
		if f.Rel == "clip1.mov" {
			require.Contains(t, f.Error, "source re-read: ")
			require.Contains(t, f.Error, "mismatch")
			require.Equal(t, StateFailed, f.Copies[0].State)
			require.Contains(t, f.Copies[0].Error, "not verified: source re-read")
		} else {
			require.Equal(t, StateVerified, f.State, f.Error)
		}
	}
}
