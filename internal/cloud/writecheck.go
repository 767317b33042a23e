package cloud

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"regexp"
	"strings"
)

// A destination that can be read may still refuse writes: keys that may
// list a bucket but not put into it (an IAM policy without s3:PutObject,
// a read-only S3 gateway, a local folder mounted read-only). A storage
// says so only when it is written to, so Check writes one small object
// of dit's own into the destination's folder and removes it again: a
// write refused there refuses the job before the first byte of footage
// is sent and before anything is recorded.
//
// The object is named WriteCheckPrefix, the process id and a random
// part; its text says what it is. It is the one object dit ever removes
// from a remote. Keys that may write but not delete (an append-only
// policy) keep it: the check passes (writes work) and the object stays,
// saying what it is; each check leaves its own (no object is written
// over, which such a bucket may refuse).

// WriteCheckPrefix begins the name of the object Check writes to a
// destination's folder and removes.
const WriteCheckPrefix = ".dit-write-check-"

// writeCheckText is the write check object's content.
const writeCheckText = "dit wrote this object to check that it may write here, and removes it at once; " +
	"it is still here because the storage did not let dit remove it. It holds nothing else: remove it.\n"

// checkWrite writes a small object into the folder of d and removes it.
// A refused write is a *DestError naming d; a refused removal is not an
// error. It runs after the folder is found there: on S3 rclone is told
// never to create the bucket (--s3-no-check-bucket), and a local-type
// remote's folder is there already.
func (r *Rclone) checkWrite(ctx context.Context, d Dest) error {
	b := make([]byte, 6)
	rand.Read(b)
	rel := WriteCheckPrefix + fmt.Sprintf("%d-%s", os.Getpid(), hex.EncodeToString(b))
	if dm, release := r.daemon(ctx); dm != nil {
		defer release()
		// Two low-level tries, not the daemon's ten: a storage that
		// refuses writes may say so with a 500, which rclone tries again.
		quick := map[string]any{"LowLevelRetries": 2}
		if err := dm.copyURL(ctx, d, rel, int64(len(writeCheckText)), strings.NewReader(writeCheckText), nil, quick); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return writeError(d, err)
		}
		dm.call(ctx, "operations/deletefile", map[string]any{"fs": d.At(""), "remote": rel, "_config": quick}, nil)
		return nil
	}
	args := []string{"rcat", "--size", fmt.Sprint(len(writeCheckText)), "--s3-no-check-bucket", "--retries", "1", "--low-level-retries", "2"}
	if r.BwLimit != "" {
		args = append(args, "--bwlimit", r.BwLimit)
	}
	cmd, err := r.command(ctx, append(args, d.At(rel))...)
	if err != nil {
		return err
	}
	cmd.Stdin = strings.NewReader(writeCheckText)
	if _, err := output(ctx, cmd, "rcat"); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return writeError(d, err)
	}
	// Best effort: keys that may not delete keep the object (see above).
	r.run(ctx, "deletefile", "--retries", "1", "--low-level-retries", "2", d.At(rel))
	return nil
}

// s3Code is an S3 error code and its message in rclone's error: the
// last one, ending its line.
var s3Code = regexp.MustCompile(`(?m)\b[A-Z][a-z]+[A-Z][A-Za-z]+: [^:/\n]+$`)

// writeError is the refusal of a destination rclone could read but not
// write to.
func writeError(d Dest, err error) error {
	why := ShortError(err.Error())
	if m := s3Code.FindAllString(err.Error(), -1); m != nil {
		why = m[len(m)-1] // the storage's error code and words: "InternalError: Internal Error"
	}
	if refused(err) != "" || strings.Contains(err.Error(), "AccessDenied") {
		return destErrorf("cloud destination %s: the storage refused to write there: the keys of the remote %q may read it but not write to it: "+
			"give them write access (on S3: s3:PutObject on the bucket), or choose a destination they may write to; nothing was sent (%s)", d, d.Remote, why)
	}
	return destErrorf("cloud destination %s: rclone can read it but cannot write there: check that the remote %q may write to it "+
		"(its keys' permissions, a read-only storage or mount); nothing was sent (%s)", d, d.Remote, why)
}
