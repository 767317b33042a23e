package dest

// Settings are a front end's settings of the remote kind: how it
// reaches remotes (for rclone: the binary, its configuration file, an
// upload limit, its environment), which the kind interprets
// (internal/offload/dest/remote: remote.Settings); nil is the kind's
// defaults. The pipeline knows of them only the two a job records
// (offload's JobSpec.RcloneConfig and RemoteBwLimit), so that a resumed
// job, and dit verify, reach its remotes as it started.
type Settings interface {
	// Recorded is the configuration file ("" the kind's own choice)
	// and the upload limit, in dit's rate syntax ("" none), as the
	// front end gave them.
	Recorded() (config, bwLimit string)
	// With is these settings with the job's configuration file ("" the
	// kind's own choice) and upload limit in bytes/s (0 none).
	With(config string, bwLimit int64) Settings
}

// Settle is s with the job's configuration file and upload limit (in
// bytes/s, 0 none): s nil is the registered remote kind's defaults.
// Without a remote kind it is nil (opening a remote then says there is
// none).
func Settle(s Settings, config string, bwLimit int64) Settings {
	if s == nil {
		k, err := kind()
		if err != nil {
			return nil
		}
		s = k.Defaults()
	}
	return s.With(config, bwLimit)
}
