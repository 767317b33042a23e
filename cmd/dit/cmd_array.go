package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dit-org/dit/internal/crashpoint"
	"github.com/dit-org/dit/internal/devices"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/units"
	"github.com/dit-org/dit/raid"
)

// ExitDamage is dit array scrub's exit code when damage remains (a
// finding not repaired) or data is without redundancy; a --repair that
// repaired every finding and leaves the array healthy exits 0.
const ExitDamage = 4

// Rebuild steps of the array are crash-test steps of dit.
func init() { raid.CrashHook = crashpoint.Hit }

// ArrayOptions are flags shared by the array commands.
type ArrayOptions struct {
	Blades        []string
	AllowDegraded bool
	JSON          bool
}

// AddFlags registers the shared flags.
func (o *ArrayOptions) AddFlags(f *pflag.FlagSet) {
	f.StringArrayVar(&o.Blades, "blade", nil, "another blade `folder` of the array (blades that moved; repeatable)")
}

func (o *ArrayOptions) open(blade string, rw bool) (*raid.Array, error) {
	a, err := raid.Open([]string{blade}, raid.OpenOptions{ReadWrite: rw, AllowDegraded: o.AllowDegraded,
		Blades: o.Blades, Writer: "dit " + version})
	return a, arrayUsage(err)
}

// arrayUsage makes the array's refusals of a bad argument (a folder that
// is no blade, a blade given twice, a role that does not exist...) usage
// errors: exit 2, nothing written.
func arrayUsage(err error) error {
	if errors.Is(err, raid.ErrInvalid) || errors.Is(err, raid.ErrNotBlade) {
		return &exitError{code: ExitUsage, err: err}
	}
	return err
}

func newArrayCommand(g *GlobalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "array",
		Short: "dit's own RAID 0/4 array over SSD blades: create, status, ls, extract, scrub, replace, mount",
		Long: `A dit array stripes each file over several blade folders (RAID 0), or over all
but one with XOR parity on a dedicated parity blade (RAID 4): one failed blade
loses nothing, and a blade that returns wrong bytes is caught by per-unit
hashes and repaired. Offload to an array by naming any of its blades:
dit offload -d /Volumes/Blade1 CARD...`,
		// Ctrl-C: the array commands have no job to save.
		PersistentPreRun: func(cmd *cobra.Command, args []string) {
			note := "dit: interrupted: quitting leaves the array consistent; a replace resumes where it stopped when run again"
			if cmd.Name() == "mount" {
				note = "dit: interrupted: unmounting the array"
			}
			interruptNote.Store(note)
		},
	}
	cmd.AddCommand(newArrayCreateCommand(g), newArrayStatusCommand(g), newArrayLsCommand(g),
		newArrayExtractCommand(g), newArrayScrubCommand(g), newArrayReplaceCommand(g), newArrayMountCommand(g))
	return cmd
}

func newArrayCreateCommand(g *GlobalOptions) *cobra.Command {
	var level int
	var su, label string
	cmd := &cobra.Command{
		Use:   "create --level 0|4 [--stripe-unit 1MiB] [--label L] BLADE...",
		Short: "Create an array over empty blade folders (role = order given)",
		Args:  cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			n, err := units.ParseBytes(su)
			if err != nil {
				return &exitError{code: ExitUsage, err: fmt.Errorf("--stripe-unit %s: %w", su, err)}
			}
			if n < raid.MinStripeUnit || n > raid.MaxStripeUnit || n&(n-1) != 0 {
				return &exitError{code: ExitUsage, err: fmt.Errorf("--stripe-unit %s: give a power of two from 64KiB to 16MiB (e.g. 1MiB)", su)}
			}
			var lv raid.Level
			switch level {
			case 0:
				lv = raid.RAID0
			case 4:
				lv = raid.RAID4
			default:
				return &exitError{code: ExitUsage, err: fmt.Errorf("invalid --level %d: use 0 or 4", level)}
			}
			a, err := raid.Create(args, raid.CreateOptions{Level: lv, StripeUnit: n, Label: label, Writer: "dit " + version})
			if err != nil {
				return arrayUsage(err)
			}
			defer a.Close()
			sb := a.Superblock()
			fmt.Fprintf(g.stdout, "created %s array %q (%s): %d data blade(s)", strings.ToUpper(sb.Level), sb.ArrayLabel, sb.ArrayUUID, sb.DataBlades)
			if sb.ParityBlades == 1 {
				fmt.Fprintf(g.stdout, " + 1 parity blade")
			}
			fmt.Fprintf(g.stdout, ", stripe unit %s\n", formatUnit(sb.StripeUnit))
			for r := range sb.Members {
				fmt.Fprintf(g.stdout, "  role %d: %s\n", r, a.BladeDir(r))
			}
			return nil
		},
	}
	cmd.Flags().IntVar(&level, "level", 4, "RAID level: 0 (striping) or 4 (striping + dedicated parity blade)")
	cmd.Flags().StringVar(&su, "stripe-unit", "1MiB", "stripe unit: a power of two from 64KiB to 16MiB")
	cmd.Flags().StringVar(&label, "label", "", "array label")
	return cmd
}

type statusMember struct {
	Role  int    `json:"role"`
	Kind  string `json:"kind"` // data | parity
	Path  string `json:"path"`
	State string `json:"state"`
	UUID  string `json:"blade_uuid"`
	Free  uint64 `json:"free_bytes"`
	// Drive is the health the blade's drive reports (SMART, NVMe log).
	Drive *devices.Health `json:"drive,omitempty"`
}

type statusOut struct {
	UUID        string   `json:"array_uuid"`
	Label       string   `json:"label"`
	Level       string   `json:"level"`
	StripeUnit  int64    `json:"stripe_unit"`
	Health      string   `json:"health"` // healthy | degraded | damaged | failed
	Events      uint64   `json:"events"`
	Files       int      `json:"files"`
	Bytes       int64    `json:"bytes"`
	Unprotected []string `json:"files_without_redundancy"`
	Unreadable  []string `json:"files_unreadable"`
	Lost        []string `json:"files_lost"`
	// DamagedUnits and Damaged are the array's health record: bad units
	// a scrub or a read found and nothing repaired since.
	DamagedUnits int                `json:"damaged_units"`
	Damaged      []raid.DamagedFile `json:"files_damaged"`
	Members      []statusMember     `json:"members"`
	Log          []raid.Event       `json:"events_log"`
}

const arrayStatusLong = `Members, roles, state, health, files, bytes and free space per blade.

Health is one of:
  HEALTHY   every member active, every file on every role it needs, and no
            bad unit known (found by a scrub or a read and not repaired)
  DEGRADED  every file reads, but some lack redundancy: a member is missing
            or stale, a file was written without a role, or bad units are
            known that parity makes up for (dit array scrub --repair
            rewrites them)
  DAMAGED   known bad units make files unreadable (named): copy them again
            from the card or a backup
  FAILED    more blades gone than the level tolerates, or a file's every
            manifest replica damaged

Bad units are recorded on the blades (dit-array/HEALTH) by scrub and by any
read through the array (extract, an offload's verify) and stay until a scrub
--repair fixes them, a rebuild rewrites them or a later scrub finds them
clean. status exits 0 whenever it could read the array, whatever the
health: judge by the health word or the JSON "health" field (dit array
scrub exits 4 when it is not clean).`

func newArrayStatusCommand(g *GlobalOptions) *cobra.Command {
	var o ArrayOptions
	var noSmart bool
	cmd := &cobra.Command{
		Use:   "status BLADE [--json]",
		Short: "Members, roles, state, health, files, bytes and free space per blade",
		Long:  arrayStatusLong,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			a, err := o.open(args[0], false)
			if err != nil {
				return err
			}
			defer a.Close()
			sb := a.Superblock()
			st := statusOut{UUID: sb.ArrayUUID, Label: sb.ArrayLabel, Level: sb.Level, StripeUnit: sb.StripeUnit, Events: sb.Events, Log: a.Events()}
			free := a.BladeFree()
			h := a.Health()
			for r, m := range sb.Members {
				kind := "data"
				if r >= sb.DataBlades {
					kind = "parity"
				}
				state := m.State
				if why, ok := h.Members[r]; ok {
					state = why
				}
				path := a.BladeDir(r)
				if path == "" {
					state, path = "missing", m.PathHint
				}
				st.Members = append(st.Members, statusMember{Role: r, Kind: kind, Path: path, State: state, UUID: m.BladeUUID, Free: free[r]})
			}
			for _, m := range a.Files() {
				if !m.Dir {
					st.Files++
					st.Bytes += m.Size
				}
			}
			st.Health = h.State
			st.Unprotected, st.Unreadable, st.Lost = h.Unprotected, h.Unreadable, h.Lost
			st.DamagedUnits, st.Damaged = h.DamagedUnits, h.Damaged
			if !noSmart {
				addDriveHealth(cmd.Context(), &st)
			}
			if o.JSON {
				enc := json.NewEncoder(g.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(st)
			}
			writeArrayStatus(g.stdout, st, args[0])
			return nil
		},
	}
	o.AddFlags(cmd.Flags())
	cmd.Flags().BoolVar(&o.JSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&noSmart, "no-smart", false, "do not ask the blades' drives for their health (smartctl)")
	return cmd
}

// addDriveHealth asks each present blade's drive for its health
// (devices.HealthOfAll: each drive once).
func addDriveHealth(ctx context.Context, st *statusOut) {
	vols, err := devices.Discover(ctx)
	if err != nil {
		return
	}
	var idx []int
	var folders []string
	for i, m := range st.Members {
		if m.State != "missing" {
			idx, folders = append(idx, i), append(folders, m.Path)
		}
	}
	for j, h := range devices.HealthOfAll(ctx, vols, folders, nil) {
		st.Members[idx[j]].Drive = h
	}
}

// writeArrayStatus prints dit array status's text.
func writeArrayStatus(w io.Writer, st statusOut, blade string) {
	fmt.Fprintf(w, "array %q %s (%s), stripe unit %s: %s\n", st.Label, strings.ToUpper(st.Level), st.UUID,
		formatUnit(st.StripeUnit), strings.ToUpper(st.Health))
	fmt.Fprintf(w, "%d files, %s, events %d\n", st.Files, units.FormatBytes(st.Bytes), st.Events)
	for _, m := range st.Members {
		if m.Drive != nil && m.Drive.Warn() {
			fmt.Fprintf(w, "WARNING: the drive of role %d (%s) reports: %s: copy what it holds elsewhere and replace it (dit array replace)\n",
				m.Role, m.Path, strings.Join(m.Drive.Problems, "; "))
		}
	}
	if st.DamagedUnits > 0 {
		unreadable := 0
		for _, d := range st.Damaged {
			if d.State == raid.DamageUnreadable {
				unreadable++
			}
		}
		fmt.Fprintf(w, "%d damaged unit(s) known in %d file(s), found by a scrub or a read: ", st.DamagedUnits, len(st.Damaged))
		notActive := 0
		for _, m := range st.Members {
			if m.State != raid.MemberActive {
				notActive++
			}
		}
		switch {
		case unreadable > 0:
			fmt.Fprintf(w, "%d file(s) cannot be read: copy them again from the card or a backup; dit array scrub --repair %s rewrites what parity can prove\n", unreadable, blade)
		case notActive > 0:
			// Parity is what a member not active takes away: never
			// say it makes up for anything then.
			fmt.Fprintf(w, "the files still read, but without redundancy while %d member(s) are not active: reconnect or replace them (dit array replace), then dit array scrub --repair %s rewrites the units\n", notActive, blade)
		default:
			fmt.Fprintf(w, "parity makes up for them; dit array scrub --repair %s rewrites them\n", blade)
		}
	}
	for _, l := range []struct {
		files []string
		what  string
	}{
		{st.Unreadable, "cannot be read now"},
		{st.Unprotected, "without redundancy: one more lost blade makes them unreadable"},
		{st.Lost, "lost: every replica of their manifest is damaged"},
	} {
		if len(l.files) == 0 {
			continue
		}
		fmt.Fprintf(w, "%d files %s:\n", len(l.files), l.what)
		for i, f := range l.files {
			if i == 10 {
				fmt.Fprintf(w, "  ... and %d more\n", len(l.files)-10)
				break
			}
			fmt.Fprintf(w, "  %s\n", f)
		}
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ROLE\tKIND\tSTATE\tFREE\tBLADE")
	for _, m := range st.Members {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", m.Role, m.Kind, m.State, units.FormatBytes(int64(m.Free)), m.Path)
	}
	tw.Flush()
	for _, m := range st.Members {
		if m.Drive != nil {
			fmt.Fprintf(w, "role %d drive: %s\n", m.Role, m.Drive)
		}
	}
	for _, e := range st.Log {
		fmt.Fprintf(w, "%s: %s\n", e.Kind, e.Message)
	}
}

func newArrayLsCommand(g *GlobalOptions) *cobra.Command {
	var o ArrayOptions
	cmd := &cobra.Command{
		Use:   "ls BLADE [PATH] | ls array:BLADE//PATH",
		Short: "List the files of an array",
		Args:  cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			args = splitArrayArg(args)
			a, err := o.open(args[0], false)
			if err != nil {
				return err
			}
			defer a.Close()
			prefix := ""
			if len(args) == 2 {
				prefix = strings.Trim(args[1], "/")
			}
			var list []*raid.Manifest
			for _, m := range a.Files() {
				if prefix == "" || m.Path == prefix || strings.HasPrefix(m.Path, prefix+"/") {
					list = append(list, m)
				}
			}
			if o.JSON {
				type entry struct {
					Path  string `json:"path"`
					Dir   bool   `json:"dir"`
					Size  int64  `json:"size"`
					XXH64 string `json:"xxh64,omitempty"`
				}
				out := []entry{}
				for _, m := range list {
					out = append(out, entry{m.Path, m.Dir, m.Size, m.Hashes["xxh64"]})
				}
				return json.NewEncoder(g.stdout).Encode(out)
			}
			for _, m := range list {
				if m.Dir {
					fmt.Fprintf(g.stdout, "%12s  %s/\n", "-", m.Path)
				} else {
					fmt.Fprintf(g.stdout, "%12d  %s  %s\n", m.Size, m.Hashes["xxh64"], m.Path)
				}
			}
			return nil
		},
	}
	o.AddFlags(cmd.Flags())
	cmd.Flags().BoolVar(&o.JSON, "json", false, "print JSON")
	return cmd
}

func newArrayExtractCommand(g *GlobalOptions) *cobra.Command {
	var o ArrayOptions
	var to string
	cmd := &cobra.Command{
		Use:   "extract BLADE [PATH...] --to DIR | extract array:BLADE//PATH --to DIR",
		Short: "Restore files to a plain folder (atomic, mtimes kept, every file re-hashed and compared)",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			args = splitArrayArg(args)
			if to == "" {
				return &exitError{code: ExitUsage, err: fmt.Errorf("--to DIR is required")}
			}
			if fi, err := os.Stat(to); err == nil && !fi.IsDir() {
				return &exitError{code: ExitUsage, err: fmt.Errorf("--to %s is not a folder: give a folder to extract to (created if missing)", to)}
			}
			a, err := o.open(args[0], false)
			if err != nil {
				return err
			}
			defer a.Close()
			var n, failed int
			err = a.Extract(args[1:], to, func(r raid.ExtractResult) {
				switch r.State {
				case raid.ExtractFailed:
					failed++
					fmt.Fprintf(g.stdout, "FAILED %s: %s\n", r.Path, r.Error)
				default:
					n++
				}
			})
			if errors.Is(err, raid.ErrInvalid) {
				return arrayUsage(err) // nothing extracted, nothing to sum up
			}
			fmt.Fprintf(g.stdout, "%s restored to %s and verified", pluralWord(n, "entry", "entries"), to)
			if failed > 0 {
				fmt.Fprintf(g.stdout, "; %d FAILED (not restored)", failed)
			}
			fmt.Fprintln(g.stdout)
			for _, e := range a.Events() {
				fmt.Fprintf(g.stdout, "%s: %s\n", e.Kind, e.Message)
			}
			if err != nil {
				return &exitError{code: offload.ExitSomeFailed, err: err}
			}
			return nil
		},
	}
	o.AddFlags(cmd.Flags())
	cmd.Flags().StringVar(&to, "to", "", "destination `folder`")
	return cmd
}

func newArrayScrubCommand(g *GlobalOptions) *cobra.Command {
	var o ArrayOptions
	var repair bool
	cmd := &cobra.Command{
		Use:   "scrub BLADE [--repair] [--json]",
		Short: "Read and check every unit; exit 0 clean (--repair: all repaired, healthy), 4 damage remains or data without redundancy",
		Long: `Read every unit of every file, check it against its hash and the parity
(RAID 4), and the manifest replicas and chunk sizes; list what is wrong, by
file, stripe, byte range and blade. With --repair (read-write), rewrite what
parity proves right (RAID 4) and rebuild files onto roles they lack.

Exit 0: clean; with --repair, also when every finding was repaired and the
array ends healthy. Exit 4: damage remains (a finding not repaired), or data
is without redundancy (a member missing, stale or rebuilding): see dit array
status BLADE.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			a, err := o.open(args[0], repair)
			if err != nil {
				return err
			}
			defer a.Close()
			rep, err := a.Scrub(repair, nil, nil)
			if err != nil {
				return err
			}
			// Clean, or (--repair) every finding repaired and the array
			// healthy at the end: exit 0. Anything left: exit 4.
			remaining := len(rep.Issues) - rep.Repaired
			ok := rep.Clean() || (repair && remaining == 0 && a.Health().Healthy())
			if o.JSON {
				enc := json.NewEncoder(g.stdout)
				enc.SetIndent("", "  ")
				enc.Encode(rep)
			} else {
				writeScrubReport(g.stdout, rep, ok, args[0])
			}
			if !ok {
				return &exitError{code: ExitDamage}
			}
			return nil
		},
	}
	o.AddFlags(cmd.Flags())
	cmd.Flags().BoolVar(&repair, "repair", false, "rewrite what parity proves right (RAID 4)")
	cmd.Flags().BoolVar(&o.JSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&o.AllowDegraded, "allow-degraded", false, "repair a degraded RAID 4")
	return cmd
}

func newArrayReplaceCommand(g *GlobalOptions) *cobra.Command {
	var o ArrayOptions
	var role int
	var newBlade string
	cmd := &cobra.Command{
		Use:   "replace BLADE --role N --blade NEWDIR",
		Short: "Rebuild role N onto a new empty blade (resumable: run it again after a crash)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if newBlade == "" {
				return &exitError{code: ExitUsage, err: fmt.Errorf("--blade NEWDIR is required")}
			}
			if role < 0 {
				return &exitError{code: ExitUsage, err: fmt.Errorf("--role %d: give the role to replace (0 or more: dit array status %s shows the roles)", role, args[0])}
			}
			o.AllowDegraded = true
			// The arguments first, on a read-only open: a bad role or
			// folder is refused before anything is written.
			ro, err := o.open(args[0], false)
			if err != nil {
				return err
			}
			err = ro.CheckReplace(role, newBlade)
			ro.Close()
			if err != nil {
				return arrayUsage(err)
			}
			a, err := o.open(args[0], true)
			if err != nil {
				return err
			}
			defer a.Close()
			err = a.Replace(role, newBlade, func(done, total int) {
				if done%100 == 0 || done == total {
					fmt.Fprintf(g.stdout, "rebuilt %d/%d files\n", done, total)
				}
			})
			if err != nil {
				return arrayUsage(err)
			}
			fmt.Fprintf(g.stdout, "role %d rebuilt on %s\n", role, newBlade)
			return nil
		},
	}
	cmd.Flags().IntVar(&role, "role", -1, "role to replace")
	cmd.Flags().StringVar(&newBlade, "blade", "", "new empty blade `folder`")
	return cmd
}

// writeScrubReport prints dit array scrub's text: every finding, then
// clean, all repaired, or what is left.
func writeScrubReport(w io.Writer, rep *raid.ScrubReport, ok bool, blade string) {
	fmt.Fprintf(w, "scrubbed %d files, %d stripes, %s\n", rep.Files, rep.Stripes, units.FormatBytes(rep.Bytes))
	for _, is := range rep.Issues {
		fmt.Fprintln(w, scrubLine(is))
	}
	switch {
	case rep.Clean():
		fmt.Fprintln(w, "clean")
	case ok:
		fmt.Fprintf(w, "%d finding(s), all repaired: the array is healthy\n", len(rep.Issues))
	default:
		fmt.Fprintf(w, "not clean: %d finding(s), %d repaired; see dit array status %s\n", len(rep.Issues), rep.Repaired, blade)
	}
}

// scrubLine is one scrub finding for a person: what, where (file, stripe,
// byte range, blade), repaired or not, and why.
func scrubLine(is raid.Issue) string {
	var b strings.Builder
	b.WriteString(is.Kind)
	if is.Path != "" {
		b.WriteString(": " + is.Path)
	}
	if is.Stripe >= 0 {
		fmt.Fprintf(&b, " stripe %d position %d", is.Stripe, is.Position)
		if is.To >= is.From {
			fmt.Fprintf(&b, " (bytes %d-%d)", is.From, is.To)
		}
	}
	if is.Blade != "" {
		b.WriteString(" on blade " + is.Blade)
	}
	if is.Repaired {
		b.WriteString(": REPAIRED")
	} else {
		b.WriteString(": not repaired")
	}
	if is.Detail != "" {
		b.WriteString(" (" + is.Detail + ")")
	}
	return b.String()
}

// formatUnit shows a power-of-two stripe unit as KiB or MiB.
func formatUnit(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d KiB", n>>10)
}

// splitArrayArg takes a first argument in the form dit prints locations in
// an array (array:BLADE//PATH) apart: BLADE, then PATH.
func splitArrayArg(args []string) []string {
	if len(args) == 0 || !strings.HasPrefix(args[0], offload.ArrayPathPrefix) {
		return args
	}
	blade, rel, ok := offload.SplitArrayPath(args[0])
	if !ok {
		return args
	}
	out := []string{blade}
	if rel != "" {
		out = append(out, rel)
	}
	return append(out, args[1:]...)
}
