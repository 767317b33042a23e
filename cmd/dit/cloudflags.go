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
	f.StringVar(&c.Config, "rclone-config", "", "rclone configuration `file` of the rclone: destinations (default: rclone's own, RCLONE_CONFIG or its usual file)")
	if upload {
		f.StringVar(&c.BwLimit, "cloud-bwlimit", "", "bandwidth limit of uploads to rclone: destinations, rclone's --bwlimit `RATE` (e.g. 20M: bytes/s)")
	}
}

func (c *cloudFlags) rclone() *cloud.Rclone {
	return &cloud.Rclone{Config: c.Config, BwLimit: c.BwLimit}
}
