//go:build unix

package offload

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/cloud"
	"github.com/dit-org/dit/internal/cloud/s3test"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload/dest/remote"
	"github.com/dit-org/dit/internal/testneeds"
)

// meetingRclone writes an rclone that, for an upload (rclone copy), says
// it is there (a file in meet) and waits until two uploads are (at most
// 60 s), then writes how many it saw into its file and runs the real
// rclone: two uploads that run one after the other never meet.
func meetingRclone(t *testing.T, dir string) (bin, meet string) {
	t.Helper()
	real := testneeds.Tool(t, "rclone", "Debian: apt-get install rclone")
	meet = filepath.Join(dir, "meet")
	require.NoError(t, os.Mkdir(meet, 0o755))
	bin = filepath.Join(dir, "rclone-meet")
	script := `#!/bin/sh
if [ "$1" = copy ]; then
	me=$(mktemp "` + meet + `/up.XXXXXX")
	i=0
	while [ "$(ls "` + meet + `" | wc -l)" -lt 2 ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done
	ls "` + meet + `" | wc -l > "$me"
fi
exec "` + real + `" "$@"
`
	require.NoError(t, os.WriteFile(bin, []byte(script), 0o755))
	return bin, meet
}

// A cascade to two cloud destinations uploads to both at once (each its
// own rclone: the two uploads meet), and every object of both is verified
// by the storage's MD5 of the card's read; the card is safe to format.
// With a process per transfer (DIT_RCLONE_DAEMON=0), whose uploads can
// be seen to meet; through the job's rclone rcd, internal/cloud's
// TestDaemonStreamsAtOnce shows two transfers at once.
func TestCloudTwoDestinationsAtOnce(t *testing.T) {
	t.Setenv("DIT_RCLONE_DAEMON", "0")
	s := s3test.Start(t, "ditcloud", "shots")
	e := newEnv(t)
	card := testCard(t, e.dir, "A001", map[string]string{
		"clip1.mov": bigContent(400<<10, 11), "sub/clip2.mov": bigContent(150<<10, 12), "sub/é.wav": bigContent(20<<10, 13),
	})
	bin, meet := meetingRclone(t, e.dir)
	first := e.dest("raid")
	o := e.opts([]string{card}, []string{first})
	o.Then = []string{"rclone:ditcloud:shots/a", "rclone:ditcloud:shots/b"}
	o.Remote = remote.Settings{Rclone: &cloud.Rclone{Env: s.Env, Bin: bin}}
	o.Seal = nil
	s1, err := e.run(o)
	require.NoError(t, err)
	require.Equal(t, ExitOK, s1.ExitCode, "%+v", s1.Cards)
	require.True(t, s1.Cards[0].SafeToFormat, s1.Cards[0].Verdict)

	ups, err := os.ReadDir(meet)
	require.NoError(t, err)
	require.Len(t, ups, 2, "one upload a destination")
	for _, u := range ups {
		b, err := os.ReadFile(filepath.Join(meet, u.Name()))
		require.NoError(t, err)
		require.Equal(t, "2", strings.TrimSpace(string(b)), "the two uploads ran at once")
	}

	k, err := e.cat.Cards(s1.JobID)
	require.NoError(t, err)
	files, err := e.cat.Files(k[1].ID)
	require.NoError(t, err)
	require.Len(t, files, 3)
	for _, f := range files {
		require.Equal(t, StateVerified, f.State, f.Rel)
		require.Len(t, f.Copies, 2, f.Rel)
		for _, cp := range f.Copies {
			require.Equal(t, StateVerified, cp.State, f.Rel)
			require.Equal(t, "s3-etag:md5", cp.VerifyAlgos, f.Rel)
		}
	}
	for _, p := range []string{"shots/a", "shots/b"} {
		objs, err := rcloneOf(o).List(context.Background(), cloud.Dest{Remote: "ditcloud", Path: p}, "day01/A001")
		require.NoError(t, err)
		require.Len(t, objs, 3, p)
		for rel, obj := range objs {
			want := hashing.Bytes([]hashing.Algo{hashing.MD5}, mustRead(t, filepath.Join(card, filepath.FromSlash(rel)))).Get(hashing.MD5)
			require.Equal(t, want, obj.ServerMD5(), "%s/%s holds the card's bytes", p, rel)
		}
	}
}
