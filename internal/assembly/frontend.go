package assembly

import (
	"context"
	"fmt"
	"strings"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/cloud"
	"github.com/dit-org/dit/internal/proxies"
)

// What front ends ask before a job: whether a destination is a cloud one
// and usable, which proxy presets there are, and a job's proxies in
// words (dit job show's line, dit-gui's History).

// IsCloudDest reports whether d is a cloud destination (rclone:REMOTE:PATH).
func IsCloudDest(d string) bool { return cloud.IsDest(d) }

// CheckCloudDest checks a cloud destination as a job would use it with
// r (nil: rclone on PATH, the user's configuration): written right and
// naming a folder, rclone installed, the remote configured (else the
// remotes there are named), the folder there (on S3 its bucket) and not
// relative to the working folder (cloud.Rclone.Check). A job's start
// checks the same, in the same words.
func CheckCloudDest(ctx context.Context, r *cloud.Rclone, d string) error {
	if r == nil {
		r = &cloud.Rclone{}
	}
	return r.CheckDest(ctx, d)
}

// ProxyPresetList lists the proxy presets' names (dit offload --proxies
// PRESET), in the order ProxyPresets gives them.
func ProxyPresetList() []string {
	var n []string
	for _, p := range proxies.Presets {
		n = append(n, p.Name)
	}
	return n
}

// ProxySpec is the --proxies value of a preset, with ",burnin" when the
// timecode and clip name are burnt in ("" preset: no proxies).
func ProxySpec(preset string, burnin bool) string {
	if preset == "" || !burnin {
		return preset
	}
	return preset + ",burnin"
}

// ProxyCount is a job's proxies in words as dit job show prints them:
// "3 made, 1 failed" (each state with proxies, made first); for a job
// that asked for proxies, ended, and has none recorded (resumed where
// ffmpeg was missing, or no clip on its cards): "none made (the job
// asked for h264)"; "" for a job that asked for none, or has not ended.
func ProxyCount(cat *catalog.Catalog, jobID int64) (string, error) {
	ps, err := cat.Proxies(jobID)
	if err != nil {
		return "", err
	}
	if len(ps) == 0 {
		rec, err := cat.Job(jobID)
		if err != nil || rec.Proxies == "" || rec.State != catalog.JobDone && rec.State != catalog.JobFailed {
			return "", err
		}
		return fmt.Sprintf("none made (the job asked for %s)", rec.Proxies), nil
	}
	n := map[string]int{}
	for _, p := range ps {
		n[p.State]++
	}
	var parts []string
	for _, st := range []string{catalog.ProxyMade, catalog.ProxyFailed, catalog.ProxyCancelled, catalog.ProxySkipped} {
		if n[st] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[st], st))
		}
	}
	return strings.Join(parts, ", "), nil
}
