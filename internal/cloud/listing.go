package cloud

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"net/url"
	"path"
	"regexp"
	"strings"
)

// A listing says, for each object under a folder, its size and its MD5
// as rclone reports it. On S3 that MD5 is either the storage's own (a
// single-part object's ETag, computed by the storage from the bytes it
// stored) or, for a multipart object, the md5 the uploader stored in
// the object's metadata (rclone's md5chksum), which is only a claim; rclone
// reports both alike. dit tells them apart by the ETag in the storage's
// own listing response (ListBucketResult): the MD5 is the storage's only
// where the ETag is that MD5 (Object.ServerMD5).
//
// rclone gives those responses only in a dump of its HTTP traffic
// (--dump bodies). Through the daemon (rc operations/list) the listing
// runs with the per-call setting {"Dump": bodies} (_config) on an S3
// backend of its own: REMOTE,upload_cutoff=5120M:PATH, the same settings
// as the remote's but one that rclone keeps apart in its cache of
// backends (a setting given in the name, the same 5 GiB cutoff as the
// daemon's --s3-upload-cutoff 5G written otherwise), created by that
// first listing with the dump on. The transfers' backend (REMOTE:PATH)
// never dumps: an upload's bytes are never written to the log. The
// daemon logs at debug level (-vv), which is where the dumps go, and dit
// reads the responses there (logwatch.go): a listing marks the log
// before and after its call (rc/noop, which rclone logs), and takes the
// responses between the marks, one listing at a time, of keys under the
// folder it listed. What it cannot read in time is no ETag: the object is
// read back, never taken on a claim.
//
// A remote that is not of type s3 (its type: RCLONE_CONFIG_<NAME>_TYPE,
// else the configuration file's, as rclone reads them) is listed without
// a dump: its MD5s are rclone's, never the storage's by this proof.
// Without the daemon the listing is an rclone lsjson --dump bodies
// process, its dump read from its standard error.

// Object is a file the remote holds.
type Object struct {
	Rel  string // relative to the folder listed, slash-separated
	Size int64
	// MD5 is the object's MD5 as rclone reports it (hex, "" none): for a
	// multipart S3 object, a value a client stored beside it.
	MD5 string
	// ETag is the storage's own checksum of the object as its listing
	// gives it (unquoted, lower case; "" not an S3 remote).
	ETag string
}

// ServerMD5 is the MD5 of the stored bytes as the storage computed it
// when they were written ("" none): an S3 single-part object's ETag. A
// multipart object's ETag ("HEX-N") is not an MD5 of the object, and
// the md5 rclone stores in a multipart object's metadata is the
// uploader's claim: neither counts.
//
// The ETag must also be the md5 rclone reports for the object it listed
// (for a single-part object rclone takes its md5 from that ETag): an ETag
// is never taken from a listing entry that is not this object.
func (o Object) ServerMD5() string {
	if len(o.ETag) == 32 && strings.Trim(o.ETag, "0123456789abcdef") == "" && o.ETag == o.MD5 {
		return o.ETag
	}
	return ""
}

// listed is an object as rclone lists it (lsjson, operations/list).
type listed struct {
	Path   string
	Size   int64
	Hashes map[string]string
}

// List lists every object under the folder dir of d, with its MD5 as
// rclone reports it and, on S3, its ETag as the storage's listing gives
// it (read from rclone's dump of the listing responses, so that what is
// the storage's own is told from what a client claimed). A folder that
// is not there lists as empty.
func (r *Rclone) List(ctx context.Context, d Dest, dir string) (map[string]Object, error) {
	return r.list(ctx, d, dir, true)
}

// ListDir is List of the objects directly in the folder dir, not in its
// folders (one listing of the folder: on S3, a delimited listing of its
// prefix, a request a thousand keys), by name.
func (r *Rclone) ListDir(ctx context.Context, d Dest, dir string) (map[string]Object, error) {
	return r.list(ctx, d, dir, false)
}

func (r *Rclone) list(ctx context.Context, d Dest, dir string, recurse bool) (map[string]Object, error) {
	var items []listed
	var etags map[string]string
	err := r.retry(ctx, "list "+d.At(dir), func() error {
		var err error
		if dm, release := r.daemon(ctx); dm != nil {
			defer release()
			items, etags, err = dm.list(ctx, d, dir, recurse)
		} else {
			items, etags, err = r.lsjson(ctx, d, dir, recurse)
		}
		if err != nil && strings.Contains(err.Error(), "directory not found") {
			items, etags, err = nil, nil, nil
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	m := make(map[string]Object, len(items))
	for _, it := range items {
		m[it.Path] = Object{Rel: it.Path, Size: it.Size, MD5: strings.ToLower(it.Hashes["md5"]), ETag: etags[it.Path]}
	}
	return m, nil
}

// lsjson lists the folder dir of d (and its folders: recurse) with an
// rclone lsjson process, dumping the storage's responses.
func (r *Rclone) lsjson(ctx context.Context, d Dest, dir string, recurse bool) ([]listed, map[string]string, error) {
	args := []string{"lsjson", "--files-only", "--hash", "--hash-type", "MD5", "--no-modtime", "--no-mimetype", "--dump", "bodies", d.At(dir)}
	if recurse {
		args = append(args, "-R")
	}
	out, dump, err := r.run2(ctx, args...)
	if err != nil {
		return nil, nil, err
	}
	var items []listed
	if err := json.Unmarshal(out, &items); err != nil {
		return nil, nil, fmt.Errorf("rclone lsjson %s: %v", d.At(dir), err)
	}
	return items, listedETags(dump, keyPrefix(d, dir)), nil
}

// dumpBodies is rclone's DumpFlags value of --dump bodies (DumpBodies:
// 1<<1 in every release since 1.37), for a call's _config.
const dumpBodies = 2

// listingCutoff is UploadCutoff written otherwise (5 GiB): the setting in
// the name of a listing's own S3 backend.
const listingCutoff = "5120M"

// list lists the folder dir of dst (and its folders: recurse) through
// the daemon (rc operations/list); on an S3 remote, with the ETags of
// the storage's responses, read in the daemon's log. Paths are relative
// to dir, as lsjson's.
func (d *daemon) list(ctx context.Context, dst Dest, dir string, recurse bool) ([]listed, map[string]string, error) {
	items, etags, err := d.listRoot(ctx, dst, dir, recurse)
	if dir != "" {
		for i := range items {
			items[i].Path = strings.TrimPrefix(items[i].Path, dir+"/")
		}
	}
	return items, etags, err
}

// listRoot is list, its paths relative to dst (operations/list's: one
// backend per destination, whatever folder of it is listed).
func (d *daemon) listRoot(ctx context.Context, dst Dest, dir string, recurse bool) ([]listed, map[string]string, error) {
	in := map[string]any{"fs": dst.At(""), "remote": dir, "opt": map[string]any{
		"recurse": recurse, "filesOnly": true, "showHash": true, "hashTypes": []string{"MD5"}, "noModTime": true, "noMimeType": true}}
	var out struct{ List []listed }
	if d.remoteType(ctx, dst.Remote) != "s3" {
		if err := d.call(ctx, "operations/list", in, &out); err != nil {
			return nil, nil, listError(dst, dir, err)
		}
		return out.List, nil, nil
	}
	// The storage's own listing responses, read in the log (see above).
	remote, p, _ := strings.Cut(dst.At(""), ":")
	in["fs"] = remote + ",upload_cutoff=" + listingCutoff + ":" + p
	in["_config"] = map[string]any{"Dump": dumpBodies}
	d.listMu.Lock()
	defer d.listMu.Unlock()
	c, stop := d.logs.capture(keyPrefix(dst, dir))
	started := d.mark(ctx, c.start)
	err := d.call(ctx, "operations/list", in, &out)
	ended := started && err == nil && d.mark(ctx, c.end)
	etags := stop()
	if err != nil {
		return nil, nil, listError(dst, dir, err)
	}
	if !ended {
		etags = nil // not read whole: no proof, each object read back
	}
	return out.List, etags, nil
}

func listError(dst Dest, dir string, err error) error {
	return fmt.Errorf("rclone list %s: %s", dst.At(dir), rcMessage(err))
}

// remoteType is the backend of the remote name ("s3", "local"...), as
// rclone reads it: its RCLONE_CONFIG_<NAME>_TYPE variable in the daemon's
// environment, else the configuration file's type (rc config/get); ""
// when neither says (a remote with settings in its name, one rclone does
// not know, a daemon that did not answer: not kept).
func (d *daemon) remoteType(ctx context.Context, name string) string {
	d.typesMu.Lock()
	typ, ok := d.types[name]
	d.typesMu.Unlock()
	if ok || strings.ContainsAny(name, ",:") {
		return typ
	}
	typ, ok = envType(d.env, name)
	if !ok {
		var conf map[string]any
		if d.call(ctx, "config/get", map[string]any{"name": name}, &conf) != nil {
			return ""
		}
		typ, _ = conf["type"].(string)
	}
	d.typesMu.Lock()
	d.types[name] = typ
	d.typesMu.Unlock()
	return typ
}

// envType is the type env gives the remote name (RCLONE_CONFIG_<NAME>_TYPE,
// the last one set), and whether it gives one.
func envType(env []string, name string) (string, bool) {
	key := "RCLONE_CONFIG_" + strings.ToUpper(name) + "_TYPE="
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], key); ok {
			return v, true
		}
	}
	return "", false
}

// keyPrefix is the S3 key prefix of the folder dir of d (the bucket is
// the first element of its path).
func keyPrefix(d Dest, dir string) string {
	full := strings.Trim(path.Join(d.Path, dir), "/")
	_, key, _ := strings.Cut(full, "/")
	if key != "" {
		key += "/"
	}
	return key
}

var listResult = regexp.MustCompile(`(?s)<ListBucketResult[ >].*?</ListBucketResult>`)

// listedETags reads the S3 listing responses rclone dumped: the ETag of
// each key under prefix, by its path relative to it.
func listedETags(dump []byte, prefix string) map[string]string {
	out := map[string]string{}
	for _, body := range listResult.FindAll(dump, -1) {
		var res struct {
			EncodingType string `xml:"EncodingType"`
			Contents     []struct {
				Key  string `xml:"Key"`
				ETag string `xml:"ETag"`
			} `xml:"Contents"`
		}
		if xml.Unmarshal(body, &res) != nil {
			continue
		}
		for _, c := range res.Contents {
			key := c.Key
			if res.EncodingType == "url" {
				if k, err := url.QueryUnescape(key); err == nil {
					key = k
				}
			}
			if rel, ok := strings.CutPrefix(key, prefix); ok {
				out[rel] = strings.ToLower(strings.Trim(c.ETag, `"`))
			}
		}
	}
	return out
}
