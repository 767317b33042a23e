package main

import (
	"github.com/spf13/pflag"

	"github.com/dit-org/dit/internal/cloud"
	"github.com/dit-org/dit/internal/offload"
)

// cloudFlags are how dit reaches rclone:REMOTE:PATH destinations.
type cloudFlags struct {
	Config  string // --rclone-config
	BwLimit string // --cloud-bwlimit
}

// AddFlags registers --rclone-config and, for uploads, --cloud-bwlimit.
func (c *cloudFlags) AddFlags(f *pflag.FlagSet, upload bool) {
	f.StringVar(&c.Config, "rclone-config", "", "rclone configuration `file` of the rclone: destinations (default: rclone's own, RCLONE_CONFIG or its usual file; a job remembers it for --resume and dit verify)")
	if upload {
		f.StringVar(&c.BwLimit, "cloud-bwlimit", "", "bandwidth limit of uploads to rclone: destinations, a `RATE` in bytes/s, decimal units: 20MB/s (or 20M) is 20 000 000 bytes/s, 160Mbit/s the same; applied to each rclone process (a job remembers it for --resume)")
	}
}

// check refuses an invalid --cloud-bwlimit (exit 2), naming it and the
// syntax, before anything is opened.
func (c *cloudFlags) check() error {
	if c.BwLimit != "" {
		if _, err := offload.ParseCloudBwLimit(c.BwLimit); err != nil {
			return &exitError{code: ExitUsage, err: err}
		}
	}
	return nil
}

func (c *cloudFlags) rclone() *cloud.Rclone {
	return &cloud.Rclone{Config: c.Config, BwLimit: c.BwLimit}
}
