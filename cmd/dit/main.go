// Command dit offloads camera cards: several cards at once to several
// destinations, hashes computed inline, every copy read back and compared,
// everything logged to a SQLite catalog. See README.md.
package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/cloud"
	"github.com/dit-org/dit/internal/offload"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

// GlobalOptions are the flags every command takes.
type GlobalOptions struct {
	DB string
	// Station is this cart's name (--station, DIT_STATION; default the
	// host name), recorded on its jobs; SyncTo a catalog every job is
	// pushed to when it ends (--sync-to, DIT_SYNC_TO). See cmd_catalog.go.
	Station string
	SyncTo  string
	stdout  io.Writer
	stderr  io.Writer
}

func (g *GlobalOptions) openCatalog() (*catalog.Catalog, error) {
	p := g.DB
	if p == "" {
		p = catalog.DefaultPath()
	}
	return g.setupCatalog(catalog.Open(p))
}

// checkNewCatalog refuses a --db (or DIT_DB) whose folder does not exist:
// a command that may create the catalog (dit offload, dit watch) creates
// the file in an existing folder, never the folders of a mistyped path.
// The default catalog's folder is created.
func (g *GlobalOptions) checkNewCatalog() error {
	if g.DB == "" || catalog.IsPostgresURL(g.DB) {
		return nil
	}
	abs, err := filepath.Abs(g.DB)
	if err != nil {
		return &exitError{code: ExitUsage, err: fmt.Errorf("--db %s: %w", g.DB, err)}
	}
	dir := filepath.Dir(abs)
	fi, err := os.Stat(dir)
	switch {
	case err != nil:
		return &exitError{code: ExitUsage, err: fmt.Errorf("catalog %s (--db or DIT_DB): its folder %s does not exist: create the folder first (mkdir -p %s), or correct the path", g.DB, dir, dir)}
	case !fi.IsDir():
		return &exitError{code: ExitUsage, err: fmt.Errorf("catalog %s (--db or DIT_DB): %s is not a folder: give a catalog file in an existing folder", g.DB, dir)}
	}
	return nil
}

// openCatalogExisting opens the catalog for a command that reads jobs
// (dit jobs, job show, verify, report): unlike openCatalog it never
// creates one, nor its folder, so a mistyped --db is an error naming the
// path rather than a new empty catalog.
func (g *GlobalOptions) openCatalogExisting() (*catalog.Catalog, error) {
	p := g.DB
	if p == "" {
		p = catalog.DefaultPath()
	}
	return g.setupCatalog(catalog.OpenExisting(p))
}

// resumeArgs is what "dit offload --resume N" needs besides the job to
// reach this catalog: "--db PATH" (absolute) when a catalog other than the
// default was given (--db or DIT_DB), else "".
func (g *GlobalOptions) resumeArgs() string {
	if g.DB == "" {
		return ""
	}
	p := g.DB
	if abs, err := filepath.Abs(p); err == nil && !catalog.IsPostgresURL(p) {
		p = abs
	}
	return flagArg("db", p)
}

// resumeCommand is the command that resumes job id.
func (g *GlobalOptions) resumeCommand(id int64) string {
	return g.withCatalog(fmt.Sprintf("dit offload --resume %d", id))
}

// showCommand is the command that shows job id.
func (g *GlobalOptions) showCommand(id int64) string {
	return g.withCatalog(fmt.Sprintf("dit job show %d", id))
}

// withCatalog is cmd with the catalog this command was given (--db).
func (g *GlobalOptions) withCatalog(cmd string) string {
	if g != nil {
		if a := g.resumeArgs(); a != "" {
			cmd += " " + a
		}
	}
	return cmd
}

// ExitUsage is dit's exit code for a usage error (exitCodesHelp): the
// command line's, so the CLI's; the engine's refusals of bad input are
// offload.UsageErrors, which exitCode maps to it.
const ExitUsage = 2

// exitError carries an exit code through cobra.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}
func (e *exitError) Unwrap() error { return e.err }

const exitCodesHelp = `Exit codes (docs/exit-codes.md):
  0    every file verified on every destination (with --verify none: copied);
       or a resumed job that was done had nothing to do
  1    fatal error after the start: the job could not run or finish (a
       destination not writable, locked by another offload or too small, a
       card unreadable, a catalog that cannot be opened or is not dit's)
  2    usage error: anything wrong on the command line, checked before the
       catalog is opened or a job is recorded: an unknown flag or bad value,
       no card or no -d, a card or destination that does not exist or is not
       a folder, one given twice, a bad --layout, a job name with / or ..,
       rclone not installed for an rclone: destination, a --db in a folder
       that does not exist, a --db with no catalog yet for a command that
       reads one, a --notify-config file missing or invalid; the message
       names the flag and the value, and nothing is created
  3    finished, but some files failed or were not verified, or a card's hash
       lists could not be written: see the summary (reports that could not
       be written are a warning: the job is done; --resume writes them)
  4    dit array scrub: damage remains, or data without redundancy (a
       --repair that repaired everything and leaves the array healthy: 0)
  130  interrupted (Ctrl-C): resume with dit offload --resume JOB
A refusal before the first byte is copied (exit 1 or 2) records no job.`

func newRootCommand(g *GlobalOptions) *cobra.Command {
	root := &cobra.Command{
		Use:   "dit",
		Short: "Offload camera cards: one read, inline hashes, read-back verification",
		Long: `dit copies camera cards to one or more destinations at once. Each card is read
once; the selected hashes are computed as it is read; every copy is made
durable under a temporary name, then renamed; then every copy is read back
from its medium (not the page cache) and compared with the source hashes.
A card is reported "safe to format" only when every file of it is verified on
every destination. Every job, file, hash and throughput sample is logged to a
SQLite catalog (--db, or DIT_DB, default ` + catalog.DefaultPath() + `).

` + exitCodesHelp,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version,
	}
	root.SetOut(g.stdout)
	root.SetErr(g.stderr)
	root.SetFlagErrorFunc(flagError)
	root.AddCommand(
		newOffloadCommand(g),
		newWatchCommand(g),
		newPlanCommand(g),
		newDevicesCommand(g),
		newJobsCommand(g),
		newJobCommand(g),
		newVerifyCommand(g),
		newHashCommand(g),
		newArrayCommand(g),
		newMHLCommand(g),
		newReportCommand(g),
		newVersionCommand(g),
		newTestdataCommand(g),
		newCatalogCommand(g),
		newFindCommand(g),
		newDayCommand(g),
		newServeCommand(g),
		newSpeedtestCommand(g),
	)
	// The catalog's flags only on the commands that use them (and their
	// subcommands): dit hash --help does not offer --db.
	for _, c := range root.Commands() {
		f := c.PersistentFlags()
		switch c.Name() {
		case "offload", "watch":
			g.addDBFlag(f)
			g.addStationFlag(f)
			g.addSyncToFlag(f)
		case "catalog":
			g.addDBFlag(f)
			g.addSyncToFlag(f)
		case "jobs", "speedtest":
			g.addDBFlag(f)
			g.addStationFlag(f)
		case "plan", "job", "verify", "report", "find", "day", "serve":
			g.addDBFlag(f)
		}
	}
	addReleaseCommands(root)
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	guardGroups(root)
	addCompletions(g, root)
	return root
}

// interruptNote is what the first Ctrl-C prints (a string); commands
// other than an offload say what they do instead.
var interruptNote atomic.Value

func main() {
	// Memory is bounded by design (buffer pools); a soft limit makes the
	// garbage collector keep the heap near that bound. GOMEMLIMIT overrides.
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(192 << 20)
	}
	g := &GlobalOptions{stdout: os.Stdout, stderr: os.Stderr}
	stopProfiles := startProfiles(os.Getenv, os.Stderr)
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sigs
		note, _ := interruptNote.Load().(string)
		fmt.Fprintln(os.Stderr, "\n"+cmp.Or(note, "dit: interrupted: stopping cleanly and saving the job")+" (Ctrl-C again to quit at once)")
		cancel()
		<-sigs
		stopProfiles()
		os.Exit(offload.ExitInterrupted)
	}()
	err := newRootCommand(g).ExecuteContext(ctx)
	code := exitCode(g, err)
	stopProfiles()
	os.Exit(code)
}

func exitCode(g *GlobalOptions, err error) int {
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(g.stderr, "dit:", ee.err)
		}
		return ee.code
	}
	var ue *offload.UsageError
	if errors.As(err, &ue) {
		fmt.Fprintln(g.stderr, "dit:", err)
		return ExitUsage
	}
	if usageCause(err) {
		fmt.Fprintln(g.stderr, "dit:", err)
		return ExitUsage
	}
	if errors.Is(err, context.Canceled) {
		fmt.Fprintln(g.stderr, "dit: interrupted")
		return offload.ExitInterrupted
	}
	fmt.Fprintln(g.stderr, "dit:", err)
	if isUsage(err) {
		return ExitUsage
	}
	return offload.ExitFatal
}

// usageCause says whether err is, deep down, a path or tool on the
// command line that is not there: a --db (or DIT_DB) naming no catalog,
// like a missing card; rclone not installed for an rclone: destination,
// which cannot be used as given, as any other refused destination.
func usageCause(err error) bool {
	return errors.Is(err, catalog.ErrNoCatalog) || errors.Is(err, cloud.ErrNoRclone)
}

// isUsage recognises cobra's own argument errors.
func isUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "accepts ", "requires at least", "invalid argument", "required flag(s)"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}
