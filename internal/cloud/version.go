package cloud

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"sync"
)

// OldestRclone is the oldest rclone release dit drives: the one Debian 12
// ships (1.60.1), which every test of dit's cloud destinations runs
// against. dit uses what it has (rcat --size, lsjson --files-only
// --hash-type, copy --files-from-raw, backend features, about --json,
// JSON logs with stats); an older rclone is refused before a job, naming
// both versions (checkVersion).
const OldestRclone = "v1.60"

const oldestMajor, oldestMinor = 1, 60

// versions are the rclone versions found in this process, by binary
// (its path and modification time): asked once.
var versions sync.Map

var versionRe = regexp.MustCompile(`rclone v(\d+)\.(\d+)(\.\d+)?\S*`)

// checkVersion refuses an rclone older than OldestRclone (a *DestError
// naming its version and the oldest dit drives), asked of the daemon dm
// (nil: an rclone version process); a version it cannot read is let
// through (a build of its own): rclone's own errors then say what it
// lacks.
func (r *Rclone) checkVersion(ctx context.Context, dm *daemon) error {
	b, err := r.bin()
	if err != nil {
		return err
	}
	key := b
	if fi, err := os.Stat(b); err == nil {
		key = fmt.Sprintf("%s\x00%d", b, fi.ModTime().UnixNano())
	}
	v, ok := versions.Load(key)
	if !ok {
		var out []byte
		if dm != nil {
			var cv struct{ Version string }
			if err := dm.call(ctx, "core/version", map[string]any{}, &cv); err != nil {
				return fmt.Errorf("rclone version: %w", err)
			}
			out = []byte("rclone " + cv.Version)
		} else if out, err = r.run(ctx, "version"); err != nil {
			return fmt.Errorf("rclone version: %w", err)
		}
		v = versionRe.FindStringSubmatch(string(out))
		versions.Store(key, v)
	}
	m := v.([]string)
	if m == nil {
		return nil
	}
	major, _ := strconv.Atoi(m[1])
	minor, _ := strconv.Atoi(m[2])
	if major > oldestMajor || major == oldestMajor && minor >= oldestMinor {
		return nil
	}
	return destErrorf("%s (%s) is older than rclone %s, the oldest dit drives for cloud destinations: install a newer rclone (https://rclone.org/downloads/, or your system's package)",
		m[0], b, OldestRclone)
}
