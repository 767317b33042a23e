package assembly

// The composition layer builds the engine's jobs, so it registers the
// engine's remote kind of destination (rclone:REMOTE:PATH): the
// pipeline (internal/offload) knows destinations through
// internal/offload/dest and never imports the kind itself.

import (
	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/cloud"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/offload/dest"
	"github.com/dit-org/dit/internal/offload/dest/remote"
)

// RemoteSettings are the engine's settings of its remote kind that reach
// remotes with rclone r (nil: rclone on PATH with the user's own
// configuration): offload's Env.Remote, RecheckOptions.Remote.
func RemoteSettings(r *cloud.Rclone) dest.Settings { return remote.Settings{Rclone: r} }

// jobRclone is the rclone a job's other cloud uploads (its proxies) and
// the front end's checks run with, as its files do: r (nil rclone on
// PATH) with the configuration file and limit job rec recorded (rec
// nil: a new job, r's own), the limit in bytes/s
// (offload.RemoteSettings). An invalid limit is a usage error.
func jobRclone(r *cloud.Rclone, rec *catalog.Job) (*cloud.Rclone, error) {
	s, err := offload.RemoteSettings(RemoteSettings(r), rec)
	if err != nil {
		return nil, err
	}
	return remote.Rclone(s)
}
