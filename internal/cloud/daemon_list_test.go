//go:build linux

package cloud_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/cloud"
	"github.com/dit-org/dit/internal/cloud/s3test"
)

// Listings through the daemon, of two S3 servers holding the same keys
// (other bytes under each) and asked at the same time, each prove their
// own objects: the ETags each takes from the daemon's log are its own
// server's. The uploads' bytes are never written to the log (the
// transfers' backend dumps nothing), the listings' responses are: the
// log stays far smaller than what went up.
func TestDaemonListingsProveTheirOwnObjects(t *testing.T) {
	t.Setenv("DIT_RCLONE_DAEMON", "") // the daemon, whatever the run's environment says
	a, b := s3test.StartChecked(t, "dita", "shots"), s3test.StartChecked(t, "ditb", "shots")
	r := &cloud.Rclone{Env: append(append([]string(nil), a.Env...), b.Env...), Config: os.DevNull}
	ctx := context.Background()
	_, release := cloud.HoldDaemon(r)
	defer release()
	big := make([]byte, 12<<20)
	for i := range big {
		big[i] = byte(i * 7)
	}
	want := map[string]map[string]string{}
	for _, remote := range []string{"dita", "ditb"} {
		d := cloud.Dest{Remote: remote, Path: "shots/show"}
		want[remote] = map[string]string{}
		for i := range 3 {
			body := []byte(fmt.Sprintf("%s's clip %d", remote, i))
			rel := fmt.Sprintf("A001/C%03d.mov", i)
			require.NoError(t, r.Rcat(ctx, d, rel, int64(len(body)), strings.NewReader(string(body))))
			want[remote][rel] = md5hex(body)
		}
	}
	require.NoError(t, r.Rcat(ctx, cloud.Dest{Remote: "dita", Path: "shots/big"}, "big.mov", int64(len(big)), strings.NewReader(string(big))))

	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 4 {
		for _, remote := range []string{"dita", "ditb"} {
			wg.Go(func() {
				objs, err := r.List(ctx, cloud.Dest{Remote: remote, Path: "shots/show"}, "A001")
				if err != nil {
					errs <- err
					return
				}
				for rel, md5 := range want[remote] {
					if got := objs[strings.TrimPrefix(rel, "A001/")].ServerMD5(); got != md5 {
						errs <- fmt.Errorf("%s %s: the storage's MD5 %q, want %q", remote, rel, got, md5)
					}
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	objs, err := r.List(ctx, cloud.Dest{Remote: "dita", Path: "shots/big"}, "")
	require.NoError(t, err)
	require.Equal(t, md5hex(big), objs["big.mov"].ServerMD5())
	logged := cloud.DaemonLogBytes(r)
	require.NotZero(t, logged)
	require.Less(t, logged, int64(len(big)/4), "the upload's bytes are not in the daemon's log")
}

// A remote that is not S3 lists through the daemon with rclone's MD5s
// and no ETag (no proof of the storage's own: each object is read back),
// its paths relative to the folder listed; a folder not there lists as
// empty.
func TestDaemonListsALocalRemote(t *testing.T) {
	t.Setenv("DIT_RCLONE_DAEMON", "") // the daemon, whatever the run's environment says
	needRclone(t)
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "show", "A001", "sub"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "show", "A001", "sub", "c.mov"), []byte("clip"), 0o644))
	bin, runs := loggingRclone(t)
	r := &cloud.Rclone{Bin: bin, Env: []string{"RCLONE_CONFIG_DITLOC_TYPE=local"}, Config: os.DevNull}
	d := cloud.Dest{Remote: "ditloc", Path: filepath.ToSlash(dir) + "/show"}
	objs, err := r.List(context.Background(), d, "A001")
	require.NoError(t, err)
	require.Equal(t, map[string]cloud.Object{"sub/c.mov": {Rel: "sub/c.mov", Size: 4, MD5: md5hex([]byte("clip"))}}, objs)
	require.Equal(t, "", objs["sub/c.mov"].ServerMD5())
	objs, err = r.List(context.Background(), d, "A002")
	require.NoError(t, err)
	require.Empty(t, objs)
	require.Equal(t, []string{"rcd"}, runs())
}

// The checks of a local-type remote's absolute path under the folder dit
// runs in (the path its refusal of a relative one says to write) are the
// daemon's alone: rclone took the path as it is written, so it depends
// on no working folder, and no process is run elsewhere to find out.
func TestCheckAbsoluteLocalPathUnderTheWorkingFolder(t *testing.T) {
	t.Setenv("DIT_RCLONE_DAEMON", "") // the daemon, whatever the run's environment says
	needRclone(t)
	wd := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(wd, "rel"), 0o755))
	t.Chdir(wd)
	bin, runs := loggingRclone(t)
	r := &cloud.Rclone{Bin: bin, Env: []string{"RCLONE_CONFIG_DITLOC_TYPE=local"}, Config: os.DevNull}
	require.NoError(t, r.CheckDest(context.Background(), "rclone:ditloc:"+filepath.ToSlash(filepath.Join(wd, "rel"))))
	require.Equal(t, []string{"rcd"}, runs())
	err := r.CheckDest(context.Background(), "rclone:ditloc:rel")
	require.ErrorContains(t, err, "is a folder relative to the one dit runs in")
}

// A user's own log settings for rclone in the environment (a log file,
// JSON logs, another format) do not take the daemon's log from dit: it
// starts, and its listings prove the storage's MD5.
func TestDaemonLogsWhereDitReadsThem(t *testing.T) {
	t.Setenv("DIT_RCLONE_DAEMON", "") // the daemon, whatever the run's environment says
	s := s3test.StartChecked(t, "ditcloud", "shots")
	logf := filepath.Join(t.TempDir(), "rclone.log")
	bin, runs := loggingRclone(t)
	r := &cloud.Rclone{Bin: bin, Config: os.DevNull, Env: append([]string{"RCLONE_LOG_FILE=" + logf, "RCLONE_USE_JSON_LOG=true",
		"RCLONE_LOG_FORMAT=pid", "RCLONE_SYSLOG=true"}, s.Env...)}
	d := cloud.Dest{Remote: "ditcloud", Path: "shots/show"}
	require.NoError(t, r.Rcat(context.Background(), d, "a.mov", 5, strings.NewReader("a.mov")))
	objs, err := r.List(context.Background(), d, "")
	require.NoError(t, err)
	require.Equal(t, md5hex([]byte("a.mov")), objs["a.mov"].ServerMD5())
	require.Equal(t, []string{"rcd"}, runs())
	_, err = os.Stat(logf)
	require.ErrorIs(t, err, os.ErrNotExist, "the daemon's log is dit's")
}
