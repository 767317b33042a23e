package main

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/plan"
	"github.com/dit-org/dit/internal/units"
)

// planVsRun is one time of a job or card as planned and as it ran, in
// seconds from the job's start (its first card's copy start), and the
// ratio ran / planned (nil when either is unknown).
type planVsRun struct {
	Planned *float64 `json:"planned_s"`
	Ran     *float64 `json:"ran_s"`
	Ratio   *float64 `json:"ratio"`
}

// planRunCard is a card's times, planned and as they ran: copied (its
// first run's last byte), card free (a cascade: its first run sealed),
// safe to format (its last run sealed).
type planRunCard struct {
	Card   string     `json:"card"`
	Copied planVsRun  `json:"copied"`
	Free   *planVsRun `json:"card_free,omitempty"`
	Safe   planVsRun  `json:"safe_to_format"`
}

// planRun is a job's plan against what it did: the plan at its start
// (a simulated job's in the units of the run), each card's times and the
// job's (its last card's).
type planRun struct {
	Planned time.Time     `json:"planned_at"`
	Started time.Time     `json:"started_at"`
	Scale   float64       `json:"scale,omitempty"`
	Resumed bool          `json:"resumed,omitempty"`
	Cards   []planRunCard `json:"cards"`
	Copied  planVsRun     `json:"copied"`
	Safe    planVsRun     `json:"safe_to_format"`
}

// loadPlanRun sets the job's first plan against what it did; nil when
// no plan was recorded (a job run without a bus budget: no --topology,
// --simulate or --limit) or the plan cannot be read.
func loadPlanRun(cat *catalog.Catalog, jobID int64) (*planRun, error) {
	plans, err := cat.Plans(jobID)
	if err != nil || len(plans) == 0 {
		return nil, err
	}
	p := plans[0]
	var res plan.Result
	detail, scale := p.RunDetail, 1.0
	if detail == "" {
		detail = p.Detail
		if p.Simulated && p.Scale > 0 && p.Scale != 1 {
			scale = p.Scale // recorded before run_detail: the field plan, its times 1/scale
		}
	}
	if json.Unmarshal([]byte(detail), &res) != nil {
		return nil, nil
	}
	ks, err := cat.Cards(jobID)
	if err != nil {
		return nil, err
	}
	runs, err := cat.Runs(jobID)
	if err != nil {
		return nil, err
	}
	pr := &planRun{Planned: p.T, Resumed: len(runs) > 1}
	if p.Simulated && p.Scale != 1 {
		pr.Scale = p.Scale
	}
	second := map[int64]*catalog.Card{}
	var first []*catalog.Card
	for _, k := range ks {
		if k.Hop == 2 {
			second[k.FromCard] = k
		} else {
			first = append(first, k)
		}
	}
	for _, k := range first {
		if !k.CopyStarted.IsZero() && (pr.Started.IsZero() || k.CopyStarted.Before(pr.Started)) {
			pr.Started = k.CopyStarted
		}
	}
	if pr.Started.IsZero() {
		return nil, nil
	}
	at := func(t time.Time) *float64 {
		if t.IsZero() {
			return nil
		}
		v := t.Sub(pr.Started).Seconds()
		return &v
	}
	planned := func(s *float64) *float64 {
		if s == nil {
			return nil
		}
		v := *s / scale
		return &v
	}
	var lastCopy, lastSafe time.Time
	allSafe := true
	for _, k := range first {
		c := res.Card(k.Label)
		if c == nil {
			continue
		}
		pc := planRunCard{Card: k.Label, Copied: compare(planned(c.ETASeconds), at(k.CopyFinished))}
		safeAt := doneAt(k)
		if h2 := second[k.ID]; h2 != nil || res.Cascade != nil {
			free := compare(planned(c.FreeSeconds), at(safeAt))
			pc.Free = &free
			safeAt = time.Time{}
			if h2 != nil {
				safeAt = doneAt(h2)
			}
		}
		pc.Safe = compare(planned(c.SafeSeconds), at(safeAt))
		pr.Cards = append(pr.Cards, pc)
		if k.CopyFinished.After(lastCopy) {
			lastCopy = k.CopyFinished
		}
		if safeAt.IsZero() {
			allSafe = false
		} else if safeAt.After(lastSafe) {
			lastSafe = safeAt
		}
	}
	pr.Copied = compare(planned(res.ETASeconds), at(lastCopy))
	if !allSafe {
		lastSafe = time.Time{}
	}
	pr.Safe = compare(planned(res.SafeSeconds), at(lastSafe))
	return pr, nil
}

// doneAt is when card k reached safe to format (for a hop-1 card of a
// cascade: card free): the catalog's done_at, set only then; zero when
// it did not.
func doneAt(k *catalog.Card) time.Time { return k.DoneAt }

func compare(planned, ran *float64) planVsRun {
	pv := planVsRun{Planned: planned, Ran: ran}
	if planned != nil && ran != nil && *planned > 0 {
		r := *ran / *planned
		pv.Ratio = &r
	}
	return pv
}

// writePlanRun draws the plan against the run: per card and for the
// job, each time planned, as it ran, and their ratio.
func writePlanRun(w io.Writer, pr *planRun) {
	if pr == nil {
		return
	}
	fmt.Fprintf(w, "\nPlan against run (seconds from the first copy start at %s; ratio: ran / planned", pr.Started.Local().Format("15:04:05"))
	if pr.Scale != 0 {
		fmt.Fprintf(w, "; simulated at %g x the field rates, the plan in the run's units", pr.Scale)
	}
	fmt.Fprintln(w, "):")
	if pr.Resumed {
		fmt.Fprintln(w, "  the job was resumed: its times span its runs and the pauses between them")
	}
	cascade := false
	for _, c := range pr.Cards {
		cascade = cascade || c.Free != nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	head := "  CARD\tCOPIED: PLAN\tRAN\tRATIO"
	if cascade {
		head += "\tCARD FREE: PLAN\tRAN\tRATIO"
	}
	fmt.Fprintln(tw, head+"\tSAFE TO FORMAT: PLAN\tRAN\tRATIO")
	row := func(name string, cp planVsRun, free *planVsRun, safe planVsRun) {
		line := "  " + name + "\t" + cells(cp)
		if cascade {
			f := planVsRun{}
			if free != nil {
				f = *free
			}
			line += "\t" + cells(f)
		}
		fmt.Fprintln(tw, line+"\t"+cells(safe))
	}
	for _, c := range pr.Cards {
		row(c.Card, c.Copied, c.Free, c.Safe)
	}
	row("job", pr.Copied, nil, pr.Safe)
	tw.Flush()
}

// cells are a time's planned, ran and ratio columns.
func cells(pv planVsRun) string {
	ratio := "-"
	if pv.Ratio != nil {
		ratio = fmt.Sprintf("%.2f", *pv.Ratio)
	}
	return secs(pv.Planned) + "\t" + secs(pv.Ran) + "\t" + ratio
}

// secs is a time in seconds as people read it: "12.3 s" under a minute,
// "4m05s" above.
func secs(s *float64) string {
	switch {
	case s == nil:
		return "-"
	case *s < 60:
		return fmt.Sprintf("%.1f s", *s)
	}
	return units.FormatDuration(time.Duration(*s * float64(time.Second)))
}
