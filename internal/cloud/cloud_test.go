package cloud_test

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/cloud"
	"github.com/dit-org/dit/internal/cloud/s3test"
)

// Parse keeps what rclone reads: a leading slash (an absolute path on a
// local, SFTP or SMB remote) stays, a path without one stays relative;
// String gives back the cleaned destination and At the rclone path of a
// file under it, with any Unicode name.
func TestParse(t *testing.T) {
	for _, c := range []struct{ in, remote, path, str, at string }{
		{"rclone:s3backup:bucket/shows/", "s3backup", "bucket/shows", "rclone:s3backup:bucket/shows", "s3backup:bucket/shows/A001/x.mov"},
		{"rclone:s3:bucket/p", "s3", "bucket/p", "rclone:s3:bucket/p", "s3:bucket/p/A001/x.mov"},
		{"rclone:loc:/tmp/x", "loc", "/tmp/x", "rclone:loc:/tmp/x", "loc:/tmp/x/A001/x.mov"},
		{"rclone:loc://tmp/./x/", "loc", "/tmp/x", "rclone:loc:/tmp/x", "loc:/tmp/x/A001/x.mov"},
		{"rclone:loc:/../x", "loc", "/x", "rclone:loc:/x", "loc:/x/A001/x.mov"},
		{"rclone:loc:/", "loc", "/", "rclone:loc:/", "loc:/A001/x.mov"},
		{"rclone:loc:rel", "loc", "rel", "rclone:loc:rel", "loc:rel/A001/x.mov"},
		{"rclone:loc:rel/../other", "loc", "other", "rclone:loc:other", "loc:other/A001/x.mov"},
		{"rclone:remote:", "remote", "", "rclone:remote:", "remote:A001/x.mov"},
		{"rclone:s3:Drehtag Ü/Szene 1 – 日本", "s3", "Drehtag Ü/Szene 1 – 日本", "rclone:s3:Drehtag Ü/Szene 1 – 日本", "s3:Drehtag Ü/Szene 1 – 日本/A001/x.mov"},
		{"rclone:ü日本:/srv/Été", "ü日本", "/srv/Été", "rclone:ü日本:/srv/Été", "ü日本:/srv/Été/A001/x.mov"},
		{"rclone:smb:share\\show", "smb", "share/show", "rclone:smb:share/show", "smb:share/show/A001/x.mov"},
	} {
		d, err := cloud.Parse(c.in)
		require.NoError(t, err, c.in)
		require.Equal(t, cloud.Dest{Remote: c.remote, Path: c.path}, d, c.in)
		require.Equal(t, c.str, d.String(), c.in)
		require.Equal(t, c.at, d.At("A001/x.mov"), c.in)
		require.Equal(t, strings.TrimPrefix(c.str, cloud.Prefix), d.At(""), c.in)
		again, err := cloud.Parse(d.String())
		require.NoError(t, err, c.in)
		require.Equal(t, d, again, "String parses back to the same destination: %s", c.in)
	}
	for _, bad := range []string{"rclone:", "rclone:bucket", "rclone::x", "/Volumes/RAID", "rclone:my remote:x"} {
		_, err := cloud.Parse(bad)
		require.Error(t, err, bad)
		require.Contains(t, err.Error(), "rclone:REMOTE:PATH")
	}
	require.True(t, cloud.IsDest("rclone:a:b"))
	require.False(t, cloud.IsDest("/tmp/rclone:a"))
}

func md5hex(b []byte) string { s := md5.Sum(b); return hex.EncodeToString(s[:]) }

// TestUploadListOpen: files go up with their paths, the storage's own
// MD5 (S3's ETag) lists with them, an object reads back whole, and a
// second upload of the same files sends nothing.
func TestUploadListOpen(t *testing.T) {
	s := s3test.Start(t, "ditcloud", "shots")
	eachPath(t, func(t *testing.T, name string) { uploadListOpen(t, s, name) })
}

// eachPath runs f as a subtest for each path of the transfers: through
// the job's rclone rcd ("rcd"), and a process each ("processes",
// DIT_RCLONE_DAEMON=0: where there is no parent-death signal).
func eachPath(t *testing.T, f func(t *testing.T, name string)) {
	for _, name := range []string{"rcd", "processes"} {
		t.Run(name, func(t *testing.T) {
			if name == "processes" {
				t.Setenv("DIT_RCLONE_DAEMON", "0")
			}
			f(t, name)
		})
	}
}

func uploadListOpen(t *testing.T, s *s3test.Server, name string) {
	src := t.TempDir()
	files := map[string][]byte{
		"A001/clip1.mov":           []byte(strings.Repeat("frame", 200000)),
		"A001/sub/clip2.mov":       []byte(strings.Repeat("other", 300000)),
		"A001/name with space.txt": []byte("hello"),
	}
	var rels []string
	var total int64
	for rel, b := range files {
		p := filepath.Join(src, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, b, 0o644))
		rels = append(rels, rel)
		total += int64(len(b))
	}
	r := &cloud.Rclone{Env: s.Env, BwLimit: "100M"}
	d, err := cloud.Parse("rclone:ditcloud:shots/" + name)
	require.NoError(t, err)
	ctx := context.Background()
	require.NoError(t, r.Check(ctx, d))
	var last cloud.Progress
	require.NoError(t, r.Upload(ctx, src, rels, d, "", func(p cloud.Progress) { last = p }))
	require.Equal(t, total, last.Bytes, "the progress ends at every byte sent")

	objs, err := r.List(ctx, d, "A001")
	require.NoError(t, err)
	require.Len(t, objs, 3)
	for rel, b := range files {
		o := objs[strings.TrimPrefix(rel, "A001/")]
		require.Equal(t, int64(len(b)), o.Size, rel)
		require.Equal(t, md5hex(b), o.ServerMD5(), "%s: the ETag of a single-part object is its MD5", rel)
	}

	rc, err := r.Open(ctx, d, "A001/sub/clip2.mov", int64(len(files["A001/sub/clip2.mov"])))
	require.NoError(t, err)
	got, err := io.ReadAll(rc)
	require.NoError(t, err)
	require.NoError(t, rc.Close())
	require.Equal(t, files["A001/sub/clip2.mov"], got)

	last = cloud.Progress{Bytes: -1}
	require.NoError(t, r.Upload(ctx, src, rels, d, "", func(p cloud.Progress) { last = p }))
	require.LessOrEqual(t, last.Bytes, int64(0), "what the remote holds is not sent again")

	rc, err = r.Open(ctx, d, "A001/none.mov", 5)
	require.NoError(t, err)
	io.ReadAll(rc)
	require.ErrorContains(t, rc.Close(), "read 0 bytes, not 5")
}

// TestMultipartNotServer: a multipart object's MD5 (rclone's metadata,
// the uploader's claim) is not taken for the storage's own, listed
// through the daemon or by a process; a single-part one's is.
func TestMultipartNotServer(t *testing.T) {
	s := s3test.StartAWS(t, "ditcloud", "shots")
	src := t.TempDir()
	b := make([]byte, 12<<20)
	for i := range b {
		b[i] = byte(i * 7)
	}
	require.NoError(t, os.WriteFile(filepath.Join(src, "big.bin"), b, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(src, "small.bin"), b[:1000], 0o644))
	s.Rclone(t, "copy", src, "ditcloud:shots/mp", "--s3-upload-cutoff", "5M", "--s3-chunk-size", "5M")
	eachPath(t, func(t *testing.T, _ string) {
		r := &cloud.Rclone{Env: s.Env}
		objs, err := r.List(context.Background(), cloud.Dest{Remote: "ditcloud", Path: "shots/mp"}, "")
		require.NoError(t, err)
		o := objs["big.bin"]
		require.Equal(t, md5hex(b), o.MD5, "rclone reports the uploader's md5")
		require.Contains(t, o.ETag, "-", "a multipart ETag")
		require.Equal(t, "", o.ServerMD5(), "the claim does not count")
		require.Equal(t, md5hex(b[:1000]), objs["small.bin"].ServerMD5(), "one part: the storage's own")
	})
}

// TestErrors: a remote that is not configured is named, with what to
// do; a failing upload is tried again, then reported with its tries.
func TestErrors(t *testing.T) {
	if _, err := os.Stat("/usr/bin/rclone"); err != nil {
		if _, err := cloud.Parse("rclone:x:y"); err != nil {
			t.Fatal(err)
		}
	}
	needRclone(t)
	r := &cloud.Rclone{Tries: 2, Backoff: 1, Config: filepath.Join(t.TempDir(), "none.conf")}
	d := cloud.Dest{Remote: "nosuchremote", Path: "b/x"}
	err := r.Check(context.Background(), d)
	if err != nil && strings.Contains(err.Error(), "not installed") {
		t.Skip(err.Error())
	}
	require.Error(t, err)
	require.Contains(t, err.Error(), `"nosuchremote"`)
	require.Contains(t, err.Error(), "add it with rclone config")
	src := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(src, "f"), []byte("x"), 0o644))
	err = r.Upload(context.Background(), src, []string{"f"}, d, "", nil)
	require.Error(t, err)
	require.Contains(t, err.Error(), "2 tries")
	require.NotRegexp(t, `\d{4}/\d\d/\d\d \d\d:\d\d:\d\d`, err.Error(), "rclone's words without its log's date and time")
}
