package assembly

import (
	"context"
	"fmt"
	"strings"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/cloud"
	"github.com/dit-org/dit/internal/proxies"
	"github.com/dit-org/dit/raid/mountplace"
)

// What front ends ask before a job: whether a destination is a cloud one
// and usable, which proxy presets there are, and a job's proxies in
// words (dit job show's line, dit-gui's History).

// IsRemoteDest reports whether d is a remote destination (rclone:REMOTE:PATH).
func IsRemoteDest(d string) bool { return cloud.IsDest(d) }

// CheckRemoteDest checks a cloud destination as a job would use it with
// r (nil: rclone on PATH, the user's configuration): written right and
// naming a folder, rclone installed, the remote configured (else the
// remotes there are named), the folder there (on S3 its bucket) and not
// relative to the working folder (cloud.Rclone.Check). A job's start
// checks the same, in the same words.
func CheckRemoteDest(ctx context.Context, r *cloud.Rclone, d string) error {
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

// ProxyCount is a job's proxies in words as dit job show and dit-gui
// print them: "16 made for 8 clips on 2 destinations, 1 failed" (a
// proxy is made per clip on each destination it goes to: made counts
// them, for the clips that have one, on the destinations that have one;
// then each other state with proxies); for a job that asked for
// proxies, ended, and has none recorded (resumed where ffmpeg was
// missing, or no clip on its cards): "none made (the job asked for
// h264)"; "" for a job that asked for none, or has not ended.
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
	type clip struct {
		card int64
		name string
	}
	clips, dests := map[clip]bool{}, map[string]bool{}
	for _, p := range ps {
		n[p.State]++
		if p.State == catalog.ProxyMade {
			clips[clip{p.CardID, p.Clip}] = true
			dests[p.Dest] = true
		}
	}
	var parts []string
	if m := n[catalog.ProxyMade]; m > 0 {
		made := fmt.Sprintf("%d made for %s", m, plural(len(clips), "clip", "clips"))
		if len(dests) > 1 {
			made += fmt.Sprintf(" on %d destinations", len(dests))
		}
		parts = append(parts, made)
	}
	for _, st := range []string{catalog.ProxyFailed, catalog.ProxyCancelled, catalog.ProxySkipped} {
		if n[st] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[st], st))
		}
	}
	return strings.Join(parts, ", "), nil
}

// plural is n and the noun for it: "1 clip", "8 clips".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// ProxySourcePath is where a proxy's source (as the catalog records it)
// opens: for a copy in a dit array, below the array's mount point or
// mount place (res), else the path as recorded (proxies.SourcePath).
func ProxySourcePath(res *mountplace.Resolver, source string) string {
	return proxies.SourcePath(res, source)
}
