package cloud_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/cloud"
	"github.com/dit-org/dit/internal/cloud/s3test"
	"github.com/dit-org/dit/internal/testneeds"
)

// checkRefused: CheckDest refuses s with a *cloud.DestError saying msg
// (the whole message: what a person reads).
func checkRefused(t *testing.T, r *cloud.Rclone, s, msg string) {
	t.Helper()
	err := r.CheckDest(context.Background(), s)
	require.Error(t, err, s)
	var de *cloud.DestError
	require.ErrorAs(t, err, &de, "%s: %v", s, err)
	require.Equal(t, msg, err.Error(), s)
}

// emptyConf is an rclone configuration file with no remote in it: the
// tests' remotes are the environment's alone.
func emptyConf(t *testing.T) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "empty.conf")
	require.NoError(t, os.WriteFile(f, nil, 0o600))
	return f
}

// A configuration file given that is not there is named first, whether
// the environment defines other remotes, the destination's remote too,
// or none: not "no remote" (rclone takes a missing file for an empty
// one). The same file, put back, is taken.
func TestCheckConfigMissing(t *testing.T) {
	srv := s3test.Start(t, "ditcfg", "shots")
	conf := filepath.Join(t.TempDir(), "my rclone.conf")
	r := &cloud.Rclone{Config: conf, Env: append(srv.Env, "RCLONE_CONFIG_OTHER_TYPE=local"), Tries: 1}
	checkRefused(t, r, "rclone:cfg:shots/x", "cloud destination rclone:cfg:shots/x: the rclone configuration file "+conf+
		` does not exist, so rclone's configuration has no remote "cfg": put the file back, give the one that defines it with --rclone-config, or add it with rclone config`)
	checkRefused(t, r, "rclone:ditcfg:shots/x", "cloud destination rclone:ditcfg:shots/x: the rclone configuration file "+conf+
		` does not exist (the remote "ditcfg" is only defined by the environment, RCLONE_CONFIG_DITCFG_*): put the file back, or give the one that defines it with --rclone-config`)
	r.Env = nil
	checkRefused(t, r, "rclone:cfg:shots/x", "cloud destination rclone:cfg:shots/x: the rclone configuration file "+conf+
		` does not exist, so rclone's configuration has no remote "cfg": put the file back, give the one that defines it with --rclone-config, or add it with rclone config`)

	var b strings.Builder
	b.WriteString("[cfg]\n")
	for _, kv := range srv.Env {
		k, v, _ := strings.Cut(kv, "=")
		if rest, ok := strings.CutPrefix(k, "RCLONE_CONFIG_DITCFG_"); ok {
			b.WriteString(strings.ToLower(rest) + " = " + v + "\n")
		} else {
			r.Env = append(r.Env, kv)
		}
	}
	require.NoError(t, os.WriteFile(conf, []byte(b.String()), 0o600))
	require.NoError(t, r.CheckDest(context.Background(), "rclone:cfg:shots/x"))
}

// Against moto's S3 and the real rclone: an empty path, a remote not
// configured, a bucket that is not there (alone or with a folder) and a
// file are refused, each naming the destination and what to do; an
// existing bucket is taken, with a folder in it that holds objects or
// none (S3 has no folders: rclone lists a prefix with no object as an
// empty folder, so dit cannot tell it from a missing one).
func TestCheckS3(t *testing.T) {
	srv := s3test.Start(t, "ditchk", "shots")
	f := filepath.Join(t.TempDir(), "f.txt")
	require.NoError(t, os.WriteFile(f, []byte("x"), 0o644))
	srv.Rclone(t, "copyto", f, "ditchk:shots/has/f.txt")
	r := &cloud.Rclone{Config: emptyConf(t), Env: append(srv.Env,
		"RCLONE_CONFIG_DITALIAS_TYPE=alias", "RCLONE_CONFIG_DITALIAS_REMOTE=ditchk:shots",
		"RCLONE_CONFIG_DITNOBKT_TYPE=alias", "RCLONE_CONFIG_DITNOBKT_REMOTE=ditchk:nobucket"), Tries: 1}
	eachPath(t, func(t *testing.T, _ string) { checkS3(t, r) })
}

func checkS3(t *testing.T, r *cloud.Rclone) {
	ctx := context.Background()
	for _, ok := range []string{"rclone:ditchk:shots", "rclone:ditchk:shots/has", "rclone:ditchk:shots/nothing/yet", "rclone:ditchk:/shots/has",
		"rclone:ditchk:shots/Drehtag Ü/日本", "rclone:ditalias:has", "rclone:ditalias:nothing/yet"} {
		require.NoError(t, r.CheckDest(ctx, ok), ok)
	}
	const never = " (dit never creates a destination's bucket or folder, so a misspelt name cannot take the footage)"
	checkRefused(t, r, "rclone:ditchk:", "cloud destination rclone:ditchk: names no folder: write rclone:ditchk:BUCKET/FOLDER (on S3 a bucket and a folder in it) "+
		"or rclone:ditchk:/FOLDER, so that every job goes into that folder and not to the remote's root")
	checkRefused(t, r, "rclone:ditchk:nobucket", `cloud destination rclone:ditchk:nobucket: the bucket "nobucket" does not exist on the remote "ditchk": `+
		"create it with rclone mkdir ditchk:nobucket, or check the name"+never)
	checkRefused(t, r, "rclone:ditchk:nobucket/show/day 1", `cloud destination rclone:ditchk:nobucket/show/day 1: the bucket "nobucket" does not exist on the remote "ditchk": `+
		"create it with rclone mkdir ditchk:nobucket, or check the name"+never)
	checkRefused(t, r, "rclone:ditnobkt:show", `cloud destination rclone:ditnobkt:show: the bucket "nobucket" does not exist on the remote "ditnobkt": `+
		"create it with rclone mkdir ditnobkt:show, or check the name"+never)
	checkRefused(t, r, "rclone:ditchk:shots/has/f.txt", "cloud destination rclone:ditchk:shots/has/f.txt is a file, not a folder: give the folder to upload into")
	checkRefused(t, r, "rclone:nosuch:shots/x", `cloud destination rclone:nosuch:shots/x: rclone's configuration has no remote "nosuch" `+
		"(it has ditalias, ditchk, ditnobkt): add it with rclone config, or write one of those")
	checkRefused(t, r, "rclone:nocolon", `cloud destination "rclone:nocolon": write it rclone:REMOTE:PATH, e.g. rclone:s3backup:bucket/shows `+
		"(REMOTE a remote of your rclone configuration, see rclone listremotes)")

	// The engine's check (Check) says the same as the front end's.
	err := r.Check(ctx, cloud.Dest{Remote: "ditchk", Path: "nobucket/x"})
	require.ErrorContains(t, err, `the bucket "nobucket" does not exist on the remote "ditchk"`)
}

// A local-type remote: an absolute path is taken when its folder is
// there, refused naming it when not; a path without a leading slash
// (relative to the folder dit runs in) is refused with the absolute path
// to write instead, as is an alias of a relative folder.
func TestCheckLocal(t *testing.T) {
	needRclone(t)
	dir := t.TempDir()
	wd := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(wd, "rel"), 0o755))
	t.Chdir(wd)
	r := &cloud.Rclone{Config: emptyConf(t), Env: []string{"RCLONE_CONFIG_DITLOC_TYPE=local",
		"RCLONE_CONFIG_DITREL_TYPE=alias", "RCLONE_CONFIG_DITREL_REMOTE=rel",
		"RCLONE_CONFIG_DITABS_TYPE=alias", "RCLONE_CONFIG_DITABS_REMOTE=" + dir}, Tries: 1}

	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	eachPath(t, func(t *testing.T, _ string) { checkLocal(t, r, dir, wd) })
}

func checkLocal(t *testing.T, r *cloud.Rclone, dir, wd string) {
	require.NoError(t, r.CheckDest(context.Background(), "rclone:ditloc:"+dir))
	require.NoError(t, r.CheckDest(context.Background(), "rclone:ditabs:sub"))
	checkRefused(t, r, "rclone:ditabs:", "cloud destination rclone:ditabs: names no folder: write rclone:ditabs:BUCKET/FOLDER (on S3 a bucket and a folder in it) "+
		"or rclone:ditabs:/FOLDER, so that every job goes into that folder and not to the remote's root")
	checkRefused(t, r, "rclone:ditloc:"+dir+"/missing", "cloud destination rclone:ditloc:"+dir+"/missing: the folder "+dir+
		`/missing does not exist on the remote "ditloc": create it with rclone mkdir ditloc:`+dir+"/missing, or check the name "+
		"(dit never creates a destination's bucket or folder, so a misspelt name cannot take the footage)")
	checkRefused(t, r, "rclone:ditloc:rel", `cloud destination rclone:ditloc:rel is a folder relative to the one dit runs in (on the local remote "ditloc" a path without a leading / is), `+
		"so a resume started from another folder would write elsewhere: write the whole path, rclone:ditloc:"+filepath.Join(wd, "rel"))
	checkRefused(t, r, "rclone:ditrel:x", "cloud destination rclone:ditrel:x leads to a folder relative to the one dit runs in (here "+filepath.Join(wd, "rel", "x")+
		`), so a resume started from another folder would write elsewhere: give the remote "ditrel" an absolute path (rclone config), or use a remote that does not depend on it`)
}

// An rclone older than the oldest dit drives is refused before anything
// else, naming its version, where it is, and the oldest; a newer one
// goes on to the destination's checks.
func TestCheckOldRclone(t *testing.T) {
	testneeds.EndToEnd(t, "a program standing in for rclone")
	dir := t.TempDir()
	old := filepath.Join(dir, "rclone-old")
	require.NoError(t, os.WriteFile(old, []byte("#!/bin/sh\necho 'rclone v1.58.2'\necho '- os/version: debian 11'\n"), 0o755))
	r := &cloud.Rclone{Bin: old}
	checkRefused(t, r, "rclone:s3:bucket/show", "cloud destination rclone:s3:bucket/show: rclone v1.58.2 ("+old+") is older than rclone v1.60, "+
		"the oldest dit drives for cloud destinations: install a newer rclone (https://rclone.org/downloads/, or your system's package)")

	newer := filepath.Join(dir, "rclone-new")
	require.NoError(t, os.WriteFile(newer, []byte("#!/bin/sh\ncase \"$1\" in version) echo 'rclone v1.76.0';; listremotes) ;; esac\n"), 0o755))
	r = &cloud.Rclone{Bin: newer}
	checkRefused(t, r, "rclone:s3:bucket/show", `cloud destination rclone:s3:bucket/show: rclone's configuration has no remote "s3" (it has none): add it with rclone config, or write one of those`)
}

// Keys that may read a bucket but not write to it (rclone serve s3
// --read-only): Check refuses the destination, naming it and what to do,
// before anything is sent; CheckRead (dit verify's) takes it. On a
// bucket that takes writes, Check's own object is removed again: the
// bucket holds what it held.
func TestCheckWrite(t *testing.T) {
	ro := s3test.StartReadOnly(t, "ditro", "shots")
	require.NoError(t, os.MkdirAll(filepath.Join(ro.Dir, "shots", "show"), 0o755))
	rw := s3test.StartChecked(t, "ditrw", "shots")
	eachPath(t, func(t *testing.T, _ string) { checkWrite(t, ro, rw) })
}

func checkWrite(t *testing.T, ro, rw *s3test.Server) {
	r := &cloud.Rclone{Config: emptyConf(t), Env: ro.Env, Tries: 1}
	ctx := context.Background()
	err := r.CheckDest(ctx, "rclone:ditro:shots/show")
	var de *cloud.DestError
	require.ErrorAs(t, err, &de, "%v", err)
	require.True(t, strings.HasPrefix(err.Error(), `cloud destination rclone:ditro:shots/show: rclone can read it but cannot write there: `+
		`check that the remote "ditro" may write to it (its keys' permissions, a read-only storage or mount); nothing was sent (`), err.Error())
	require.Contains(t, err.Error(), "InternalError")
	require.NoError(t, r.CheckDestRead(ctx, "rclone:ditro:shots/show"), "reading needs no write")
	err = r.CheckDest(ctx, "rclone:ditro:shots/show")
	require.ErrorAs(t, err, &de, "a read's pass is not a write's")

	r = &cloud.Rclone{Config: emptyConf(t), Env: rw.Env, Tries: 1}
	require.NoError(t, r.CheckDest(ctx, "rclone:ditrw:shots/show"))
	held, err := os.ReadDir(filepath.Join(rw.Dir, "shots"))
	require.NoError(t, err)
	require.Empty(t, held, "the check's object is removed")

	// The words of a storage that says why (AWS: 403 AccessDenied).
	require.Equal(t, `cloud destination rclone:s3:b/x: the storage refused to write there: the keys of the remote "s3" may read it but not write to it: `+
		"give them write access (on S3: s3:PutObject on the bucket), or choose a destination they may write to; nothing was sent (AccessDenied: Access Denied)",
		cloud.WriteError(cloud.Dest{Remote: "s3", Path: "b/x"}, errors.New("rclone rcat: exit status 1: Failed to rcat: AccessDenied: Access Denied")).Error())
}
