package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/dit-org/dit/internal/devices"
	"github.com/dit-org/dit/internal/units"
)

// DevicesOptions are the flags of dit devices.
type DevicesOptions struct {
	JSON bool
}

func newDevicesCommand(g *GlobalOptions) *cobra.Command {
	var o DevicesOptions
	cmd := &cobra.Command{
		Use:   "devices",
		Short: "List mounted volumes with their media, bus, link speed and shared controller",
		Long: `List the mounted volumes: size, free space, file system, label, and where the
system tells: the medium (a CFast or AXS reader, a Thunderbolt NVMe drive),
the kind and speed of its link, the hubs above it and the controller it
shares with other volumes. dit plan and dit offload use this when no
--topology file is given.

Linux reads /proc/self/mountinfo and sysfs; macOS runs diskutil and
system_profiler.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			vols, err := devices.Discover(cmd.Context())
			if err != nil {
				return err
			}
			if o.JSON {
				enc := json.NewEncoder(g.stdout)
				enc.SetIndent("", "  ")
				if vols == nil {
					vols = []devices.Volume{}
				}
				return enc.Encode(vols)
			}
			writeDevices(g.stdout, vols)
			return nil
		},
	}
	cmd.Flags().BoolVar(&o.JSON, "json", false, "print the volumes as JSON")
	return cmd
}

func writeDevices(w io.Writer, vols []devices.Volume) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "MOUNT\tLABEL\tFS\tSIZE\tFREE\tMEDIA\tBUS\tLINK\tVIA\tCONTROLLER")
	for _, v := range vols {
		free, link := "-", "-"
		if v.Free > 0 {
			free = units.FormatBytes(v.Free)
		}
		if v.Speed > 0 {
			link = fmt.Sprintf("%g Gbit/s", v.Speed/1e9)
		}
		var via []string
		for _, l := range v.Path[min(1, len(v.Path)):] {
			via = append(via, l.Title)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", v.Mount, orDash(v.Label), v.FSType, units.FormatBytes(v.Size), free,
			orDash(v.Media), orDash(v.Bus), link, orDash(strings.Join(via, ", ")), orDash(v.Controller))
	}
	tw.Flush()
}
