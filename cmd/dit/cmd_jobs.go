package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sync/errgroup"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/units"
	"github.com/dit-org/dit/internal/verdict"
)

// JobsOptions are the flags of dit jobs.
type JobsOptions struct {
	JSON bool
	// AllStations lists the jobs of every station of a shared catalog;
	// without it, this station's (--station) and those recorded before
	// stations existed.
	AllStations bool
}

func newJobsCommand(g *GlobalOptions) *cobra.Command {
	var o JobsOptions
	cmd := &cobra.Command{
		Use:   "jobs",
		Short: "List offload jobs, newest first, with each card's safe-to-format state",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runJobs(o, g)
		},
	}
	cmd.Flags().BoolVar(&o.JSON, "json", false, "print a JSON array")
	cmd.Flags().BoolVar(&o.AllStations, "all-stations", false, "list every station's jobs (a shared catalog), not only this station's (--station)")
	return cmd
}

type jobListEntry struct {
	JobID    int64     `json:"job_id"`
	Name     string    `json:"name"`
	Station  string    `json:"station"`
	State    string    `json:"state"`
	Started  time.Time `json:"started"`
	Finished time.Time `json:"finished,omitzero"`
	Bytes    int64     `json:"bytes"`
	// BytesCopied and TBPerHour: the job model's (offload.JobFigures).
	BytesCopied int64   `json:"bytes_copied"`
	TBPerHour   float64 `json:"tb_per_hour"`
	MHL         string  `json:"mhl"` // hash lists: asc, v1, both or none
	// Cards are the job's cards in the engine's one shape
	// (offload.CardSummary), as dit job show --json and dit day --json
	// give them.
	Cards []offload.CardSummary `json:"cards"`
	// Next is what to do with a job that did not end well (resume it,
	// finish its hash lists or reports, retry failed files); "" if nothing.
	Next string `json:"next,omitempty"`
}

// loadSummaries reads the jobs' summaries, a few at once: each is a
// dozen small queries, and on a shared PostgreSQL catalog their round
// trips, not dit's CPU, are the time. In the jobs' order; the first
// error wins.
func loadSummaries(cat *catalog.Catalog, jobs []*catalog.Job) ([]*offload.Summary, error) {
	sums := make([]*offload.Summary, len(jobs))
	var g errgroup.Group
	g.SetLimit(4)
	for i, j := range jobs {
		g.Go(func() error {
			s, err := offload.LoadSummary(cat, j.ID)
			sums[i] = s
			return err
		})
	}
	return sums, g.Wait()
}

func runJobs(o JobsOptions, g *GlobalOptions) error {
	cat, err := g.openCatalogExisting()
	if err != nil {
		return err
	}
	defer cat.Close()
	jobs, err := cat.Jobs()
	if err != nil {
		return err
	}
	list := []jobListEntry{}
	others := 0
	var shown []*catalog.Job
	for _, j := range jobs {
		if !o.AllStations && j.Station != "" && j.Station != cat.Station() {
			others++
			continue
		}
		shown = append(shown, j)
	}
	sums, err := loadSummaries(cat, shown)
	if err != nil {
		return err
	}
	for i, j := range shown {
		s := sums[i]
		e := jobListEntry{JobID: s.JobID, Name: s.Name, Station: j.Station, State: string(s.Status), Started: s.Started, Finished: s.Finished,
			Bytes: s.Bytes, BytesCopied: s.BytesCopied, TBPerHour: s.TBPerHour, MHL: jobMHL(j), Cards: s.Cards}
		if e.Cards == nil {
			e.Cards = []offload.CardSummary{}
		}
		if s.Status.Ended() {
			e.Next = nextStep(g, s.JobID, s.State, s.Cards)
		}
		list = append(list, e)
	}
	if o.JSON {
		enc := json.NewEncoder(g.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(list)
	}
	if len(list) == 0 {
		fmt.Fprintf(g.stdout, "no jobs in %s\n", cat.Path())
		if others > 0 {
			fmt.Fprintf(g.stdout, "(%s of other stations than %s: dit jobs --all-stations)\n", plural(others, "job"), cat.Station())
		}
		return nil
	}
	rows := [][]string{{"JOB", "NAME", "STATE", "STARTED", "SIZE", "TB/HOUR", "MHL", "CARDS"}}
	for _, e := range list {
		var cards []string
		for _, c := range e.Cards {
			v := jobsCardText(c)
			cards = append(cards, fmt.Sprintf("%s: %s", c.Label, v))
		}
		rows = append(rows, []string{strconv.FormatInt(e.JobID, 10), e.Name, e.State, e.Started.Local().Format("2006-01-02 15:04:05"),
			units.FormatBytes(e.Bytes), strings.TrimSuffix(tbhOf(e.BytesCopied, e.TBPerHour), " TB/hour"), e.MHL, strings.Join(cards, ", ")})
	}
	if o.AllStations {
		rows[0] = append([]string{"STATION"}, rows[0]...)
		for i, e := range list {
			rows[i+1] = append([]string{e.Station}, rows[i+1]...)
		}
	}
	if err := writeTable(g.stdout, rows); err != nil {
		return err
	}
	for _, e := range list {
		if e.Next != "" {
			fmt.Fprintf(g.stdout, "job %d (%s): %s\n", e.JobID, e.State, e.Next)
		}
	}
	if others > 0 {
		fmt.Fprintf(g.stdout, "(and %s of other stations than %s: dit jobs --all-stations)\n", plural(others, "job"), cat.Station())
	}
	return nil
}

// jobMHL is the hash lists a job writes (dit offload --mhl); a job
// recorded without one ran with the default.
func jobMHL(j *catalog.Job) string {
	if j.MHL == "" {
		return offload.DefaultMHL
	}
	return j.MHL
}

// jobsCardText is a card's verdict in the dit jobs table: safe to format
// (a cascade's card with the times it was free and safe), or the job
// model's verdict (the words of dit job show, the report and the JSON)
// up to "NOT safe": why, not what to do (the job's Next line says it).
func jobsCardText(c offload.CardSummary) string {
	switch {
	case c.Status == verdict.Safe && c.CardFree:
		return fmt.Sprintf("free %s, safe to format %s", clock(c.FreeAt), clock(c.SafeAt))
	case c.Status == verdict.Safe:
		return "safe to format"
	case c.Verdict == "":
		return string(c.Status) + ": NOT safe"
	}
	const notSafe = ": NOT safe to format"
	why, rest, ok := strings.Cut(c.Verdict, notSafe)
	if !ok {
		return c.Verdict
	}
	if strings.HasPrefix(rest, " yet") {
		return why + ": NOT safe yet"
	}
	return why + ": NOT safe"
}
