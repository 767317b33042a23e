package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/dit-org/dit/raid/fusemount"
	"github.com/dit-org/dit/raid/mountplace"
)

func newArrayMountCommand(g *GlobalOptions) *cobra.Command {
	var o ArrayOptions
	cmd := &cobra.Command{
		Use:   "mount BLADE [MOUNTPOINT]",
		Short: "Read-only FUSE view of the array (Linux; macOS with macFUSE); Ctrl-C unmounts",
		Long: `dit array mount serves the array read-only at MOUNTPOINT, so an editing suite,
a player or Finder can open its files in place; Ctrl-C unmounts. Without
MOUNTPOINT it mounts at the array's mount place, created if missing:
$` + mountplace.Env + `/NAME (default ~/dit-arrays/NAME), NAME being the array's label
and the first 8 hex digits of its UUID (cart-1a2b3c4d). The same array gets
the same place every time, so the paths dit find, the reports and the ALE
print for its files open whenever it is mounted there.`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			a, err := o.open(args[0], false)
			if err != nil {
				return err
			}
			defer a.Close()
			dir := ""
			if len(args) == 2 {
				dir = args[1]
			} else {
				sb := a.Superblock()
				dir = mountplace.Default(sb.ArrayUUID, sb.ArrayLabel)
				if err := os.MkdirAll(dir, 0o755); err != nil {
					return fmt.Errorf("creating the array's mount place %s: %w (set %s to another folder, or give MOUNTPOINT)", dir, err, mountplace.Env)
				}
			}
			srv, err := fusemount.Mount(a, dir)
			if err != nil {
				return err
			}
			fmt.Fprintf(g.stdout, "array mounted read-only at %s; Ctrl-C to unmount\n", dir)
			sig := make(chan os.Signal, 1)
			signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
			select {
			case <-sig:
			case <-cmd.Context().Done():
			}
			return srv.Unmount()
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}
