package assembly

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/cloud"
	"github.com/dit-org/dit/internal/cloud/s3test"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/testneeds"
	"github.com/dit-org/dit/internal/verdict"
)

// fakeSpace answers About from a table by remote, counting the asks.
type fakeSpace struct {
	space map[string]cloud.Space
	err   map[string]error
	asked []string
}

func (f *fakeSpace) About(_ context.Context, d cloud.Dest) (cloud.Space, error) {
	f.asked = append(f.asked, d.String())
	return f.space[d.Remote], f.err[d.Remote]
}

// A remote that reports less room than the upload needs refuses the job
// with the figures (decimal, adding up); one that reports none, or
// cannot be asked, is a note; each remote is asked once and needs the
// cards once per destination on it.
func TestCheckCloudSpace(t *testing.T) {
	ctx := context.Background()
	const gb = 1_000_000_000
	f := &fakeSpace{space: map[string]cloud.Space{
		"box": {Known: true, Free: 30 * gb, Total: 100 * gb, Used: 70 * gb},
		"s3":  {Free: -1, Total: -1, Used: -1},
	}, err: map[string]error{"down": errors.New("rclone about: exit status 1: no route to host")}}

	notes, err := checkCloudSpace(ctx, f, []string{"/raid", "rclone:box:show/a", "rclone:s3:bucket/show", "rclone:down:x"}, 12*gb)
	require.NoError(t, err, "12 GB fit in 30 GB")
	require.Equal(t, []string{
		"free space of s3: unknown (the storage does not report it)",
		"free space of down: unknown (rclone about: exit status 1: no route to host)",
	}, notes)
	require.Equal(t, []string{"rclone:box:show/a", "rclone:s3:bucket/show", "rclone:down:x"}, f.asked)

	f.asked = nil
	_, err = checkCloudSpace(ctx, f, []string{"rclone:box:show/a", "rclone:box:show/b"}, 15*gb)
	require.EqualError(t, err, "not enough space on box (cloud destination rclone:box:show/a): the upload needs 30.0 GB and dit keeps a margin of 67.1 MB: 30.1 GB in all; "+
		"the storage reports 30.0 GB free, 67.1 MB short: free space on it or choose another destination")
	require.Equal(t, []string{"rclone:box:show/a"}, f.asked, "one ask per remote")

	_, err = checkCloudSpace(ctx, f, []string{"rclone:box:show/a"}, 40*gb)
	require.ErrorContains(t, err, "the upload needs 40.0 GB")
	require.ErrorContains(t, err, "the storage reports 30.0 GB free, 10.1 GB short")

	notes, err = checkCloudSpace(ctx, f, []string{"/raid", "rclone:bad"}, 40*gb)
	require.NoError(t, err, "a destination written wrong is the engine's to refuse")
	require.Empty(t, notes)
}

// Prepare asks the real rclone: S3 (moto) reports no free space, so the
// job goes on with the note; a local-type remote reports its disk's, and
// the job fits without a note.
func TestPrepareAsksTheRemotesFreeSpace(t *testing.T) {
	e := newEnv(t)
	a := e.card("A001")
	raid := e.folder("RAID")
	srv := s3test.Start(t, "ditspace", "shots")
	s := e.settings([]string{a}, []string{raid, "rclone:ditspace:shots/day01"})
	s.Rclone = &cloud.Rclone{Env: srv.Env, Tries: 1}
	s.Drives = DrivesOff
	p, err := Prepare(context.Background(), s)
	require.NoError(t, err)
	require.Contains(t, p.Notes, "free space of ditspace: unknown (the storage does not report it)")

	testneeds.Tool(t, "rclone", "Debian: apt-get install rclone")
	bucket := e.folder("bucket/day01")
	s.Dests = []string{raid, "rclone:ditlocal:" + bucket}
	s.Rclone = &cloud.Rclone{Env: []string{"RCLONE_CONFIG_DITLOCAL_TYPE=local"}, Tries: 1}
	p, err = Prepare(context.Background(), s)
	require.NoError(t, err)
	for _, n := range p.Notes {
		require.NotContains(t, n, "free space of")
	}
}

// What a front end says of a cloud destination given beside a folder
// (uploaded from the folder's verified copy, in a second run) or alone
// (streamed from the card), as the engine runs it.
func TestCloudRoutes(t *testing.T) {
	require.Equal(t, []string{"rclone:s3:show/day01 is uploaded from /Volumes/RAID's verified copy once the card is free (a second run: the card is not read for it); " +
		"the card is safe to format only when the cloud copy is verified too."},
		RemoteRoutes([]string{"/Volumes/RAID", "rclone:s3:show/day01", "/Volumes/SHUTTLE"}, nil))
	require.Equal(t, []string{"rclone:s3:show/day01 is streamed from the card as it is read (no copy on this machine); " +
		"the card is safe to format only when every object is verified in the cloud."},
		RemoteRoutes([]string{"rclone:s3:show/day01"}, nil))
	require.Empty(t, RemoteRoutes([]string{"/Volumes/RAID"}, []string{"rclone:s3:show/day01"}), "a cascade given as such")
	require.Empty(t, RemoteRoutes([]string{"/Volumes/RAID"}, nil))

	err := CheckRemoteDests([]string{"/Volumes/RAID", "rclone:s3:show"}, nil, offload.VerifyNone)
	var ue *offload.UsageError
	require.ErrorAs(t, err, &ue)
	require.ErrorContains(t, err, "a cloud destination with --verify none")
}

// RemoteFree: a local-type remote's disk free space; none for S3.
func TestCloudFree(t *testing.T) {
	srv := s3test.Start(t, "ditfree", "shots")
	free, err := RemoteFree(context.Background(), &cloud.Rclone{Env: srv.Env, Tries: 1}, "rclone:ditfree:shots/x")
	require.NoError(t, err)
	require.Equal(t, int64(-1), free)
	free, err = RemoteFree(context.Background(), &cloud.Rclone{Env: []string{"RCLONE_CONFIG_DITLOCAL_TYPE=local"}, Tries: 1},
		"rclone:ditlocal:"+t.TempDir())
	require.NoError(t, err)
	require.Positive(t, free)
	_, err = RemoteFree(context.Background(), nil, "rclone:bad")
	require.ErrorContains(t, err, "rclone:REMOTE:PATH")
}

// A job to a local-type remote's absolute folder (rclone:REMOTE:/abs),
// run from another working folder: every file lands, byte for byte, in
// the folder dit records and prints (REMOTE:/abs/JOB/CARD), none under
// the working folder; a resume from a third folder checks and finds the
// same folder.
func TestCloudLocalAbsoluteFolder(t *testing.T) {
	needRclone(t)
	e := newEnv(t)
	a := e.card("A001")
	dest := e.folder("LOC DEST Ü")
	wd := e.folder("elsewhere")
	t.Chdir(wd)
	s := e.settings([]string{a}, []string{"rclone:ditloc:" + dest})
	s.Rclone = &cloud.Rclone{Env: []string{"RCLONE_CONFIG_DITLOC_TYPE=local"}, Tries: 1}
	s.Drives = DrivesOff
	_, j, sum := e.run(s)
	require.Equal(t, verdict.Done, sum.Status)
	require.True(t, sum.Cards[0].SafeToFormat)
	require.Equal(t, []string{"rclone:ditloc:" + dest}, sum.Destinations)
	require.Equal(t, "rclone:ditloc:"+dest+"/day01/A001", sum.Cards[0].Destinations[0].Path, "the folder dit prints")
	require.Equal(t, 3, sum.Cards[0].Destinations[0].Verified)
	ds, err := e.cat.Dests(j.ID())
	require.NoError(t, err)
	require.Equal(t, "rclone:ditloc:"+dest, ds[0].Path, "the folder the catalog records")
	for _, f := range []string{"CLIPS/A001C001.MOV", "CLIPS/A001C002.MOV", "META/info.xml"} {
		want, err := os.ReadFile(filepath.Join(a, f))
		require.NoError(t, err)
		got, err := os.ReadFile(filepath.Join(dest, "day01", "A001", f))
		require.NoError(t, err, "in the folder printed")
		require.Equal(t, want, got, f)
	}
	left, err := os.ReadDir(wd)
	require.NoError(t, err)
	require.Empty(t, left, "nothing under the working folder")

	t.Chdir(e.folder("third"))
	rs := e.settings(nil, nil)
	rs.Resume, rs.Rclone, rs.Drives = j.ID(), s.Rclone, DrivesOff
	_, err = Prepare(context.Background(), rs)
	require.NoError(t, err, "the recorded folder is there from any working folder")
}

// A cloud destination rclone refuses as it stands stops the job before
// it is recorded, as a usage error in the words of the GUI's check: a
// bucket that is not there (moto), no folder named, a path relative to
// the working folder; a resumed job's recorded destinations are checked
// too (the remote missing from the configuration it runs with).
func TestCloudDestRefusedBeforeTheJob(t *testing.T) {
	e := newEnv(t)
	a := e.card("A001")
	srv := s3test.Start(t, "ditchk", "shots")
	rc := &cloud.Rclone{Env: append(srv.Env, "RCLONE_CONFIG_DITLOC_TYPE=local"), Tries: 1}
	t.Chdir(e.folder("wd"))
	for _, d := range []string{"rclone:ditchk:nobucket/show", "rclone:ditchk:", "rclone:ditloc:rel"} {
		s := e.settings([]string{a}, []string{d})
		s.Rclone, s.Drives = rc, DrivesOff
		_, err := Prepare(context.Background(), s)
		var ue *UsageError
		require.ErrorAs(t, err, &ue, d)
		require.Equal(t, CheckRemoteDest(context.Background(), rc, d).Error(), err.Error(), "one wording: %s", d)
		require.Zero(t, e.jobs(), d)
	}

	s := e.settings([]string{a}, []string{"rclone:ditchk:shots/show"})
	s.Rclone, s.Drives = rc, DrivesOff
	_, j, sum := e.run(s)
	require.Equal(t, verdict.Done, sum.Status)
	rs := e.settings(nil, nil)
	rs.Resume, rs.Drives = j.ID(), DrivesOff
	rs.Rclone = &cloud.Rclone{Config: emptyRcloneConf(t, e.dir), Env: []string{"RCLONE_CONFIG_OTHER_TYPE=local"}, Tries: 1}
	_, err := Prepare(context.Background(), rs)
	var ue *UsageError
	require.ErrorAs(t, err, &ue)
	require.EqualError(t, err, fmt.Sprintf(`job %d not resumed (left as it was): cloud destination rclone:ditchk:shots/show: rclone's configuration has no remote "ditchk" (it has other): add it with rclone config, or write one of those`, j.ID()))
}

func needRclone(t *testing.T) {
	t.Helper()
	testneeds.Tool(t, "rclone", "Debian: apt-get install rclone")
}

// emptyRcloneConf is an rclone configuration file in dir with no remote
// in it (one that is not there is refused as such by cloud.Check).
func emptyRcloneConf(t *testing.T, dir string) string {
	t.Helper()
	f := filepath.Join(dir, "empty.conf")
	require.NoError(t, os.WriteFile(f, nil, 0o600))
	return f
}
