package assembly

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/cloud"
	"github.com/dit-org/dit/internal/cloud/s3test"
	"github.com/dit-org/dit/internal/offload"
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

	if _, err := exec.LookPath("rclone"); err != nil {
		t.Skip("rclone is not installed (apt-get install rclone)")
	}
	bucket := e.folder("bucket")
	s.Dests = []string{raid, "rclone:ditlocal:" + strings.TrimPrefix(bucket, "/") + "/day01"}
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
		CloudRoutes([]string{"/Volumes/RAID", "rclone:s3:show/day01", "/Volumes/SHUTTLE"}, nil))
	require.Equal(t, []string{"rclone:s3:show/day01 is streamed from the card as it is read (no copy on this machine); " +
		"the card is safe to format only when every object is verified in the cloud."},
		CloudRoutes([]string{"rclone:s3:show/day01"}, nil))
	require.Empty(t, CloudRoutes([]string{"/Volumes/RAID"}, []string{"rclone:s3:show/day01"}), "a cascade given as such")
	require.Empty(t, CloudRoutes([]string{"/Volumes/RAID"}, nil))

	err := CheckCloudDests([]string{"/Volumes/RAID", "rclone:s3:show"}, nil, offload.VerifyNone)
	var ue *offload.UsageError
	require.ErrorAs(t, err, &ue)
	require.ErrorContains(t, err, "a cloud destination with --verify none")
}

// CloudFree: a local-type remote's disk free space; none for S3.
func TestCloudFree(t *testing.T) {
	srv := s3test.Start(t, "ditfree", "shots")
	free, err := CloudFree(context.Background(), &cloud.Rclone{Env: srv.Env, Tries: 1}, "rclone:ditfree:shots/x")
	require.NoError(t, err)
	require.Equal(t, int64(-1), free)
	free, err = CloudFree(context.Background(), &cloud.Rclone{Env: []string{"RCLONE_CONFIG_DITLOCAL_TYPE=local"}, Tries: 1},
		"rclone:ditlocal:"+strings.TrimPrefix(t.TempDir(), "/"))
	require.NoError(t, err)
	require.Positive(t, free)
	_, err = CloudFree(context.Background(), nil, "rclone:bad")
	require.ErrorContains(t, err, "rclone:REMOTE:PATH")
}
