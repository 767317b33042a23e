package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dit-org/dit/internal/assembly"
	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/plan"
	"github.com/dit-org/dit/internal/units"
)

// PlanOptions are the flags of dit plan.
type PlanOptions struct {
	Topology string
	Dests    []string
	// Then are a cascade's second-run destinations (dit offload --then).
	Then         []string
	ThenParallel int
	Hashes       string
	Verify       string
	Limits       []string
	UploadRate   string
	Fit          []string
	NoCPU        bool
	JSON         bool
	// Simulate and Scale plan the run of dit offload --simulate
	// --simulate-scale: the hardware at Scale x its rates.
	Simulate bool
	Scale    float64
}

func newPlanCommand(g *GlobalOptions) *cobra.Command {
	var o PlanOptions
	cmd := &cobra.Command{
		Use:   "plan (--topology FILE | -d DEST [-d DEST...] CARD...)",
		Short: "Plan the bus budget: how fast each card will copy, and what holds it back",
		Long: `Plan how fast each card will copy when they share readers, hubs, controllers,
Thunderbolt ports, destinations and CPU cores: every card's rate (max-min
fair), what limits it (its medium, a bus, a destination, the CPU), ETAs, the
load and headroom of every bus and destination, GB/s and TB/hour, and how
many more cards of a medium would still run at full speed.

With --topology FILE, the machine is described in a YAML file (sources
without a path are what-if cards: no hardware needed). Without it, the
mounted volumes of CARD and DEST are discovered (dit devices) and their
media, buses and controllers told where the system says.

Examples:
  dit plan --topology set.yaml
  dit plan --topology set.yaml --json
  dit plan -d /Volumes/RAID -d /Volumes/SHUTTLE /Volumes/A001 /Volumes/A002
  dit plan --topology set.yaml --limit raid=1.5GB/s --fit cfast2,axs
  dit plan --topology set.yaml --simulate --simulate-scale 0.1 -d RAID A001 A002
  dit plan --topology set.yaml -d RAID --then SHUTTLE1 --then SHUTTLE2 A001 A002

A cascade (--then, or destinations with run: 2 in the topology) is planned
as dit offload runs it: each card's first run to the -d destinations, then
its second run from the first copy to the --then destinations; the plan
gives each card's "card free" and "safe to format" times, the first copy's
read and write load while both runs go, and what limits the second run.

With --simulate --simulate-scale F, the plan is that of dit offload with the
same flags: the set's hardware played at F x its rates on this machine's CPU,
so every rate is F times and every time 1/F times the field plan's.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runPlan(cmd.Context(), o, g, args)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Topology, "topology", "", "topology `file` (YAML) describing buses, cards and destinations")
	f.StringArrayVarP(&o.Dests, "dest", "d", nil, "destination `folder` (repeat for several)")
	f.StringArrayVar(&o.Then, "then", nil, "cascade: second-run destination `folder` (as dit offload --then): plans when each card is free and safe to format")
	f.IntVar(&o.ThenParallel, "then-parallel", 1, "cascade: cards the second run copies at once")
	f.StringVar(&o.Hashes, "hash", "xxh64,md5", "hashes the job computes (their CPU cost is planned)")
	f.StringVar(&o.Verify, "verify", "dest", "read-back planned: dest, source+dest or none")
	f.StringArrayVar(&o.Limits, "limit", nil, "cap destinations: RATE (all) or DEST=RATE, e.g. 1.5GB/s")
	f.StringVar(&o.UploadRate, "upload-rate", "", "the cart's uplink, shared by the cloud destinations (rclone:REMOTE:PATH), e.g. 100MB/s or 1Gbit/s (the topology's upload_rate:); a bare number is bytes/s, below 1 MB/s refused")
	f.StringSliceVar(&o.Fit, "fit", nil, "media to count room for (default: the media of the cards)")
	f.BoolVar(&o.NoCPU, "no-cpu", false, "leave this machine's CPU out (plan for another machine)")
	f.BoolVar(&o.JSON, "json", false, "print the plan as JSON")
	f.BoolVar(&o.Simulate, "simulate", false, "plan the simulated run of dit offload --simulate (the topology's hardware on this machine)")
	f.Float64Var(&o.Scale, "simulate-scale", scaleFromEnv(), "with --simulate, plan the run at this fraction of the field rates (env DIT_SIMULATE_SCALE), e.g. 0.1")
	return cmd
}

// checkSimulateScale checks --simulate-scale (or DIT_SIMULATE_SCALE)
// against --simulate.
func checkSimulateScale(simulate bool, scale float64) error {
	if scale <= 0 || scale > 10 {
		return &exitError{code: ExitUsage, err: fmt.Errorf("invalid --simulate-scale %g: use a factor above 0, e.g. 0.1 for a tenth of the field rates", scale)}
	}
	if scale != 1 && !simulate {
		return &exitError{code: ExitUsage, err: fmt.Errorf("--simulate-scale (or DIT_SIMULATE_SCALE) needs --simulate")}
	}
	return nil
}

// writeScale says, under a plan, at what scale it runs.
func writeScale(w io.Writer, scale float64) {
	if scale != 1 {
		fmt.Fprintf(w, "Simulated:  at %g x the field rates (--simulate-scale): rates and times are those of the simulated run\n", scale)
	}
}

// planJob is a job's planning settings.
type planJob struct {
	algos  []hashing.Algo
	verify bool
	valgos []hashing.Algo
}

func (p planJob) options(cpu *plan.CPU) plan.Options {
	return plan.Options{Hashes: p.algos, Verify: p.verify, VerifyHashes: p.valgos, CPU: cpu}
}

func parsePlanJob(hashes, verify string, verifyAll bool) (planJob, error) {
	algos, err := hashing.ParseList(hashes)
	if err != nil {
		return planJob{}, fmt.Errorf("--hash: %w", err)
	}
	mode, err := offload.ParseVerifyMode(verify)
	if err != nil {
		return planJob{}, err
	}
	p := planJob{algos: algos, verify: mode != offload.VerifyNone, valgos: []hashing.Algo{hashing.Fastest(algos)}}
	if verifyAll {
		p.valgos = algos
	}
	return p, nil
}

// machineCPU is this machine's CPU for planning: cached self-benchmark in
// the catalog (measured now when missing).
func machineCPU(g *GlobalOptions, cat *catalog.Catalog, t *plan.Topology, p planJob) *plan.CPU {
	algos := append(append([]hashing.Algo{}, p.algos...), p.valgos...)
	if cat == nil {
		if c, err := g.openCatalog(); err == nil {
			defer c.Close()
			cat = c
		}
	}
	cpu, err := assembly.MachineCPU(cat, t.CPU, algos)
	if err != nil {
		fmt.Fprintln(g.stderr, "dit: warning: CPU benchmark cache:", err)
	}
	return cpu
}

func runPlan(ctx context.Context, o PlanOptions, g *GlobalOptions, args []string) error {
	usage := func(err error) error { return &exitError{code: ExitUsage, err: err} }
	if o.Topology == "" && (len(args) == 0 || len(o.Dests) == 0) {
		return usage(fmt.Errorf("give --topology FILE, or -d DEST and one or more CARD folders to discover"))
	}
	pj, err := parsePlanJob(o.Hashes, o.Verify, false)
	if err != nil {
		return usage(err)
	}
	if err := checkSimulateScale(o.Simulate, o.Scale); err != nil {
		return err
	}
	if err := checkPlanFlags(o, args); err != nil {
		return err
	}
	// The CPU benchmark cache may create the catalog file, never the
	// folders of a mistyped --db.
	if err := g.checkNewCatalog(); err != nil {
		return err
	}
	scale := 1.0
	if o.Simulate {
		scale = o.Scale
	}
	var set *plan.Topology
	if o.Topology != "" {
		if set, err = loadTopologyFlag(o.Topology); err != nil {
			return err
		}
	}
	if err := checkFit(o.Fit, set); err != nil {
		return err
	}
	// The runs the engine will give the destinations: a cloud one beside
	// a folder is uploaded in a second run, from the first copy.
	dests, then := assembly.DestRuns(o.Dests, o.Then)
	req := assembly.TopologyRequest{Topology: set, Cards: args, Dests: dests, Then: then,
		Limits: o.Limits, Sizes: true}
	if o.UploadRate != "" {
		if req.UploadRate, err = parseUploadRate(o.UploadRate); err != nil {
			return usageErr(err)
		}
	}
	if c, err := g.openCatalogExisting(); err == nil {
		defer c.Close()
		req.Measured, req.Costs = c.LatestSpeedTest, c.RecentCosts
	}
	t, notes, err := assembly.JobTopology(ctx, req)
	if err != nil {
		return usageOf(err)
	}
	var cpu *plan.CPU
	if !o.NoCPU {
		cpu = machineCPU(g, nil, t, pj)
	}
	opts := pj.options(cpu)
	opts.FitMedia = o.Fit
	opts.ThenParallel = o.ThenParallel
	// Simulating at a scale, the hardware runs at scale x its rates and
	// the hashing on this CPU as it is: the plan of that run (as dit
	// offload --simulate --simulate-scale enforces and shows it).
	res, err := plan.Plan(t.Scaled(scale), opts)
	if err != nil {
		return err
	}
	if o.JSON {
		out := struct {
			*plan.Result
			Simulated bool     `json:"simulated,omitempty"`
			Scale     float64  `json:"scale,omitempty"`
			Notes     []string `json:"notes,omitempty"`
		}{Result: res, Notes: notes}
		if o.Simulate {
			out.Simulated, out.Scale = true, scale
		}
		enc := json.NewEncoder(g.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	for _, n := range notes {
		fmt.Fprintln(g.stdout, "note:", n)
	}
	writePlan(g.stdout, t, pj, res)
	writeScale(g.stdout, scale)
	return nil
}

// minBareUplink is the least bare number --upload-rate takes (bytes/s,
// as every rate flag reads a number without a unit): below it the unit
// was surely left out.
const minBareUplink = 1e6

// parseUploadRate reads --upload-rate: a rate above zero; a number
// without a unit is bytes/s, as for --limit and --throttle, and one
// below 1 MB/s is refused (100 meant 100 MB/s or 100 Mbit/s, not 100
// B/s).
func parseUploadRate(s string) (float64, error) {
	v, err := units.ParseRate(s)
	if err != nil || v <= 0 {
		return 0, fmt.Errorf("--upload-rate %q: give a rate above zero such as 100MB/s or 1Gbit/s", s)
	}
	if _, perr := strconv.ParseFloat(strings.TrimSpace(s), 64); perr == nil && v < minBareUplink {
		return 0, fmt.Errorf("--upload-rate %q: a number without a unit is bytes per second (%s), surely not the uplink: "+
			"give the unit, e.g. %sMB/s or %sMbit/s", s, units.FormatRate(v), strings.TrimSpace(s), strings.TrimSpace(s))
	}
	return v, nil
}

func rate(v float64) string {
	if v == 0 {
		return "?"
	}
	return units.FormatRate(v)
}

func eta(s *float64) string {
	if s == nil {
		return "-"
	}
	return units.FormatDuration(time.Duration(*s * float64(time.Second)))
}

// limitWords is a LimitedBy in a DIT's words.
func limitWords(c plan.CardPlan) string {
	if c.LimitedBy == plan.LimitMedia {
		return "full speed (the card itself)"
	}
	return c.Why
}

// writePlan draws the plan as a DIT would on paper.
func writePlan(w io.Writer, t *plan.Topology, p planJob, r *plan.Result) {
	verify := "no read-back"
	if p.verify {
		verify = "read-back " + hashing.Names(p.valgos)
	}
	fmt.Fprintf(w, "Plan: %s -> %s (hashes %s, %s)\n\n", plural(len(r.Cards), "card"), plural(len(r.Destinations), "destination"),
		hashing.Names(p.algos), verify)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CARD\tMEDIUM\tBUS\tRATE\tFILES\tETA\tSAFE TO FORMAT\tLIMITED BY")
	for _, c := range r.Cards {
		medium := c.Media
		if medium == "" {
			medium = "?"
		}
		files := "?"
		if c.Files > 0 {
			files = strconv.Itoa(c.Files)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", c.Name, medium, orDash(c.Bus), rate(c.Rate), files, eta(c.ETASeconds),
			eta(c.SafeSeconds), limitWords(c))
	}
	tw.Flush()
	writeCosts(w, r)
	if len(r.Buses) > 0 || r.Uplink != nil {
		fmt.Fprintln(w)
		tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "BUS\tKIND\tLOAD\tCAPACITY\tHEADROOM\t\tON IT")
		links := r.Buses
		if r.Uplink != nil {
			// The uplink: one link the cloud destinations share.
			links = append(append([]plan.LinkLoad(nil), links...), *r.Uplink)
		}
		for _, b := range links {
			depth := len(t.Chain(b.Name)) - 1
			full := ""
			if b.Full {
				full = "FULL"
			}
			on := append(append([]string{}, b.Cards...), b.Dests...)
			fmt.Fprintf(tw, "%s%s\t%s\t%s\t%s\t%s\t%s\t%s\n", strings.Repeat("  ", max(depth, 0)), b.Name, b.Kind,
				units.FormatRate(b.Load), units.FormatRate(b.Capacity), units.FormatRate(b.Headroom), full, strings.Join(on, " "))
		}
		tw.Flush()
	}
	if len(r.Destinations) > 0 {
		fmt.Fprintln(w)
		tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "DESTINATION\tWRITES\tCAPACITY\tHEADROOM\tREAD-BACK\t")
		for _, d := range r.Destinations {
			readback := "-"
			if p.verify {
				readback = units.FormatRate(d.ReadLoad) + " of " + rate(d.ReadCapacity)
			}
			if d.Cloud {
				readback = "the cloud's checksum"
			}
			full := ""
			if d.Full {
				full = "FULL"
			}
			capacity, headroom := rate(d.Capacity), "?"
			if d.Capacity > 0 {
				headroom = units.FormatRate(d.Headroom)
			}
			if d.SharesUplink {
				// The uplink's, shared: said once, on its row.
				capacity, headroom = "uplink", "uplink"
			}
			name := d.Name
			if d.Run == 2 {
				name += " (2nd run)"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", name, units.FormatRate(d.Load), capacity, headroom, readback, full)
		}
		tw.Flush()
	}
	fmt.Fprintln(w)
	if r.CPU != nil {
		fmt.Fprintf(w, "CPU:        %.1f of %g cores hashing", r.CPU.CoresUsed, r.CPU.Cores)
		if r.CPU.PerStream > 0 {
			fmt.Fprintf(w, "; one card hashes at most %s (%s)", rate(r.CPU.PerStream), r.CPU.PerStreamWhy)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "Total:      %s = %s", units.FormatRate(r.Total), units.FormatTBPerHour(r.TBPerHour))
	if r.ETASeconds != nil {
		fmt.Fprintf(w, "; every card copied in %s", eta(r.ETASeconds))
	}
	fmt.Fprintln(w)
	if r.SafeSeconds != nil && r.Cascade == nil {
		fmt.Fprintf(w, "Safe:       every card safe to format in %s (copied, read back, sealed)\n", eta(r.SafeSeconds))
	}
	fmt.Fprintf(w, "Bottleneck: %s\n", r.Bottleneck)
	writeCascade(w, r)
	writeUploads(w, r.Uploads)
	writeFits(w, r.Fits)
}

// writeCosts says what the cards pay beyond their bytes, when the plan
// counts it (their file counts are known): per file copied and read
// back, and per card (its start, and its sealing after the last byte).
func writeCosts(w io.Writer, r *plan.Result) {
	for _, c := range r.Cards {
		if c.Files == 0 {
			continue
		}
		fmt.Fprintf(w, "Costs:      %.1f ms a file copied", c.PerFileSeconds*1000)
		if c.VerifyPerFileSeconds > 0 {
			fmt.Fprintf(w, ", %.1f ms a file read back", c.VerifyPerFileSeconds*1000)
		}
		fmt.Fprintf(w, ", %.2f s a card (its start, and its sealing after the last byte)\n", c.FixedSeconds)
		return
	}
}

// writeUploads says when each cloud destination's uploads finish.
func writeUploads(w io.Writer, ups []plan.Upload) {
	for _, u := range ups {
		if u.UplinkUnknown {
			fmt.Fprintf(w, "Upload:     to %s: the uplink is unknown: give --upload-rate (or upload_rate: in the topology) for when it finishes\n", u.Destination)
			continue
		}
		if u.FinishSeconds == nil {
			fmt.Fprintf(w, "Upload:     to %s: finish time unknown (a card's size is unknown)", u.Destination)
		} else {
			fmt.Fprintf(w, "Upload:     to %s finishes in %s", u.Destination, eta(u.FinishSeconds))
		}
		if u.Rate > 0 {
			fmt.Fprintf(w, " (uplink %s)", rate(u.Rate))
		}
		fmt.Fprintln(w)
	}
}

// writeCascade draws a cascade's two runs: when each card is free and safe
// to format, and the first copy's load while both runs go.
func writeCascade(w io.Writer, r *plan.Result) {
	c := r.Cascade
	if c == nil {
		return
	}
	fmt.Fprintf(w, "\nCascade: first copy on %s, then %s (%s at once)\n", c.FirstCopy, strings.Join(c.Then, ", "), plural(c.Parallel, "card"))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CARD\tCARD FREE\tSAFE TO FORMAT\t2ND RUN RATE\t2ND RUN LIMITED BY")
	for _, k := range r.Cards {
		lim := "-"
		if k.SecondLimitedBy != "" {
			lim = plan.LimitWords(k.SecondLimitedBy)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", k.Name, eta(k.FreeSeconds), eta(k.SafeSeconds), rate(k.SecondRate), lim)
	}
	tw.Flush()
	if c.OverlapWrite > 0 || c.OverlapRead > 0 {
		fmt.Fprintf(w, "First copy: while both runs go, %s writes %s of %s and reads %s of %s\n", c.FirstCopy,
			rate(c.OverlapWrite), rate(c.WriteCapacity), rate(c.OverlapRead), rate(c.ReadCapacity))
	}
	if c.LastSafeSeconds != nil {
		fmt.Fprintf(w, "Cascade:    every card free in %s, safe to format in %s\n", eta(c.LastFreeSeconds), eta(c.LastSafeSeconds))
	}
	fmt.Fprintf(w, "Bottleneck: %s\n", c.Bottleneck)
}

// writeFits says how many more cards would still fit, a line per medium
// when none fits anywhere for one reason.
func writeFits(w io.Writer, fits []plan.Fit) {
	for i := 0; i < len(fits); {
		j := i
		for j < len(fits) && fits[j].Media == fits[i].Media {
			j++
		}
		same := true
		for _, f := range fits[i:j] {
			same = same && f.More == 0 && f.StoppedBy == fits[i].StoppedBy
		}
		if same && j-i > 1 {
			fmt.Fprintf(w, "Room:       no more %s at full speed on any bus (%s is full)\n", fits[i].Media, plan.LimitWords(fits[i].StoppedBy))
			i = j
			continue
		}
		for _, f := range fits[i:j] {
			where := "on bus " + f.Bus
			if f.Bus == "" {
				where = "each on a reader of its own"
			}
			more := strconv.Itoa(f.More)
			if f.AtLeast {
				more = "at least " + more
			}
			stop := ""
			if f.StoppedBy != "" {
				stop = " (then " + plan.LimitWords(f.StoppedBy) + " is full)"
			}
			fmt.Fprintf(w, "Room:       %s more %s at full speed %s%s\n", more, f.Media, where, stop)
		}
		i = j
	}
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// schedulerFlags are the planning flags of dit offload.
type schedulerFlags struct {
	Topology    string
	Simulate    bool
	Scale       float64
	Limits      []string
	PhysicsOnly bool
}

// scaleFromEnv is the default --simulate-scale: DIT_SIMULATE_SCALE or 1.
func scaleFromEnv() float64 {
	if v, err := strconv.ParseFloat(os.Getenv("DIT_SIMULATE_SCALE"), 64); err == nil && v > 0 {
		return v
	}
	return 1
}

// checkSchedFlags refuses a --simulate-scale that does not fit (usage).
func checkSchedFlags(f schedulerFlags) error {
	if f.Topology == "" && !f.Simulate && len(f.Limits) == 0 {
		if f.Scale != 1 {
			return &exitError{code: ExitUsage, err: fmt.Errorf("--simulate-scale needs --simulate")}
		}
		return nil
	}
	return checkSimulateScale(f.Simulate, f.Scale)
}

// writePlanSummary lists the plan and its re-plans after a job. Plans are
// recorded in field units with their scale; a simulated one is shown at
// its scale, the rates that ran (as the plan shown at the start).
func writePlanSummary(w io.Writer, plans []catalog.Plan) {
	if len(plans) == 0 {
		return
	}
	fmt.Fprintln(w, "\nPlans (bus budget):")
	for _, p := range plans {
		scale := 1.0
		if p.Simulated && p.Scale > 0 {
			scale = p.Scale
		}
		var parts []string
		for _, c := range p.Cards {
			parts = append(parts, fmt.Sprintf("%s %s (%s)", c.Name, rate(c.Rate*scale), c.LimitedBy))
		}
		sim := ""
		if p.Simulated {
			sim = fmt.Sprintf(", simulated at %g x the field rates", scale)
		}
		fmt.Fprintf(w, "  #%d %s, %s%s: %s\n", p.Seq, p.T.Local().Format("15:04:05"), p.Reason, sim, strings.Join(parts, ", "))
	}
}

// AddFlags registers the planning flags of dit offload.
func (f *schedulerFlags) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&f.Topology, "topology", "", "enforce the bus-budget plan of this topology `file` (see dit plan)")
	fs.BoolVar(&f.Simulate, "simulate", false, "throttle each card to its medium and each bus to its usable rate (the field's hardware on any machine)")
	fs.Float64Var(&f.Scale, "simulate-scale", scaleFromEnv(), "with --simulate, run at this fraction of the field rates (env DIT_SIMULATE_SCALE), e.g. 0.1")
	fs.StringArrayVar(&f.Limits, "limit", nil, "cap destinations to keep headroom: RATE (all) or DEST=RATE, e.g. 0.9GB/s")
	fs.BoolVar(&f.PhysicsOnly, "simulate-physics-only", false, "with --simulate, throttle the hardware but do not enforce the plan's shares (planner accuracy)")
	fs.MarkHidden("simulate-physics-only")
}

// offloadSchedule is the bus budget of dit offload's flags: none unless
// a topology, a simulation or a limit is asked for.
func offloadSchedule(f schedulerFlags) (assembly.Schedule, error) {
	var none assembly.Schedule
	if err := checkSchedFlags(f); err != nil {
		return none, err
	}
	s := assembly.Schedule{Limits: f.Limits, Simulate: f.Simulate, Scale: f.Scale, PhysicsOnly: f.PhysicsOnly}
	switch {
	case f.Topology != "":
		t, err := loadTopologyFlag(f.Topology)
		if err != nil {
			return none, err
		}
		s.Topology = t
	case f.Simulate || len(f.Limits) > 0:
		s.Discover = true
	}
	return s, nil
}

// loadTopologyFlag reads the topology file of --topology; one that is
// not there or not a topology is a usage error naming the flag and the
// file.
func loadTopologyFlag(file string) (*plan.Topology, error) {
	if fi, err := os.Stat(file); err != nil || fi.IsDir() {
		return nil, usagef("--topology %s: no such file: give the topology file (YAML) that describes the set's buses, cards and destinations (see dit plan --help)", file)
	}
	t, err := plan.LoadTopology(file)
	if err != nil {
		return nil, usagef("--topology %s: %w", file, err)
	}
	return t, nil
}

// checkPlanFlags checks dit plan's values before anything is planned or
// the catalog opened: the cascade's parallelism, and, without a
// topology, that each card and destination to discover is a folder
// there (a cloud destination is not discovered).
func checkPlanFlags(o PlanOptions, args []string) error {
	if o.ThenParallel < 1 {
		return usagef("--then-parallel %d: give 1 or more cards at once", o.ThenParallel)
	}
	if o.Topology != "" {
		return nil
	}
	for _, c := range args {
		if err := checkFolderArg("card", c, "give the folder of a mounted card, or describe the card in a --topology file"); err != nil {
			return err
		}
	}
	for _, d := range append(append([]string(nil), o.Dests...), o.Then...) {
		if assembly.IsRemoteDest(d) {
			continue
		}
		if err := checkFolderArg("destination", d, "give a mounted destination folder, or describe it in a --topology file"); err != nil {
			return err
		}
	}
	return nil
}

// checkFit refuses a --fit medium that neither dit nor the topology
// describes.
func checkFit(fit []string, t *plan.Topology) error {
	profiles := plan.DefaultProfiles()
	if t != nil && t.Profiles != nil {
		profiles = t.Profiles
	}
	for _, m := range fit {
		if _, ok := profiles.Media[m]; !ok {
			return usagef("--fit %s: no such medium: give one of %s (or describe it under media: in the topology)", m, strings.Join(profiles.MediaNames(), ", "))
		}
	}
	return nil
}

// pluralWord is n and the word for one or for many ("1 copy", "2 copies").
func pluralWord(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
