package offload

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/cloud"
	"github.com/dit-org/dit/internal/hashing"
)

// cloudCopy checks f's copy on the cloud destination d (cp: its record,
// nil: none; out: the card's folder) as dit verify does: the storage's
// own MD5 of the object as it holds it now, or, where it has none (a
// multipart object, another storage) or with --all, the object read back
// from the remote and hashed. A remote that cannot be listed stops the
// check with an error (nothing is recorded for it): the copies are not
// known bad for it.
func (r *rechecker) cloudCopy(ctx context.Context, k *catalog.Card, f *catalog.File, d *catalog.Dest, cp *catalog.Copy, out string) error {
	rel := relJoin(out, f.Rel)
	if cp != nil && cp.Path != "" {
		rel = cp.Path
	}
	where := strings.TrimSuffix(d.Path, "/") + "/" + rel
	res := RecheckResult{Card: k.Label, Path: where}
	readTo := r.prog.BytesRead + f.Size
	defer r.done(readTo)
	if f.State == StateFailed && (cp == nil || cp.State == StateSkipped || (cp.State == StateFailed && !cp.Written)) {
		res.State, res.Error = "missing", "never copied: "+f.Error
		r.ok = false
		r.onResult(res)
		return nil
	}
	cd, err := cloud.Parse(d.Path)
	if err != nil {
		return err
	}
	held, err := r.cloudList(ctx, cd, out)
	if err != nil {
		return fmt.Errorf("%w: the copies there were not checked; run it again once the remote answers", err)
	}
	o, ok := held[strings.TrimPrefix(rel, out+"/")]
	if ok && cp != nil && strings.HasPrefix(cp.VerifyAlgos, CloudByHistory) {
		// The card's ASC MHL chain went up as the chain of its history,
		// extended by this job's generation (cloudseal.go): it is not the
		// card's file, and is checked with the history.
		res.State, res.Error = "resealed", "ASC MHL chain extended by dit in the cloud; check the history with dit mhl verify after a download (rclone copy)"
		r.onResult(res)
		return nil
	}
	how := cloudMethod(CloudByServer, []hashing.Algo{hashing.MD5})
	switch {
	case !ok:
		res.State, res.Error = "missing", "the object is gone from the remote"
	case o.Size != f.Size:
		res.State, res.Error = StateFailed, fmt.Sprintf("the object holds %d bytes, the source had %d", o.Size, f.Size)
	case !r.all && o.ServerMD5() != "" && f.Sums.Get(hashing.MD5) != "":
		res.State = StateVerified
		if want := f.Sums.Get(hashing.MD5); !strings.EqualFold(o.ServerMD5(), want) {
			res.State, res.Error = StateFailed, fmt.Sprintf("md5 differs: source %s, the storage's own (S3 ETag) %s: the object changed since it was uploaded", want, o.ServerMD5())
		}
	default:
		rc, err := r.rclone.Open(ctx, cd, rel, f.Size)
		var got hashing.Sums
		var n int64
		if err == nil {
			got, n, err = hashOpen(ctx, rc, 0, f.Size, r.bufs, r.mh, nil, func(n int) {
				r.prog.BytesRead = min(r.prog.BytesRead+int64(n), readTo)
				r.onProgress(r.prog)
			})
			if cerr := rc.Close(); err == nil {
				err = cerr
			}
		}
		if errors.Is(err, context.Canceled) {
			return err
		}
		res.State, res.Error = readBackState(f, got, n, err)
		compared, _, _ := got.Compare(f.Sums)
		how = cloudMethod(CloudByReadBack, compared)
	}
	r.record(k, f, d, cp, rel, where, res, how)
	r.onResult(res)
	return nil
}

// cloudList lists the card folder out on cd once per check.
func (r *rechecker) cloudList(ctx context.Context, cd cloud.Dest, out string) (map[string]cloud.Object, error) {
	key := cd.String() + "\x00" + out
	if m, ok := r.listed[key]; ok {
		return m, nil
	}
	m, err := r.rclone.List(ctx, cd, out)
	if err != nil {
		return nil, err
	}
	if r.listed == nil {
		r.listed = map[string]map[string]cloud.Object{}
	}
	r.listed[key] = m
	return m, nil
}
