package cloud

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"time"
)

// The transfers through a daemon (daemon.go): each is what the process
// of the same name in rclone.go does, in one rc call.

// copyURL writes the object rel of dst from body, size bytes long
// (RcatWatch): rclone reads it from the feeder with its length and puts
// it in one S3 part up to UploadCutoff. onErr (may be nil) is told of
// each error or notice the daemon logs of the object.
// cfg (nil: none) is the call's _config (rclone's options for it).
func (d *daemon) copyURL(ctx context.Context, dst Dest, rel string, size int64, body io.Reader, onErr func(string), cfg map[string]any) error {
	u, fd, forget := d.feed.add(body, size)
	defer forget()
	defer d.logs.watch(rel, onErr)()
	in := map[string]any{"fs": dst.At(""), "remote": rel, "url": u}
	if cfg != nil {
		in["_config"] = cfg
	}
	err := d.call(ctx, "operations/copyurl", in, nil)
	if err == nil {
		// rclone read it whole: its upload is done (the feeder's
		// handler returns as rclone reads the last bytes).
		select {
		case <-fd.done:
		case <-time.After(10 * time.Second):
			return fmt.Errorf("rclone copyurl %s: done without reading the file", dst.At(rel))
		}
		if fd.err != nil || fd.n != size {
			return fmt.Errorf("rclone copyurl %s: done after %d bytes of %d", dst.At(rel), fd.n, size)
		}
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	d.settle(ctx)
	e := fmt.Errorf("rclone copyurl %s: %s", dst.At(rel), rcMessage(err))
	if strings.Contains(rcMessage(err), maxTransferWords) {
		return Fatal{e}
	}
	return e
}

// copyFiles copies the files listed in the file list (relative to the
// local folder src) to the folder dst (rclone sync/copy, as rclone copy
// --files-from-raw --no-traverse --ignore-existing). on is told the bytes
// sent so far and the last error, about twice a second.
func (d *daemon) copyFiles(ctx context.Context, src, list, dst string, transfers int, on func(int64, string)) (int64, error) {
	src, err := filepath.Abs(src) // the daemon may outlive dit's working folder
	if err != nil {
		return 0, err
	}
	group := "dit-" + randomHex(8)
	cfg := map[string]any{"NoTraverse": true, "IgnoreExisting": true}
	if transfers > 0 {
		cfg["Transfers"] = transfers
	}
	in := map[string]any{"srcFs": src, "dstFs": dst, "_group": group, "_config": cfg,
		"_filter": map[string]any{"FilesFromRaw": []string{list}}}
	done := make(chan error, 1)
	go func() { done <- d.call(ctx, "sync/copy", in, nil) }()
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	var bytes int64
	stats := func() {
		var st struct {
			Bytes     int64  `json:"bytes"`
			LastError string `json:"lastError"`
		}
		if d.call(context.WithoutCancel(ctx), "core/stats", map[string]any{"group": group}, &st) == nil {
			bytes = st.Bytes
			on(st.Bytes, st.LastError)
		}
	}
	for {
		select {
		case err := <-done:
			stats()
			d.call(context.WithoutCancel(ctx), "core/stats-delete", map[string]any{"group": group}, nil)
			if err != nil {
				if ctx.Err() != nil {
					return bytes, ctx.Err()
				}
				return bytes, fmt.Errorf("rclone copy: %s", rcMessage(err))
			}
			return bytes, nil
		case <-tick.C:
			stats()
		}
	}
}

// copyFile copies the local file src to the object rel of dst
// (operations/copyfile, as rclone copyto --ignore-existing).
func (d *daemon) copyFile(ctx context.Context, src string, dst Dest, rel string) error {
	src, err := filepath.Abs(src) // the daemon may outlive dit's working folder
	if err != nil {
		return err
	}
	dir, name := filepath.Split(src)
	err = d.call(ctx, "operations/copyfile", map[string]any{"srcFs": dir, "srcRemote": name, "dstFs": dst.At(""), "dstRemote": rel,
		"_config": map[string]any{"IgnoreExisting": true}}, nil)
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("rclone copyto %s %s: %s", src, dst.At(rel), rcMessage(err))
	}
	return err
}

// open reads the object rel of dst back through the daemon (--rc-serve:
// GET /[REMOTE:PATH]/rel); ok false when the daemon cannot name it so
// (a "]" in the destination's path).
func (d *daemon) open(ctx context.Context, dst Dest, rel string) (io.ReadCloser, bool, error) {
	fsName := dst.At("")
	if strings.Contains(fsName, "]") {
		return nil, false, nil
	}
	base, err := url.Parse(d.url)
	if err != nil {
		return nil, true, err
	}
	u := url.URL{Scheme: base.Scheme, Host: base.Host, Path: "/[" + fsName + "]/" + rel}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, true, err
	}
	req.SetBasicAuth(d.user, d.pass)
	resp, err := d.client.Do(req)
	if err != nil {
		return nil, true, fmt.Errorf("rclone cat %s: %v", dst.At(rel), err)
	}
	if resp.StatusCode == http.StatusNotFound {
		// As rclone cat of a name not there: nothing read (Close says so).
		resp.Body.Close()
		return io.NopCloser(strings.NewReader("")), true, nil
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		resp.Body.Close()
		return nil, true, fmt.Errorf("rclone cat %s: %s: %s", dst.At(rel), resp.Status, strings.TrimSpace(string(b)))
	}
	return resp.Body, true, nil
}

// rcMessage is the words of an rc error: rclone's own.
func rcMessage(err error) string {
	if e, ok := err.(*rcError); ok {
		return e.msg
	}
	return err.Error()
}
