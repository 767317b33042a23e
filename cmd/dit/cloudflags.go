package main

import (
	"github.com/spf13/pflag"

	"github.com/dit-org/dit/internal/cloud"
)

// cloudFlags are how dit reaches rclone:REMOTE:PATH destinations.
type cloudFlags struct {
	Config  string // --rclone-config
	BwLimit string // --cloud-bwlimit
}

// AddFlags registers --rclone-config and, for uploads, --cloud-bwlimit.
func (c *cloudFlags) AddFlags(f *pflag.FlagSet, upload bool) {
	addCloudFlags(f, &c.Config, &c.BwLimit, upload)
}

// addCloudFlags registers --rclone-config into config and, for uploads,
// --cloud-bwlimit into bwLimit (dit offload: its assembly.Spec's, which
// checks them).
func addCloudFlags(f *pflag.FlagSet, config, bwLimit *string, upload bool) {
	f.StringVar(config, "rclone-config", "", "rclone configuration `file` of the rclone: destinations (default: rclone's own, RCLONE_CONFIG or its usual file; a job remembers it for --resume and dit verify)")
	if upload {
		f.StringVar(bwLimit, "cloud-bwlimit", "", "bandwidth limit of uploads to rclone: destinations, a `RATE` in bytes/s, decimal units: 20MB/s (or 20M) is 20 000 000 bytes/s, 160Mbit/s the same; applied to each rclone process (a job remembers it for --resume)")
	}
}

func (c *cloudFlags) rclone() *cloud.Rclone {
	return &cloud.Rclone{Config: c.Config, BwLimit: c.BwLimit}
}
