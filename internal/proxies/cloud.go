package proxies

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/cloud"
	"github.com/dit-org/dit/internal/crashpoint"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload"
)

// rclone is the job's rclone (Options.Rclone, or rclone on PATH with the
// user's own configuration).
func (m *Maker) rclone() *cloud.Rclone {
	if m.o.Rclone != nil {
		return m.o.Rclone
	}
	return &cloud.Rclone{}
}

// toCloud uploads the proxy made to the cloud destination row.Dest
// (rclone:REMOTE:PATH) as proxies/<out>/<name>, or the first free of
// "CLIP (2).ext" ... there (nothing on the remote is written over), and
// verifies it as every cloud copy: the storage's own MD5 (an S3
// single-part ETag) equal to the proxy's, else the object read back and
// hashed with algos. An object already at a name that is this proxy (its
// size and server-side MD5: a job that stopped before recording it) is
// taken as it is. An object that is not the proxy after the upload (one
// that took the name first, or bytes changed on the way) is a failure,
// and is left. It returns the row to record.
func (m *Maker) toCloud(ctx context.Context, row catalog.Proxy, made *Made, out, name string, algos []hashing.Algo) catalog.Proxy {
	fail := func(state, why string) catalog.Proxy {
		row.State, row.Error = state, why
		if ctx.Err() != nil {
			row.State = catalog.ProxyCancelled
		}
		return row
	}
	cd, err := cloud.Parse(row.Dest)
	if err != nil {
		return fail(catalog.ProxyFailed, err.Error())
	}
	r := m.rclone()
	dir := path.Join(Dir, out)
	held, err := r.List(ctx, cd, dir)
	if err != nil {
		return fail(catalog.ProxyFailed, fmt.Sprintf("cannot list %s: %v", cd.At(dir), err))
	}
	ext := path.Ext(name)
	base := strings.TrimSuffix(name, ext)
	for i := 1; i < 10000; i++ {
		cand := name
		if i > 1 {
			cand = fmt.Sprintf("%s (%d)%s", base, i, ext)
		}
		if o, ok := held[cand]; ok {
			if sameObject(o, made) {
				return verified(row, path.Join(dir, cand), made, offload.RemoteByStorage+hashing.MD5.String())
			}
			continue // another object: never written over
		}
		rel := path.Join(dir, cand)
		if err := r.CopyFile(ctx, made.Path, cd, rel); err != nil {
			return fail(catalog.ProxyFailed, err.Error())
		}
		if held, err = r.List(ctx, cd, dir); err != nil {
			return fail(catalog.ProxyFailed, fmt.Sprintf("cannot list %s after the upload: %v", cd.At(dir), err))
		}
		o, ok := held[cand]
		switch {
		case !ok:
			return fail(catalog.ProxyFailed, fmt.Sprintf("%s is not on the remote after the upload", cd.At(rel)))
		case sameObject(o, made):
			crashpoint.Hit("proxy: uploaded")
			return verified(row, rel, made, offload.RemoteByStorage+hashing.MD5.String())
		case o.ServerMD5() != "" || o.Size != made.Size:
			// Not what was sent, or another object that took the name
			// first: left as it is, never written over.
			return fail(catalog.ProxyFailed, fmt.Sprintf("%s is not the proxy made (%d bytes, the storage's md5 %s; the proxy: %d bytes, md5 %s): it is left as it is",
				cd.At(rel), o.Size, o.ServerMD5(), made.Size, made.Sums.Get(hashing.MD5)))
		}
		// No MD5 of the storage's own (not S3, or a multipart object):
		// read back.
		got, err := readBack(ctx, r, cd, rel, made.Size, algos)
		if err != nil {
			return fail(catalog.ProxyFailed, fmt.Sprintf("%s cannot be read back: %v", cd.At(rel), err))
		}
		compared, bad, ok := got.Compare(made.Sums)
		if !ok {
			return fail(catalog.ProxyFailed, fmt.Sprintf("%s differs from the proxy made (%s %s, the proxy %s): it is left as it is",
				cd.At(rel), bad, got.Get(bad), made.Sums.Get(bad)))
		}
		return verified(row, rel, made, offload.RemoteByReadBack+hashing.Names(compared))
	}
	return fail(catalog.ProxyFailed, fmt.Sprintf("naming a proxy %s in %s: 10000 names taken", name, cd.At(dir)))
}

// sameObject: the object o is the proxy made, by the storage's own MD5
// and its size.
func sameObject(o cloud.Object, made *Made) bool {
	s := o.ServerMD5()
	return s != "" && o.Size == made.Size && strings.EqualFold(s, made.Sums.Get(hashing.MD5))
}

func verified(row catalog.Proxy, rel string, made *Made, how string) catalog.Proxy {
	row.Path, row.Size, row.Sums, row.State, row.VerifyAlgos = rel, made.Size, made.Sums, catalog.ProxyMade, how
	return row
}

// readBack reads the object rel of d back and hashes it with algos.
func readBack(ctx context.Context, r *cloud.Rclone, d cloud.Dest, rel string, size int64, algos []hashing.Algo) (hashing.Sums, error) {
	rc, err := r.Open(ctx, d, rel, size)
	if err != nil {
		return hashing.Sums{}, err
	}
	sums, _, err := hashReader(rc, algos)
	if cerr := rc.Close(); err == nil {
		err = cerr
	}
	return sums, err
}

// cloudHeld lists the proxies folder of the card's folder out on the
// cloud destination dest: what a resume finds there (nil when it cannot
// be listed: the records stand).
func (m *Maker) cloudHeld(ctx context.Context, dest, out string) map[string]cloud.Object {
	cd, err := cloud.Parse(dest)
	if err != nil {
		return nil
	}
	held, err := m.rclone().List(ctx, cd, path.Join(Dir, out))
	if err != nil {
		return nil
	}
	return held
}
