package remote

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/cloud"
	"github.com/dit-org/dit/internal/cloud/s3test"
	"github.com/dit-org/dit/internal/offload/dest"
)

func md5hex(s string) string {
	h := md5.Sum([]byte(s))
	return hex.EncodeToString(h[:])
}

// Importing the package registers the kind: a remote destination opens
// as this package's Store, parsed as internal/cloud reads it.
func TestRegistered(t *testing.T) {
	st, err := dest.OpenStore("rclone:s3:bucket/show/", nil)
	require.NoError(t, err)
	require.Equal(t, "rclone:s3:bucket/show", st.String())
	require.Equal(t, "s3: connection refused", st.Cause("connection refused"))
	require.Equal(t, "s3: connection refused", st.Cause(`rclone copyurl rclone:s3:bucket/a.mov: Put "http://127.0.0.1:9/bucket/a.mov": dial tcp 127.0.0.1:9: connect: connection refused`),
		"an upload's whole error, short")
	require.Equal(t, "", st.Cause(""))
	require.Equal(t, streamWorkers, st.Streams())
	limited, err := dest.OpenStore("rclone:s3:bucket", Settings{Rclone: &cloud.Rclone{BwLimit: "1M"}})
	require.NoError(t, err)
	require.Equal(t, 1, limited.Streams(), "rclone limits each process: one stream at once under a limit")
	require.Error(t, dest.ParseRemote("rclone:nocolon"))
	_, err = dest.OpenStore("rclone:s3:x", otherSettings{})
	require.ErrorContains(t, err, "are not remote.Settings")
}

type otherSettings struct{}

func (otherSettings) Recorded() (string, string)       { return "", "" }
func (otherSettings) With(string, int64) dest.Settings { return otherSettings{} }

// The settings a job settles with are the front end's rclone with the
// job's configuration file and limit, in bytes/s (rclone's binary units
// cannot change it); the front end's own rclone is left as it was, and
// none is rclone on PATH with the job's.
func TestSettings(t *testing.T) {
	given := &cloud.Rclone{Bin: "/opt/rclone", Config: "my.conf", BwLimit: "20MB/s", Tries: 2}
	config, bw := Settings{Rclone: given}.Recorded()
	require.Equal(t, "my.conf", config)
	require.Equal(t, "20MB/s", bw)
	r, err := Rclone(dest.Settle(Settings{Rclone: given}, "/job/rclone.conf", 20_000_000))
	require.NoError(t, err)
	require.Equal(t, cloud.Rclone{Bin: "/opt/rclone", Config: "/job/rclone.conf", BwLimit: "20000000B", Tries: 2}, *r)
	require.Equal(t, "20MB/s", given.BwLimit, "the front end's rclone is not changed")
	r, err = Rclone(dest.Settle(nil, "/job/rclone.conf", 0))
	require.NoError(t, err)
	require.Equal(t, cloud.Rclone{Config: "/job/rclone.conf"}, *r)
	c, b := Settings{}.Recorded()
	require.Equal(t, [2]string{"", ""}, [2]string{c, b})
}

// A Store lists a folder once and keeps the listing until it writes
// there; a folder's own objects (ListDir) are listed anew each time, by
// name, none of its folders'; the storage's own MD5 of a single-part object is the MD5 of
// its bytes; a stream cut short leaves no object.
// Through the job's rclone rcd, and with a process per transfer
// (DIT_RCLONE_DAEMON=0: where there is no parent-death signal).
func TestStoreOnS3(t *testing.T) {
	s := s3test.Start(t, "ditcloud", "shots")
	for _, name := range []string{"rcd", "processes"} {
		t.Run(name, func(t *testing.T) {
			if name == "processes" {
				t.Setenv("DIT_RCLONE_DAEMON", "0")
			}
			storeOnS3(t, s, "shots/"+name)
		})
	}
}

func storeOnS3(t *testing.T, s *s3test.Server, root string) {
	ctx := context.Background()
	st, err := Open("rclone:ditcloud:"+root, &cloud.Rclone{Env: s.Env, Tries: 1})
	require.NoError(t, err)

	src := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(src, "CLIPS"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(src, "CLIPS", "a.mov"), []byte("clip a"), 0o644))
	empty, err := st.List(ctx, "day01")
	require.NoError(t, err)
	require.Empty(t, empty, "a folder not there lists as empty")

	var last dest.Progress
	names, err := dest.NamesOf(st, []string{"CLIPS/a.mov"})
	require.NoError(t, err)
	defer names.Remove()
	require.NoError(t, st.Put(ctx, src, names, "day01", func(p dest.Progress) { last = p }))
	require.Equal(t, int64(6), last.Bytes)
	held, err := st.List(ctx, "day01")
	require.NoError(t, err)
	require.Equal(t, dest.Object{Size: 6, StorageMD5: md5hex("clip a")}, held["CLIPS/a.mov"])

	// Written by someone else: the kept listing does not see it (one
	// listing per folder until the store writes there)...
	other := filepath.Join(t.TempDir(), "b.mov")
	require.NoError(t, os.WriteFile(other, []byte("clip b"), 0o644))
	s.Rclone(t, "copyto", other, "ditcloud:"+root+"/day01/CLIPS/b.mov")
	again, err := st.Once().List(ctx, "day01")
	require.NoError(t, err)
	require.Len(t, again, 1, "Once shares the store's listings")
	// ...a write there forgets it.
	require.NoError(t, st.PutStream(ctx, "day01/CLIPS/c.mov", 6, strings.NewReader("clip c"), nil))
	held, err = st.List(ctx, "day01")
	require.NoError(t, err)
	require.Len(t, held, 3)
	require.Equal(t, md5hex("clip c"), held["CLIPS/c.mov"].StorageMD5)

	// A folder's own listing: its objects by name, none of its
	// folders', listed anew each time.
	in, err := st.ListDir(ctx, "day01/CLIPS")
	require.NoError(t, err)
	require.Equal(t, map[string]dest.Object{
		"a.mov": {Size: 6, StorageMD5: md5hex("clip a")}, "b.mov": {Size: 6, StorageMD5: md5hex("clip b")},
		"c.mov": {Size: 6, StorageMD5: md5hex("clip c")}}, in)
	top, err := st.ListDir(ctx, "day01")
	require.NoError(t, err)
	require.Empty(t, top, "the objects of its folders are not the folder's")
	s.Rclone(t, "copyto", other, "ditcloud:"+root+"/day01/CLIPS/e.mov")
	in, err = st.ListDir(ctx, "day01/CLIPS")
	require.NoError(t, err)
	require.Contains(t, in, "e.mov", "never kept")
	none, err := st.ListDir(ctx, "day02")
	require.NoError(t, err)
	require.Empty(t, none, "a folder not there lists as empty")

	rc, err := st.Open(ctx, "day01/CLIPS/c.mov", 6)
	require.NoError(t, err)
	got, err := io.ReadAll(rc)
	require.NoError(t, err)
	require.NoError(t, rc.Close())
	require.Equal(t, "clip c", string(got))

	pr, pw := io.Pipe()
	go func() {
		pw.Write([]byte("cut"))
		pw.CloseWithError(errors.New("the card went away"))
	}()
	require.Error(t, st.PutStream(ctx, "day01/CLIPS/d.mov", 6, pr, nil))
	held, err = st.List(ctx, "day01")
	require.NoError(t, err)
	require.NotContains(t, held, "CLIPS/d.mov", "nothing partial carries a name")

	stage, err := st.Stage("dit-history-")
	require.NoError(t, err)
	defer os.RemoveAll(stage)
	fi, err := os.Stat(stage)
	require.NoError(t, err)
	require.True(t, fi.IsDir())
}
