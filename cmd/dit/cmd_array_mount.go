package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/dit-org/dit/raid/fusemount"
)

func newArrayMountCommand(g *GlobalOptions) *cobra.Command {
	var o ArrayOptions
	cmd := &cobra.Command{
		Use:   "mount BLADE MOUNTPOINT",
		Short: "Read-only FUSE view of the array (Linux; macOS with macFUSE); Ctrl-C unmounts",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			a, err := o.open(args[0], false)
			if err != nil {
				return err
			}
			defer a.Close()
			srv, err := fusemount.Mount(a, args[1])
			if err != nil {
				return err
			}
			fmt.Fprintf(g.stdout, "array mounted read-only at %s; Ctrl-C to unmount\n", args[1])
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
