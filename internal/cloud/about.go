package cloud

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"
)

// Space is a remote's room as the storage reports it (rclone about).
// Many backends report their total, used and free bytes; some (S3 and
// most object stores) report nothing: Known is false then, and that is
// not an error.
type Space struct {
	// Known: the storage reported its free space (Free).
	Known bool
	// Free, Total and Used are bytes; -1 where the storage did not say.
	Free, Total, Used int64
}

// About asks the storage of d for its free space (rclone about --json).
// A storage that does not report it gives Space{Known: false} and no
// error; rclone missing, a remote not configured or not reachable are
// errors naming d. A folder of d not created yet is asked of the
// nearest folder above it that exists (the storage's room is the same).
func (r *Rclone) About(ctx context.Context, d Dest) (Space, error) {
	p := d.Path
	for {
		out, err := r.about(ctx, d.Remote+":"+p)
		switch {
		case err == nil:
			return parseAbout(out)
		case aboutUnsupported(err):
			return Space{Free: -1, Total: -1, Used: -1}, nil
		case strings.Contains(err.Error(), "directory not found") && p != "" && p != "/":
			if p = path.Dir(p); p == "." {
				p = ""
			}
			continue
		}
		return Space{}, fmt.Errorf("cloud destination %s: cannot ask its free space: %w", d, err)
	}
}

// aboutUnsupported: rclone says the backend has no about ("... doesn't
// support about").
func aboutUnsupported(err error) bool {
	s := err.Error()
	return strings.Contains(s, "doesn't support about") || strings.Contains(s, "does not support about")
}

// parseAbout reads rclone about --json: each figure is there only when
// the storage gives it.
func parseAbout(b []byte) (Space, error) {
	var a struct {
		Total, Used, Free *int64
	}
	if err := json.Unmarshal(b, &a); err != nil {
		return Space{}, fmt.Errorf("rclone about: unreadable answer %q: %v", strings.TrimSpace(string(b)), err)
	}
	s := Space{Free: -1, Total: -1, Used: -1}
	if a.Free != nil {
		s.Known, s.Free = true, *a.Free
	}
	if a.Total != nil {
		s.Total = *a.Total
	}
	if a.Used != nil {
		s.Used = *a.Used
	}
	return s, nil
}

// about is rclone about --json of fsName, asked of a daemon of r's
// settings (operations/about) when one is running (the job's, started
// by its Check); none is started for it.
func (r *Rclone) about(ctx context.Context, fsName string) ([]byte, error) {
	if dm, release := r.anyDaemon(); dm != nil {
		defer release()
		var out json.RawMessage
		if err := dm.call(ctx, "operations/about", map[string]any{"fs": fsName}, &out); err != nil {
			return nil, errors.New(rcMessage(err))
		}
		return out, nil
	}
	return r.run(ctx, "about", "--json", fsName)
}
