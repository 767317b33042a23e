package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/offload"
)

// VerifyOptions are the flags of dit verify.
type VerifyOptions struct {
	All bool
}

func newVerifyCommand(g *GlobalOptions) *cobra.Command {
	var o VerifyOptions
	cmd := &cobra.Command{
		Use:   "verify JOB",
		Short: "Read every copy of a job back now and compare it with the source hashes",
		Long: `Read every copy of JOB back from its medium (not the page cache) and compare
it with the hashes taken from the card. Each file that differs or is missing
is named; the catalog is updated. Exit 0 when every copy matches, 3 otherwise.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseJobID(args[0])
			if err != nil {
				return err
			}
			return runVerify(cmd, o, g, id)
		},
	}
	cmd.Flags().BoolVar(&o.All, "verify-hashes-all", false, "recompute every recorded hash, not only the fastest")
	return cmd
}

func runVerify(cmd *cobra.Command, o VerifyOptions, g *GlobalOptions, id int64) error {
	cat, err := g.openCatalog()
	if err != nil {
		return err
	}
	defer cat.Close()
	var good, bad int
	ok, err := offload.Recheck(cmd.Context(), cat, fsys.OS{}, id, o.All, func(r offload.RecheckResult) {
		if r.State == offload.StateVerified {
			good++
			return
		}
		if r.State == "resealed" {
			good++
			fmt.Fprintf(g.stdout, "note %s: %s\n", r.Path, r.Error)
			return
		}
		bad++
		fmt.Fprintf(g.stdout, "%s %s: %s\n", r.State, r.Path, r.Error)
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(g.stdout, "job %d: %d copies match the source hashes, %d differ or are missing\n", id, good, bad)
	if !ok {
		return &exitError{code: offload.ExitSomeFailed}
	}
	return nil
}
