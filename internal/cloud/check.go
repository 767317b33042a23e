package cloud

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// Before a job uploads to a destination, Check asks rclone whether it
// can: the rules a cloud destination meets, as a folder destination
// meets its own (it must exist: dit never creates a destination root,
// so a misspelt name cannot fill a new folder or bucket).
//
//   - PATH is not empty: rclone:REMOTE: alone would put each job at the
//     remote's root (on S3, a new bucket per job).
//   - A configuration file given (Rclone.Config, --rclone-config or the
//     one a job recorded) is there: rclone takes a missing file for an
//     empty one, so the file is named first, whatever remotes the
//     environment (RCLONE_CONFIG_<NAME>_*) defines.
//   - REMOTE is a remote of the configuration (rclone listremotes).
//   - PATH does not depend on the folder dit runs in: on a local-type
//     remote (or one leading to a local path, an alias of a relative
//     folder) a path without a leading slash is relative to the working
//     folder, so a resume started elsewhere would write elsewhere. dit
//     refuses it and gives the absolute path to write. Found by asking
//     rclone for the remote's root (rclone backend features) from two
//     working folders: they differ.
//   - The folder is there (rclone lsjson --stat). On a bucket-based
//     remote (S3 and its kind: rclone's BucketBased feature) the bucket
//     must be there; a folder (a key prefix) in it need not be, since S3
//     has no folders: a prefix that holds no object lists as an empty
//     folder, not a missing one, so dit cannot tell them apart.
//   - The folder can be written to: a small object of dit's own is
//     written there and removed (writecheck.go). Not by CheckRead, which
//     dit verify uses: checking copies needs no write.

// DestError is a cloud destination that cannot be used as it is written
// or as it stands (no folder named, a remote not configured, a path
// relative to the working folder, a folder or bucket that is not there,
// a file): the person fixes the destination, as for a bad path on the
// command line. Its message names the destination and what to do.
type DestError struct{ msg string }

func (e *DestError) Error() string { return e.msg }

func destErrorf(format string, a ...any) error { return &DestError{fmt.Sprintf(format, a...)} }

// Check checks the destination d before a job uploads to it (see
// above), its folder written to as well: every refusal names d and what
// to do. A refusal of d as written or as it stands is a *DestError;
// rclone missing is ErrNoRclone; a remote that does not answer is
// another error.
func (r *Rclone) Check(ctx context.Context, d Dest) error { return r.check(ctx, d, true) }

// CheckRead is Check without the write: a destination whose copies are
// only read (dit verify).
func (r *Rclone) CheckRead(ctx context.Context, d Dest) error { return r.check(ctx, d, false) }

func (r *Rclone) check(ctx context.Context, d Dest, write bool) error {
	if d.Path == "" {
		return destErrorf("cloud destination %s names no folder: write rclone:%s:BUCKET/FOLDER (on S3 a bucket and a folder in it) or rclone:%s:/FOLDER, "+
			"so that every job goes into that folder and not to the remote's root", d, d.Remote, d.Remote)
	}
	key, readKey := r.checkKey(d, write), r.checkKey(d, false)
	if at, ok := checked.Load(key); ok && time.Since(at.(time.Time)) < checkedFor {
		return nil
	}
	if err := r.checkReads(ctx, d, readKey); err != nil {
		return err
	}
	if write {
		if err := r.checkWrite(ctx, d); err != nil {
			return err
		}
		checked.Store(key, time.Now())
	}
	return nil
}

// checkReads is Check but its write; a pass is kept under key.
func (r *Rclone) checkReads(ctx context.Context, d Dest, key string) error {
	if at, ok := checked.Load(key); ok && time.Since(at.(time.Time)) < checkedFor {
		return nil
	}
	// The version and the remotes are asked at once, of the job's
	// daemon (started by the first of the two; else an rclone process
	// each); the version's refusal comes first. The daemon answers the
	// rest.
	var names []string
	var err error
	listed := make(chan struct{})
	go func() { defer close(listed); names, err = r.Remotes(ctx) }()
	dm, release := r.daemon(ctx)
	if dm != nil {
		defer release()
	}
	if verr := r.checkVersion(ctx, dm); verr != nil {
		<-listed
		var de *DestError
		if errors.Is(verr, ErrNoRclone) || errors.As(verr, &de) {
			return fmt.Errorf("cloud destination %s: %w", d, verr)
		}
		return fmt.Errorf("cloud destination %s: rclone cannot say its version: %v", d, verr)
	}
	<-listed
	if errors.Is(err, ErrNoRclone) {
		return fmt.Errorf("cloud destination %s: %w", d, err)
	}
	if err != nil {
		return fmt.Errorf("cloud destination %s: rclone cannot list its remotes: %v", d, err)
	}
	if err := r.checkConfig(d, names); err != nil {
		return err
	}
	if !slices.Contains(names, d.Remote) {
		there := "it has none"
		if len(names) > 0 {
			there = "it has " + strings.Join(names, ", ")
		}
		return destErrorf("cloud destination %s: rclone's configuration has no remote %q (%s): add it with rclone config, or write one of those", d, d.Remote, there)
	}
	// The folder is asked at once with what rclone makes of the remote;
	// what its answer means depends on that (features first).
	var st folderStat
	stated := make(chan struct{})
	go func() { defer close(stated); st = r.statFolder(ctx, dm, d, "") }()
	defer func() { <-stated }()
	f, err := r.features(ctx, dm, d, "")
	if err != nil && strings.Contains(err.Error(), "is a file not a directory") {
		// rclone 1.76 says so too of an S3 folder whose HEAD the storage
		// refused (403): the folder's listing says why (asked of its
		// parent: the daemon's stat of the folder says "a file" too).
		<-stated
		serr := st.err
		if dm != nil {
			serr = statInParent(ctx, dm, d)
		}
		if serr != nil && refused(serr) != "" {
			return readError(d, serr)
		}
		return isFile(d)
	}
	if err != nil {
		return readError(d, err)
	}
	if err := r.checkWorkdir(ctx, dm, d, f); err != nil {
		return err
	}
	<-stated
	if err := checkFolder(d, f, st); err != nil {
		return err
	}
	checked.Store(key, time.Now())
	return nil
}

// checked are the destinations Check passed in this process, by rclone
// and destination (checkKey), and when: a job's front end and engine
// both check its destinations before it starts, seconds apart; the
// second is not asked of rclone again within checkedFor. Only a pass is
// kept: a refused destination is asked again once it is fixed.
var checked sync.Map

const checkedFor = time.Minute

// checkKey is what a check depends on: the rclone, its configuration,
// environment and working folder, the destination, whether it was
// written to, and whether a daemon answered.
func (r *Rclone) checkKey(d Dest, write bool) string {
	wd, _ := os.Getwd()
	return strings.Join(append([]string{r.Bin, r.Config, wd, d.String(), fmt.Sprint(write, useDaemon())}, r.Env...), "\x00")
}

// checkConfig refuses a configuration file given (r.Config) that is not
// there or cannot be read, naming it before anything else: rclone would
// go on without it, and the remote it defines would be "not configured"
// or, defined by the environment too, another one. names are the remotes
// rclone lists.
func (r *Rclone) checkConfig(d Dest, names []string) error {
	if r.Config == "" {
		return nil
	}
	_, err := os.Stat(r.Config)
	if err == nil {
		return nil
	}
	why := "cannot be read (" + err.Error() + ")"
	if errors.Is(err, fs.ErrNotExist) {
		why = "does not exist"
	}
	if !slices.Contains(names, d.Remote) {
		return destErrorf("cloud destination %s: the rclone configuration file %s %s, so rclone's configuration has no remote %q: put the file back, give the one that defines it with --rclone-config, or add it with rclone config", d, r.Config, why, d.Remote)
	}
	return destErrorf("cloud destination %s: the rclone configuration file %s %s (the remote %q is only defined by the environment, RCLONE_CONFIG_%s_*): put the file back, or give the one that defines it with --rclone-config", d, r.Config, why, d.Remote, strings.ToUpper(d.Remote))
}

// fsInfo is what rclone backend features says of a remote's path.
type fsInfo struct {
	Name     string // the backend's name: the remote's, or a wrapped one's
	Root     string // the path it resolved (a local one absolute)
	Features struct {
		BucketBased bool
		IsLocal     bool // a local folder (rclone 1.76 gives a relative one's Root relative)
	}
}

// features asks rclone for what it makes of d: the daemon dm
// (operations/fsinfo), or, dm nil, rclone backend features run in the
// folder dir ("" dit's working folder).
func (r *Rclone) features(ctx context.Context, dm *daemon, d Dest, dir string) (fsInfo, error) {
	var f fsInfo
	if dm != nil {
		if err := dm.call(ctx, "operations/fsinfo", map[string]any{"fs": d.At("")}, &f); err != nil {
			return f, errors.New(rcMessage(err))
		}
		// The remote's name, without the {hash} rclone adds when options
		// given on its command line change the remote's own.
		f.Name, _, _ = strings.Cut(f.Name, "{")
		return f, nil
	}
	cmd, err := r.command(ctx, "backend", "features", d.At(""))
	if err != nil {
		return f, err
	}
	cmd.Dir = dir
	out, err := output(ctx, cmd, "backend features")
	if err != nil {
		return f, err
	}
	if err := json.Unmarshal(out, &f); err != nil {
		return f, fmt.Errorf("rclone backend features %s: unreadable answer: %v", d.At(""), err)
	}
	return f, nil
}

// checkWorkdir refuses a destination whose folder depends on the folder
// dit runs in. f is what rclone made of it: the daemon dm, which runs in
// dit's working folder, or (dm nil) a process run there too. A root
// there that is not under the working folder does not depend on it (a
// bucket, an absolute path elsewhere); one under it may: rclone is asked
// again, run in an empty folder of dit's own (dit-probe-PID-*), and a
// root under that one is one it resolves against the working folder.
// Neither is asked of a local-type remote given an absolute path that
// rclone took as it is written (the root it resolved is that path): only
// a remote that wraps another (an alias) is run in the probe folder, an
// rclone process beside the daemon.
func (r *Rclone) checkWorkdir(ctx context.Context, dm *daemon, d Dest, f fsInfo) error {
	if f.Features.IsLocal && !filepath.IsAbs(filepath.FromSlash(f.Root)) {
		// Resolved against the working folder, and said so (rclone 1.76).
		return workdirError(d, f, "")
	}
	if f.Name == d.Remote && path.IsAbs(d.Path) && f.Root == d.Path {
		return nil
	}
	if wd, err := os.Getwd(); err == nil {
		if _, ok := under(f.Root, wd); !ok {
			return nil
		}
	}
	probe, err := MkdirTemp("dit-probe-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(probe)
	if f, err = r.features(ctx, nil, d, probe); err != nil {
		return readError(d, err)
	}
	return workdirError(d, f, probe)
}

// workdirError refuses a destination whose folder depends on the folder
// dit runs in: rclone, run in the empty folder probe, resolved it to a
// root under probe (f); probe "": to a relative root.
func workdirError(d Dest, f fsInfo, probe string) error {
	rel, ok := filepath.FromSlash(f.Root), true
	if probe != "" {
		rel, ok = under(f.Root, probe)
	}
	if !ok {
		return nil // the same root from anywhere
	}
	here := rel
	if wd, err := os.Getwd(); err == nil {
		here = filepath.Join(wd, rel)
	}
	if f.Name == d.Remote {
		return destErrorf("cloud destination %s is a folder relative to the one dit runs in (on the local remote %q a path without a leading / is), "+
			"so a resume started from another folder would write elsewhere: write the whole path, %s", d, d.Remote, Prefix+d.Remote+":"+filepath.ToSlash(here))
	}
	return destErrorf("cloud destination %s leads to a folder relative to the one dit runs in (here %s), so a resume started from another folder would write elsewhere: "+
		"give the remote %q an absolute path (rclone config), or use a remote that does not depend on it", d, here, d.Remote)
}

// under: root (a path rclone resolved) is dir or under it, and rel is its
// path from dir; dir's symbolic links resolved too.
func under(root, dir string) (string, bool) {
	root = filepath.FromSlash(root)
	dirs := []string{dir}
	if real, err := filepath.EvalSymlinks(dir); err == nil && real != dir {
		dirs = append(dirs, real)
	}
	for _, d := range dirs {
		if rel, err := filepath.Rel(d, root); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && filepath.IsAbs(root) {
			return rel, true
		}
	}
	return "", false
}

// folderStat is rclone's answer on the destination's folder (lsjson
// --stat).
type folderStat struct {
	out []byte
	err error
}

// statFolder asks rclone for the folder of d: the daemon dm
// (operations/stat), or, dm nil, rclone lsjson --stat run in the folder
// dir.
func (r *Rclone) statFolder(ctx context.Context, dm *daemon, d Dest, dir string) folderStat {
	if dm != nil {
		var st struct{ Item json.RawMessage }
		if err := dm.call(ctx, "operations/stat", map[string]any{"fs": d.At(""), "remote": ""}, &st); err != nil {
			return folderStat{err: errors.New(rcMessage(err))}
		}
		return folderStat{out: st.Item}
	}
	cmd, err := r.command(ctx, "lsjson", "--stat", "--no-mimetype", "--no-modtime", d.At(""))
	if err != nil {
		return folderStat{err: err}
	}
	cmd.Dir = dir
	out, err := output(ctx, cmd, "lsjson")
	return folderStat{out, err}
}

// statInParent is the daemon's error stating the folder of d as an entry
// of its parent folder (nil: it answered).
func statInParent(ctx context.Context, dm *daemon, d Dest) error {
	dir, name := path.Split(strings.TrimSuffix(d.Path, "/"))
	if dir != "/" {
		dir = strings.TrimSuffix(dir, "/")
	}
	if err := dm.call(ctx, "operations/stat", map[string]any{"fs": d.Remote + ":" + dir, "remote": name}, nil); err != nil {
		return errors.New(rcMessage(err))
	}
	return nil
}

// checkFolder refuses a destination whose folder (on a bucket-based
// remote: whose bucket) is not there, or is a file.
func checkFolder(d Dest, f fsInfo, st folderStat) error {
	out, err := st.out, st.err
	switch {
	case err != nil && strings.Contains(err.Error(), "directory not found") && f.Features.BucketBased:
		bucket, _, _ := strings.Cut(strings.Trim(f.Root, "/"), "/")
		mk := d.At("")
		if f.Name == d.Remote {
			bucket, _, _ = strings.Cut(strings.Trim(d.Path, "/"), "/")
			mk = d.Remote + ":" + bucket
		}
		return destErrorf("cloud destination %s: the bucket %q does not exist on the remote %q: create it with rclone mkdir %s, or check the name "+
			"(dit never creates a destination's bucket or folder, so a misspelt name cannot take the footage)", d, bucket, d.Remote, mk)
	case err != nil && strings.Contains(err.Error(), "directory not found"):
		return destErrorf("cloud destination %s: the folder %s does not exist on the remote %q: create it with rclone mkdir %s, or check the name "+
			"(dit never creates a destination's bucket or folder, so a misspelt name cannot take the footage)", d, d.Path, d.Remote, d.At(""))
	case err != nil:
		return readError(d, err)
	}
	var item struct{ IsDir bool }
	if err := json.Unmarshal(out, &item); err != nil {
		return fmt.Errorf("rclone lsjson --stat %s: unreadable answer: %v", d.At(""), err)
	}
	if !item.IsDir {
		return isFile(d)
	}
	return nil
}

func isFile(d Dest) error {
	return destErrorf("cloud destination %s is a file, not a folder: give the folder to upload into", d)
}

// refusals are the words of a storage that refuses the credentials rclone
// gave it (S3's error codes; rclone's own when it has none to give),
// and what each means to the person who fixes them.
var refusals = []struct{ code, means string }{
	{"SignatureDoesNotMatch", "the secret key is wrong"},
	{"InvalidAccessKeyId", "the access key is not one the storage knows"},
	{"ExpiredToken", "the credentials have expired"},
	{"TokenRefreshRequired", "the credentials have expired"},
	{"InvalidToken", "the session token is not valid"},
	{"AccessDenied", "access denied: no key given, or one that may not read it"},
	{"NoCredentialProviders", "no access key is set"},
	{"static credentials are empty", "no access key is set"},
	{"failed to refresh cached credentials", "no access key is set"},
	{"403 Forbidden", "the credentials are refused"},
	{"StatusCode: 403", "the credentials are refused"},
	{"status code: 403", "the credentials are refused"},
}

// refused is what the storage's refusal of the credentials means, or "".
func refused(err error) string {
	for _, r := range refusals {
		if strings.Contains(err.Error(), r.code) {
			return r.means
		}
	}
	return ""
}

// readError is a destination rclone cannot read. A storage that refuses
// the credentials is a DestError: the person fixes the remote's keys, and
// nothing is sent.
func readError(d Dest, err error) error {
	if errors.Is(err, ErrNoRclone) {
		return fmt.Errorf("cloud destination %s: %w", d, err)
	}
	if why := refused(err); why != "" {
		return destErrorf("cloud destination %s: the storage refused the credentials of the remote %q (%s): check its access key and secret "+
			"(rclone config, or RCLONE_CONFIG_%s_ACCESS_KEY_ID and _SECRET_ACCESS_KEY); nothing was sent (%s)", d, d.Remote, why, strings.ToUpper(d.Remote), ShortError(err.Error()))
	}
	return fmt.Errorf("cloud destination %s cannot be read: check the remote %q (rclone listremotes, rclone config, RCLONE_CONFIG) and that it answers (%v)", d, d.Remote, err)
}
