//go:build unix

package offload

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/cloud"
	"github.com/dit-org/dit/internal/cloud/s3test"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload/dest/remote"
	"github.com/dit-org/dit/internal/testneeds"
	"github.com/dit-org/dit/raid"
)

// A card cascaded to the cloud (-d folder, --then rclone:...): free once
// its first copy verifies, safe to format once every object verifies by
// the storage's own MD5; MD5 is hashed though not asked for; the remote
// holds the card whole, the first copy's hash lists with it.
func TestCascadeToCloud(t *testing.T) {
	s := s3test.Start(t, "ditcloud", "shots")
	e := newEnv(t)
	card := testCard(t, e.dir, "A001", map[string]string{
		"clip1.mov": bigContent(300<<10, 1), "sub/clip2.mov": bigContent(100<<10, 2), "empty.txt": "",
	})
	first := e.dest("raid")
	o := e.opts([]string{card}, []string{first})
	o.Hashes = []hashing.Algo{hashing.XXH64}
	o.Then = []string{"rclone:ditcloud:shots/show"}
	o.Remote = remote.Settings{Rclone: &cloud.Rclone{Env: s.Env}}
	o.Seal = nil
	s1, err := e.run(o)
	require.NoError(t, err)
	require.Equal(t, ExitOK, s1.ExitCode, "%+v", s1.Cards)
	require.Equal(t, "xxh64,md5", s1.Hashes, "MD5 added: the storage checksum is compared with it")
	c := s1.Cards[0]
	require.True(t, c.CardFree)
	require.True(t, c.SafeToFormat, c.Verdict)
	require.Equal(t, StateVerified, c.Then.State)

	k, err := e.cat.Cards(s1.JobID)
	require.NoError(t, err)
	require.Len(t, k, 2)
	files, err := e.cat.Files(k[1].ID)
	require.NoError(t, err)
	require.Len(t, files, 3)
	for _, f := range files {
		require.Equal(t, StateVerified, f.State, f.Rel)
		require.Len(t, f.Copies, 1)
		require.Equal(t, "s3-etag:md5", f.Copies[0].VerifyAlgos, f.Rel)
	}
	objs, err := rcloneOf(o).List(context.Background(), cloud.Dest{Remote: "ditcloud", Path: "shots/show"}, "day01/A001")
	require.NoError(t, err)
	require.Len(t, objs, 3)
	want := treeHashes(t, filepath.Join(first, "day01", "A001"))
	require.Len(t, want, 3)
}

// An object the remote holds as a multipart upload (its md5 only the
// uploader's claim) is not verified by that claim: it is read back.
// An object overwritten on the server after the job is found failed by
// Recheck (dit verify), by the storage's own MD5, and the card is no
// longer safe.
func TestCloudReadBackAndRecheck(t *testing.T) {
	s := s3test.StartAWS(t, "ditcloud", "shots")
	e := newEnv(t)
	card := testCard(t, e.dir, "A001", map[string]string{"big.mov": bigContent(6<<20, 3), "small.mov": bigContent(1000, 4)})
	first := e.dest("raid")
	// Someone's earlier multipart upload of the card's big file, in place.
	s.Rclone(t, "copy", card, "ditcloud:shots/show/day01/A001", "--include", "big.mov", "--s3-upload-cutoff", "5M", "--s3-chunk-size", "5M")
	o := e.opts([]string{card}, []string{first, "rclone:ditcloud:shots/show"})
	o.Remote = remote.Settings{Rclone: &cloud.Rclone{Env: s.Env}}
	o.Seal = nil
	s1, err := e.run(o)
	require.NoError(t, err)
	require.Equal(t, ExitOK, s1.ExitCode, "%+v", s1.Cards)
	require.Equal(t, []string{first}, s1.Destinations, "-d rclone: goes to the second run")
	require.Equal(t, []string{"rclone:ditcloud:shots/show"}, s1.Then)
	k, err := e.cat.Cards(s1.JobID)
	require.NoError(t, err)
	files, err := e.cat.Files(k[1].ID)
	require.NoError(t, err)
	how := map[string]string{}
	for _, f := range files {
		how[f.Rel] = f.Copies[0].VerifyAlgos
	}
	require.Equal(t, map[string]string{"big.mov": "readback:xxh64", "small.mov": "s3-etag:md5"}, how)

	// dit verify --verify-hashes all: every cloud object downloaded and
	// hashed, and recorded so.
	ok, err := RecheckWith(context.Background(), e.cat, nil, s1.JobID, RecheckOptions{All: true, Remote: o.Remote})
	require.NoError(t, err)
	require.True(t, ok)
	files, err = e.cat.Files(k[1].ID)
	require.NoError(t, err)
	for _, f := range files {
		require.Equal(t, "readback:md5,xxh64", f.Copies[0].VerifyAlgos, f.Rel)
	}

	// The small object overwritten on the server with other bytes.
	other := filepath.Join(e.dir, "other")
	testCard(t, other, "x", map[string]string{"small.mov": bigContent(1000, 9)})
	s.Rclone(t, "copyto", filepath.Join(other, "x", "small.mov"), "ditcloud:shots/show/day01/A001/small.mov", "--ignore-times")
	var bad []RecheckResult
	ok, err = RecheckWith(context.Background(), e.cat, nil, s1.JobID, RecheckOptions{Remote: o.Remote, OnResult: func(r RecheckResult) {
		if r.State != StateVerified {
			bad = append(bad, r)
		}
	}})
	require.NoError(t, err)
	require.False(t, ok)
	require.Len(t, bad, 1)
	require.Equal(t, "rclone:ditcloud:shots/show/day01/A001/small.mov", bad[0].Path)
	require.Contains(t, bad[0].Error, "the object was replaced or changed since dit verified it (")
	s2, err := LoadSummary(e.cat, s1.JobID)
	require.NoError(t, err)
	require.False(t, s2.Cards[0].SafeToFormat, s2.Cards[0].Verdict)
}

// A job whose only destination is a cloud one: the card's files hashed as
// dit reads them, uploaded from the card, each verified by the storage's
// MD5 against that read; the card is safe to format.
func TestCardToCloudDirect(t *testing.T) {
	s := s3test.Start(t, "ditcloud", "shots")
	e := newEnv(t)
	card := testCard(t, e.dir, "A001", map[string]string{"clip1.mov": bigContent(200<<10, 5), "sub/c.mov": bigContent(50<<10, 6)})
	o := e.opts([]string{card}, []string{"rclone:ditcloud:shots/direct"})
	o.Remote = remote.Settings{Rclone: &cloud.Rclone{Env: s.Env}}
	o.Seal = nil
	s1, err := e.run(o)
	require.NoError(t, err)
	require.Equal(t, ExitOK, s1.ExitCode, "%+v", s1.Cards)
	require.Equal(t, []string{"rclone:ditcloud:shots/direct"}, s1.Destinations)
	require.True(t, s1.Cards[0].SafeToFormat, s1.Cards[0].Verdict)
	k, err := e.cat.Cards(s1.JobID)
	require.NoError(t, err)
	require.Len(t, k, 1)
	files, err := e.cat.Files(k[0].ID)
	require.NoError(t, err)
	require.Len(t, files, 2)
	for _, f := range files {
		require.Equal(t, StateVerified, f.State)
		require.Equal(t, "s3-etag:md5", f.Copies[0].VerifyAlgos)
		require.Equal(t, hashing.Bytes([]hashing.Algo{hashing.MD5}, mustRead(t, filepath.Join(card, f.Rel))).Get(hashing.MD5), f.Sums.Get(hashing.MD5))
	}

	// The same card to the same folder again: what is there with the
	// card's MD5 is verified as it is, not sent again (the objects keep
	// the server's time of writing).
	times := s.Rclone(t, "lsjson", "-R", "--files-only", "--use-server-modtime", "ditcloud:shots/direct/day01/A001")
	s2, err := e.run(o)
	require.NoError(t, err)
	require.True(t, s2.Cards[0].SafeToFormat, s2.Cards[0].Verdict)
	require.Zero(t, s2.BytesCopied, "nothing sent again")
	require.Equal(t, times, s.Rclone(t, "lsjson", "-R", "--files-only", "--use-server-modtime", "ditcloud:shots/direct/day01/A001"))
}

// What dit cannot do with a cloud destination is refused before anything
// is recorded, saying what to do; a remote that is not configured is
// named.
func TestCloudRefusals(t *testing.T) {
	e := newEnv(t)
	card := testCard(t, e.dir, "A001", map[string]string{"a.mov": "a"})
	raid, shuttle := e.dest("raid"), e.dest("shuttle")
	for _, c := range []struct {
		dests, then []string
		verify      VerifyMode
		want        string
	}{
		{[]string{raid, "rclone:x:b"}, []string{shuttle}, "", "and --then folders in one job"},
		{[]string{raid}, []string{shuttle, "rclone:x:b"}, "", "and --then folders in one job"},
		{[]string{raid}, []string{"rclone:nocolon"}, "", "rclone:REMOTE:PATH"},
		{[]string{raid, "rclone:x:b"}, nil, VerifyNone, "--verify none"},
	} {
		o := e.opts([]string{card}, c.dests)
		o.Then, o.Verify = c.then, c.verify
		err := Check(o)
		require.ErrorContains(t, err, c.want, "%v %v", c.dests, c.then)
		var ue *UsageError
		require.ErrorAs(t, err, &ue)
	}
	testneeds.Tool(t, "rclone", "Debian: apt-get install rclone")
	// The words dit-gui shows (cloud.CheckDest): the remote missing from
	// the configuration, naming those it has; the configuration file
	// missing.
	conf := filepath.Join(e.dir, "empty.conf")
	require.NoError(t, os.WriteFile(conf, nil, 0o600))
	o := e.opts([]string{card}, []string{raid, "rclone:nosuchremote:b/x"})
	o.Remote = remote.Settings{Rclone: &cloud.Rclone{Config: conf, Tries: 1}}
	_, err := New(context.Background(), o)
	require.EqualError(t, err, `cloud destination rclone:nosuchremote:b/x: rclone's configuration has no remote "nosuchremote" (it has none): add it with rclone config, or write one of those`)
	o.Remote = remote.Settings{Rclone: &cloud.Rclone{Config: filepath.Join(e.dir, "none.conf"), Tries: 1}}
	_, err = New(context.Background(), o)
	require.EqualError(t, err, `cloud destination rclone:nosuchremote:b/x: the rclone configuration file `+filepath.Join(e.dir, "none.conf")+` does not exist, so rclone's configuration has no remote "nosuchremote": put the file back, give the one that defines it with --rclone-config, or add it with rclone config`)
	jobs, err := e.cat.Jobs()
	require.NoError(t, err)
	require.Empty(t, jobs, "a refused job leaves nothing behind")
}

// A cascade from a dit array to the cloud: rclone cannot read the array,
// so each file is read through it, checked against the card's hashes,
// and streamed; every object verifies by the storage's MD5.
func TestCascadeFromArrayToCloud(t *testing.T) {
	s := s3test.Start(t, "ditcloud", "shots")
	e := newEnv(t)
	card := testCard(t, e.dir, "A001", map[string]string{"clip1.mov": bigContent(300<<10, 7), "sub/c.mov": bigContent(70<<10, 8)})
	blades := makeArray(t, e, raid.RAID4, 3)
	o := e.opts([]string{card}, []string{blades[0]})
	o.Then = []string{"rclone:ditcloud:shots/arr"}
	o.Remote = remote.Settings{Rclone: &cloud.Rclone{Env: s.Env}}
	o.Seal = nil
	s1, err := e.run(o)
	require.NoError(t, err)
	require.Equal(t, ExitOK, s1.ExitCode, "%+v", s1.Cards)
	require.True(t, s1.Cards[0].SafeToFormat, s1.Cards[0].Verdict)
	k, err := e.cat.Cards(s1.JobID)
	require.NoError(t, err)
	files, err := e.cat.Files(k[1].ID)
	require.NoError(t, err)
	require.Len(t, files, 2)
	for _, f := range files {
		require.Equal(t, "s3-etag:md5", f.Copies[0].VerifyAlgos, f.Rel)
	}
	objs, err := rcloneOf(o).List(context.Background(), cloud.Dest{Remote: "ditcloud", Path: "shots/arr"}, "day01/A001")
	require.NoError(t, err)
	require.Equal(t, hashing.Bytes([]hashing.Algo{hashing.MD5}, mustRead(t, filepath.Join(card, "clip1.mov"))).Get(hashing.MD5), objs["clip1.mov"].ServerMD5())
}
