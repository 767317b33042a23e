package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/dit-org/dit/cmd/dit/internal/termview"
	"github.com/dit-org/dit/internal/assembly"
	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/offload"
)

// VerifyOptions are the flags of dit verify.
type VerifyOptions struct {
	VerifyHashes string // fastest | all
	All          bool   // --verify-hashes-all, the old name of --verify-hashes all
	Cloud        cloudFlags
}

// verifyHashesUsage is the help of --verify-hashes, the one name on dit
// offload, dit verify and dit mhl verify for recomputing every hash on
// read-back.
const verifyHashesUsage = "hashes recomputed on read-back: fastest (the fastest recorded) or all (every recorded one)"

// addVerifyHashesFlag registers --verify-hashes fastest|all, and old, the
// command's former name for "all", as a hidden alias (verifyHashesAll says
// it is deprecated when it is used).
func addVerifyHashesFlag(f *pflag.FlagSet, value *string, old string, oldValue *bool) {
	f.StringVar(value, "verify-hashes", "fastest", verifyHashesUsage)
	if old != "" {
		f.BoolVar(oldValue, old, false, "recompute every recorded hash (old name of --verify-hashes all)")
		f.MarkHidden(old)
	}
}

// verifyHashesAll checks --verify-hashes (and the old alias old, if
// given, with a note on stderr: not pflag's deprecation notice, which
// cobra prints on stdout, where it would break --json) and reports whether
// every hash is to be recomputed.
func verifyHashesAll(g *GlobalOptions, f *pflag.FlagSet, value, old string, oldValue bool) (bool, error) {
	if value != "fastest" && value != "all" {
		return false, &exitError{code: ExitUsage, err: fmt.Errorf("invalid --verify-hashes %q: use fastest or all", value)}
	}
	if old != "" && f.Changed(old) {
		if oldValue && value != "all" && f.Changed("verify-hashes") {
			return false, &exitError{code: ExitUsage, err: fmt.Errorf("--%s (the old name of --verify-hashes all) contradicts --verify-hashes %s", old, value)}
		}
		fmt.Fprintf(g.stderr, "dit: note: --%s is deprecated: use --verify-hashes all\n", old)
	}
	return value == "all" || oldValue, nil
}

func newVerifyCommand(g *GlobalOptions) *cobra.Command {
	var o VerifyOptions
	cmd := &cobra.Command{
		Use:   "verify JOB",
		Short: "Read every copy of a job back now and compare it with the source hashes",
		Long: `Read every copy of JOB back from its medium (not the page cache) and compare
it with the hashes taken from the card (--verify-hashes: the fastest recorded
hash, or all). Each file that differs or is missing is named on stdout; how
far it is goes to stderr. The catalog is updated. Exit 0 when every copy
matches, 3 otherwise.`,
		Args: oneJobArg("dit verify"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseJobID(args[0])
			if err != nil {
				return err
			}
			return runVerify(cmd, o, g, id)
		},
	}
	addVerifyHashesFlag(cmd.Flags(), &o.VerifyHashes, "verify-hashes-all", &o.All)
	o.Cloud.AddFlags(cmd.Flags(), false)
	return cmd
}

func runVerify(cmd *cobra.Command, o VerifyOptions, g *GlobalOptions, id int64) error {
	all, err := verifyHashesAll(g, cmd.Flags(), o.VerifyHashes, "verify-hashes-all", o.All)
	if err != nil {
		return err
	}
	if err := checkRcloneConfig(o.Cloud.Config); err != nil {
		return err
	}
	cat, err := g.openCatalogExisting()
	if err != nil {
		return err
	}
	defer cat.Close()
	prog := newVerifyProgress(g, id)
	var good, bad int
	ok, err := offload.RecheckWith(cmd.Context(), cat, fsys.OS{}, id, offload.RecheckOptions{All: all, Remote: assembly.RemoteSettings(o.Cloud.rclone()),
		OnProgress: prog.Set,
		OnResult: func(r offload.RecheckResult) {
			if r.State == offload.StateVerified {
				good++
				return
			}
			if r.State == offload.RecheckResealed {
				good++
				prog.Result(fmt.Sprintf("note %s: %s", r.Path, r.Error))
				return
			}
			bad++
			prog.Result(fmt.Sprintf("%s %s: %s", r.State, r.Path, r.Error))
		}})
	prog.Stop()
	if err != nil {
		return err
	}
	match := pluralWord(good, "copy matches", "copies match")
	fmt.Fprintf(g.stdout, "job %d: %s the source hashes, %d differ or are missing\n", id, match, bad)
	if !ok {
		return &exitError{code: offload.ExitSomeFailed}
	}
	return nil
}

// newVerifyProgress shows dit verify's progress on stderr (a line kept up
// to date on a terminal) and the copies that differ on stdout.
func newVerifyProgress(g *GlobalOptions, job int64) *termview.Verify {
	tty := isTerminal(g.stderr)
	return termview.NewVerify(g.stderr, g.stdout, job, tty, tty && isTerminal(g.stdout))
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
