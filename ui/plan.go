package ui

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/dit-org/dit/internal/assembly"
	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/devices"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/plan"
	"github.com/dit-org/dit/internal/units"
)

// planInput is what a plan is made from, copied on the UI goroutine.
type planInput struct {
	cards    []cardItem
	dests    []destItem
	preset   *plan.Topology
	algos    []hashing.Algo
	verify   bool
	valgos   []hashing.Algo
	discover func(ctx context.Context) ([]devices.Volume, error)
	cat      *catalog.Catalog
	noCPU    bool // tests: plan without this machine's CPU benchmark
	// A cascade: the dests with Then set are its second run (after the
	// first run's, in the engine's order); thenParallel cards at once.
	thenParallel int
}

// planOutput is a plan ready to show: the job's topology (what a
// scheduler enforces and a preset saves), the planner's result, and the
// warnings and notes in words.
type planOutput struct {
	topo     *plan.Topology
	res      *plan.Result
	source   string
	warnings []string
	notes    []string
	err      string
}

func (in planInput) options(cpu *plan.CPU) plan.Options {
	return plan.Options{Hashes: in.algos, Verify: in.verify, VerifyHashes: in.valgos, CPU: cpu, ThenParallel: max(in.thenParallel, 1)}
}

// computePlan builds the job's topology (from the preset, else from the
// volumes the machine reports) and plans it. It does I/O: call it off the
// UI goroutine.
func computePlan(ctx context.Context, in planInput) planOutput {
	var out planOutput
	var cards, dests []string
	for _, c := range in.cards {
		cards = append(cards, c.Path)
	}
	for _, d := range in.dests {
		dests = append(dests, d.Path)
	}
	var err error
	if in.preset != nil {
		out.source = "from the preset " + filepath.Base(in.preset.File)
		out.topo, _, err = assembly.JobTopology(ctx, assembly.TopologyRequest{Topology: in.preset, Cards: cards, Dests: dests})
	} else {
		out.source = "from the volumes this machine reports"
		var vols []devices.Volume
		vols, err = in.discover(ctx)
		if err == nil {
			out.topo, out.notes, err = devices.Topology(vols, cards, dests)
		}
	}
	if err != nil {
		out.err = err.Error()
		return out
	}
	if in.cat != nil {
		out.notes = assembly.WithMeasured(out.notes, out.topo, in.cat.LatestSpeedTest)
	}
	// A cascade's second-run destinations (as dit offload --then).
	for i := range out.topo.Destinations {
		if i < len(in.dests) && in.dests[i].Then {
			out.topo.Destinations[i].Run = 2
		}
	}
	for i := range out.topo.Sources {
		if i < len(in.cards) && in.cards[i].Bytes > 0 {
			out.topo.Sources[i].Size = in.cards[i].Bytes
		}
	}
	var cpu *plan.CPU
	if !in.noCPU {
		algos := append(append([]hashing.Algo{}, in.algos...), in.valgos...)
		if cpu, err = assembly.MachineCPU(in.cat, out.topo.CPU, algos); err != nil {
			out.notes = append(out.notes, "CPU benchmark cache: "+err.Error())
		}
	}
	o := in.options(cpu)
	o.NoFits = true
	out.res, err = plan.Plan(out.topo, o)
	if err != nil {
		out.err = err.Error()
		return out
	}
	out.warnings = planWarnings(out.topo, out.res, in.cards, in.dests)
	return out
}

// planWarnings says what a DIT should fix before starting: a reader on a
// port slower than the card, cards that do not fit a destination, a
// degraded array.
func planWarnings(t *plan.Topology, res *plan.Result, cards []cardItem, dests []destItem) []string {
	var w []string
	for i, s := range t.Sources {
		b := t.BusByName(s.Bus)
		if b == nil {
			continue
		}
		k := t.BusKind(b)
		media := t.MediaRate(i)
		if k.Device > 0 && media > k.Device {
			title := k.Title
			if title == "" {
				title = b.Kind
			}
			w = append(w, fmt.Sprintf("%s (%s, %s) is in a reader on a %s port (%s): it reads at most %s there. Move the reader to a faster port.",
				s.Name, s.Media, units.FormatRate(media), title, b.Name, units.FormatRate(k.Device)))
		}
	}
	var need int64
	for _, c := range cards {
		need += c.Bytes
	}
	for _, d := range dests {
		if d.Array != nil && len(d.Array.missing()) > 0 {
			w = append(w, fmt.Sprintf("%s: the array is %s: check \"Allow a degraded array\" to write to it anyway, or bring the blade back.",
				d.Path, d.Array.health()))
		}
		if d.Free < 0 {
			continue
		}
		var sum int64
		for _, c := range cards {
			sum += c.Bytes
			if sum > d.Free {
				w = append(w, fmt.Sprintf("%s does not fit on %s: the cards need %s, %s is free.",
					c.Label, d.Path, units.FormatBytes(need), units.FormatBytes(d.Free)))
				break
			}
		}
	}
	return w
}

// limitText says in words what limits a card.
func limitText(c plan.CardPlan) string {
	switch {
	case c.LimitedBy == plan.LimitMedia:
		return "full speed of its medium"
	case c.LimitedBy == plan.LimitCPU:
		return "limited by hashing (CPU)"
	case c.LimitedBy == plan.LimitUnknown:
		return "no rate known on its path"
	case strings.HasPrefix(c.LimitedBy, "bus:"):
		return "limited by bus " + strings.TrimPrefix(c.LimitedBy, "bus:")
	case strings.HasPrefix(c.LimitedBy, "dest:"):
		return "limited by destination " + strings.TrimPrefix(c.LimitedBy, "dest:")
	}
	return c.LimitedBy
}

// loadBar is a bar of load against capacity.
func loadBar(load, capacity float64, what string) fyne.CanvasObject {
	if capacity <= 0 {
		return widget.NewLabel(fmt.Sprintf("%s %s (capacity unknown)", rateText(load), what))
	}
	b := widget.NewProgressBar()
	b.Max = capacity
	b.Value = min(load, capacity)
	b.TextFormatter = func() string {
		return fmt.Sprintf("%s of %s %s (%s)", units.FormatRate(load), units.FormatRate(capacity), what, pct(int64(load*1000), int64(capacity*1000)))
	}
	return b
}

// planPanel renders a plan: the totals and the bottleneck in words, each
// card's predicted rate and ETA, a bar per bus and destination, the CPU,
// warnings and notes.
func planPanel(out planOutput, sim string) fyne.CanvasObject {
	box := container.NewVBox()
	head := widget.NewLabelWithStyle("Plan "+out.source, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	box.Add(head)
	if out.err != "" {
		l := widget.NewLabel("No plan: " + out.err)
		l.Wrapping = fyne.TextWrapWord
		l.Importance = widget.DangerImportance
		box.Add(l)
		return box
	}
	r := out.res
	total := fmt.Sprintf("%s together, %s", units.FormatRate(r.Total), units.FormatTBPerHour(r.TBPerHour))
	if r.ETASeconds != nil {
		total += ", every card copied in " + etaText(*r.ETASeconds)
	}
	big := widget.NewLabelWithStyle(total, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	big.Wrapping = fyne.TextWrapWord
	box.Add(big)
	bn := widget.NewLabel("Bottleneck: " + r.Bottleneck)
	bn.Wrapping = fyne.TextWrapWord
	box.Add(bn)
	if sim != "" {
		box.Add(widget.NewLabel(sim))
	}

	box.Add(widget.NewLabelWithStyle("Cards", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}))
	grid := container.New(newRowsLayout(4))
	for _, c := range r.Cards {
		eta := "-"
		if c.ETASeconds != nil {
			eta = "ETA " + etaText(*c.ETASeconds)
		}
		grid.Add(widget.NewLabelWithStyle(c.Name, fyne.TextAlignLeading, fyne.TextStyle{Bold: true}))
		grid.Add(widget.NewLabel(rateText(c.Rate)))
		grid.Add(widget.NewLabel(eta))
		why := widget.NewLabel(limitText(c))
		why.Truncation = fyne.TextTruncateEllipsis
		grid.Add(why)
	}
	box.Add(grid)

	if c := r.Cascade; c != nil {
		box.Add(widget.NewLabelWithStyle("Cascade", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}))
		txt := fmt.Sprintf("First copy on %s, then %s (second run: %s at once).", c.FirstCopy, strings.Join(c.Then, ", "), plural(c.Parallel, "card"))
		if c.LastFreeSeconds != nil && c.LastSafeSeconds != nil {
			txt += fmt.Sprintf("\nEvery card free in %s, safe to format in %s.", etaText(*c.LastFreeSeconds), etaText(*c.LastSafeSeconds))
		}
		for _, cp := range r.Cards {
			if cp.FreeSeconds != nil && cp.SafeSeconds != nil {
				txt += fmt.Sprintf("\n%s: free in %s, safe to format in %s", cp.Name, etaText(*cp.FreeSeconds), etaText(*cp.SafeSeconds))
			}
		}
		if c.Bottleneck != "" {
			txt += "\nBottleneck: " + c.Bottleneck
		}
		l := widget.NewLabel(txt)
		l.Wrapping = fyne.TextWrapWord
		box.Add(l)
	}
	if len(r.Buses) > 0 {
		box.Add(widget.NewLabelWithStyle("Buses", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}))
		for _, b := range r.Buses {
			name := b.Name
			if k := out.topo.BusByName(b.Name); k != nil {
				if t := out.topo.BusKind(k).Title; t != "" {
					name += " - " + t
				}
			}
			if b.Full {
				name += " (full)"
			}
			box.Add(container.NewBorder(nil, nil, nil, nil,
				container.NewVBox(widget.NewLabel(name), loadBar(b.Load, b.Capacity, "busiest direction"))))
		}
	}
	addUplink(box, r)
	box.Add(widget.NewLabelWithStyle("Destinations", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}))
	for _, d := range r.Destinations {
		name := d.Name
		if d.Amplification > 1 {
			name += fmt.Sprintf(" (parity: x%.2f written)", d.Amplification)
		}
		if d.Full {
			name += " (full)"
		}
		if d.SharesUplink && r.Uplink != nil {
			// Its capacity is the uplink's, drawn once above: a bar per
			// cloud destination would count that room once for each.
			l := widget.NewLabel(uplinkDestText(name, d))
			l.Wrapping = fyne.TextWrapWord
			box.Add(l)
			continue
		}
		box.Add(widget.NewLabel(name))
		box.Add(loadBar(d.Load, d.Capacity, "written"))
		if d.ReadCapacity > 0 {
			box.Add(loadBar(d.ReadLoad, d.ReadCapacity, "read back"))
		}
	}
	if r.CPU != nil && r.CPU.Cores > 0 {
		box.Add(widget.NewLabelWithStyle("CPU (hashing)", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}))
		b := widget.NewProgressBar()
		b.Max, b.Value = r.CPU.Cores, min(r.CPU.CoresUsed, r.CPU.Cores)
		cores := r.CPU
		b.TextFormatter = func() string { return fmt.Sprintf("%.1f of %.0f cores", cores.CoresUsed, cores.Cores) }
		box.Add(b)
	}
	addList(box, "Warnings", out.warnings, widget.WarningImportance)
	addList(box, "Notes", out.notes, widget.MediumImportance)
	return box
}

func addList(box *fyne.Container, title string, items []string, imp widget.Importance) {
	if len(items) == 0 {
		return
	}
	box.Add(widget.NewLabelWithStyle(title, fyne.TextAlignLeading, fyne.TextStyle{Bold: true}))
	for _, s := range items {
		l := widget.NewLabel(s)
		l.Wrapping = fyne.TextWrapWord
		l.Importance = imp
		box.Add(l)
	}
}

// simText describes a simulation's speed.
func simText(scale float64) string {
	if scale <= 0 || scale == 1 {
		return "Simulated: the plan's hardware is played at field rates."
	}
	return fmt.Sprintf("Simulated: the plan's hardware is played at 1/%.0f of field rates (the plan stays in field units).", 1/scale)
}

// addUplink draws the cart's uplink (upload_rate), the one link every
// cloud destination shares: a bar of the first run's uploads, or, when
// only a cascade's second run uploads, its rate and where its time is
// told (the Cascade lines).
func addUplink(box *fyne.Container, r *plan.Result) {
	u := r.Uplink
	if u == nil {
		return
	}
	name := "Uplink, shared by every cloud destination"
	if u.Full {
		name += " (full)"
	}
	if u.Load <= 0 && r.Cascade != nil {
		l := widget.NewLabel(name + ": " + rateText(u.Capacity) + ", used by the second run (see Cascade)")
		l.Wrapping = fyne.TextWrapWord
		box.Add(l)
		return
	}
	box.Add(widget.NewLabel(name))
	box.Add(loadBar(u.Load, u.Capacity, "uploaded"))
}

// uplinkDestText is a cloud destination's line under a shared uplink.
func uplinkDestText(name string, d plan.DestLoad) string {
	if d.Run == 2 {
		return name + " (second run): through the uplink"
	}
	return name + ": " + rateText(d.Load) + " through the uplink"
}
