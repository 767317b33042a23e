package main

import (
	"encoding/json"
	"fmt"
	"sort"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/units"
)

// dayReport is dit day's answer for one date, from the catalog: the jobs
// started that day (local time) on every station.
type dayReport struct {
	Date string `json:"date"`
	// Bytes is the footage shot: the bytes of every card offloaded that
	// day, each card once (offloaded again in a later job, to another
	// destination or on another station, it is the same footage; a
	// cascade's second run is too). TB is Bytes / 10^12.
	Bytes        int64        `json:"bytes"`
	TB           float64      `json:"tb"`
	Stations     []dayStation `json:"stations"`
	SafeToFormat []dayCard    `json:"safe_to_format"`
	NotYet       []dayCard    `json:"not_yet"`
}

// dayStation is one station's (one unit's cart) share of the day.
type dayStation struct {
	Station string  `json:"station"`
	Jobs    int     `json:"jobs"`
	Cards   int     `json:"cards"`
	Bytes   int64   `json:"bytes"`
	TB      float64 `json:"tb"`
	Safe    int     `json:"safe_to_format"`
}

// dayCard is a card of the day: safe to format (and since when), or not
// yet and why. The card is in the engine's one shape
// (offload.CardSummary), as dit jobs --json and dit job show --json give
// it, with the station and job it was offloaded by.
type dayCard struct {
	Station string `json:"station"`
	JobID   int64  `json:"job_id"`
	Job     string `json:"job"`
	offload.CardSummary
	Why string `json:"why,omitempty"`
}

// parseDay reads DATE: YYYY-MM-DD, today or yesterday (local time).
func parseDay(s string, now time.Time) (time.Time, error) {
	y, m, d := now.Date()
	today := time.Date(y, m, d, 0, 0, 0, 0, now.Location())
	switch s {
	case "", "today":
		return today, nil
	case "yesterday":
		return today.AddDate(0, 0, -1), nil
	}
	t, err := time.ParseInLocation("2006-01-02", s, now.Location())
	if err != nil {
		return time.Time{}, &exitError{code: ExitUsage, err: fmt.Errorf("invalid DATE %q: give YYYY-MM-DD, today or yesterday", s)}
	}
	return t, nil
}

// buildDay gathers the day starting at day (local midnight) from cat.
// A card offloaded in several jobs of the day (to another destination
// later, --again, on another station) is the same footage: its bytes
// count once for the day and once for each station that offloaded it,
// and it is listed once: safe to format since the first job that made it
// so, else not yet with its latest job's why.
func buildDay(cat *catalog.Catalog, day time.Time) (*dayReport, error) {
	end := day.AddDate(0, 0, 1)
	jobs, err := cat.Jobs()
	if err != nil {
		return nil, err
	}
	r := &dayReport{Date: day.Format("2006-01-02"), Stations: []dayStation{}, SafeToFormat: []dayCard{}, NotYet: []dayCard{}}
	by := map[string]*dayStation{}
	type entry struct {
		c    dayCard
		safe bool
	}
	cards := map[string]*entry{}
	var order []string
	stationHas := map[string]map[string]bool{} // station -> card keys
	stationSafe := map[string]map[string]bool{}
	for i := len(jobs) - 1; i >= 0; i-- { // oldest first
		j := jobs[i]
		if j.Started.Before(day) || !j.Started.Before(end) {
			continue
		}
		s, err := offload.LoadSummary(cat, j.ID)
		if err != nil {
			return nil, err
		}
		recs, err := cat.Cards(j.ID)
		if err != nil {
			return nil, err
		}
		tots, err := cat.JobTotals(j.ID)
		if err != nil {
			return nil, err
		}
		st := by[j.Station]
		if st == nil {
			st = &dayStation{Station: j.Station}
			by[j.Station] = st
			stationHas[j.Station], stationSafe[j.Station] = map[string]bool{}, map[string]bool{}
		}
		st.Jobs++
		for _, k := range s.Cards {
			key := cardKey(recs, tots, k)
			c := dayCard{Station: j.Station, JobID: j.ID, Job: j.Name, CardSummary: k}
			if !stationHas[j.Station][key] {
				stationHas[j.Station][key] = true
				st.Cards++
				st.Bytes += k.Bytes
			}
			e := cards[key]
			if e == nil {
				e = &entry{}
				cards[key] = e
				order = append(order, key)
				r.Bytes += k.Bytes
			}
			if k.SafeToFormat {
				if !stationSafe[j.Station][key] {
					stationSafe[j.Station][key] = true
					st.Safe++
				}
				if !e.safe {
					e.c, e.safe = c, true
				}
				continue
			}
			if e.safe {
				continue // safe by an earlier job's copies
			}
			c.Why = k.Verdict
			if !k.Status.Ended() {
				c.Why = "still being offloaded (" + string(k.Status) + ")"
			}
			e.c = c
		}
	}
	for _, key := range order {
		if e := cards[key]; e.safe {
			r.SafeToFormat = append(r.SafeToFormat, e.c)
		} else {
			r.NotYet = append(r.NotYet, e.c)
		}
	}
	for _, st := range by {
		st.TB = float64(st.Bytes) / 1e12
		r.Stations = append(r.Stations, *st)
	}
	sort.Slice(r.Stations, func(a, b int) bool { return r.Stations[a].Station < r.Stations[b].Station })
	r.TB = float64(r.Bytes) / 1e12
	return r, nil
}

// cardKey identifies a card's footage across jobs: its label and its
// files: how many, their bytes and the sum of their modification times
// (the catalog's per-card totals; no file is read), as an offload knows
// a card it offloaded before.
func cardKey(recs []*catalog.Card, tots map[int64]*catalog.CardTotals, k offload.CardSummary) string {
	for _, rec := range recs {
		if rec.Hop > 1 || rec.Label != k.Label {
			continue
		}
		var n int
		var bytes, mtime int64
		if t := tots[rec.ID]; t != nil {
			n, mtime = t.NFiles(), t.MtimeS
			for _, b := range t.Bytes {
				bytes += b
			}
		}
		return fmt.Sprintf("%s:%d:%d:%d:%d:%d", k.Label, k.Files, k.Bytes, n, bytes, mtime)
	}
	return fmt.Sprintf("%s:%d:%d:%s", k.Label, k.Files, k.Bytes, k.Path)
}

func newDayCommand(g *GlobalOptions) *cobra.Command {
	var jsonOut bool
	cmd := &cobra.Command{
		Use:   "day [DATE]",
		Short: "A shooting day across stations: TB shot per station, cards safe to format, cards not yet",
		Long: `dit day sums up the jobs started on DATE (YYYY-MM-DD, today or yesterday, local
time; default today) on every station of the catalog: the footage shot per
station (each card's bytes once), the cards that are safe to format (and
since when) and the cards that are not yet, with why.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			day, err := parseDay(append(args, "")[0], time.Now())
			if err != nil {
				return err
			}
			cat, err := g.openCatalogExisting()
			if err != nil {
				return err
			}
			defer cat.Close()
			r, err := buildDay(cat, day)
			if err != nil {
				return err
			}
			if jsonOut {
				enc := json.NewEncoder(g.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(r)
			}
			fmt.Fprintf(g.stdout, "%s: %s shot (%.3f TB) on %s\n", r.Date, units.FormatBytes(r.Bytes), r.TB, plural(len(r.Stations), "station"))
			tw := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "STATION\tJOBS\tCARDS\tSHOT\tTB\tSAFE TO FORMAT")
			for _, s := range r.Stations {
				fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%.3f\t%d of %d\n", s.Station, s.Jobs, s.Cards, units.FormatBytes(s.Bytes), s.TB, s.Safe, s.Cards)
			}
			tw.Flush()
			fmt.Fprintf(g.stdout, "\nSafe to format (%d):\n", len(r.SafeToFormat))
			for _, c := range r.SafeToFormat {
				since := c.SafeAt.Local().Format("15:04:05")
				if c.SafeAt.Local().Format("2006-01-02") != r.Date {
					since = c.SafeAt.Local().Format("2006-01-02 15:04:05") // a job resumed the next day
				}
				fmt.Fprintf(g.stdout, "  %s  %s  job %d %s  since %s\n", c.Label, c.Station, c.JobID, c.Job, since)
			}
			fmt.Fprintf(g.stdout, "\nNOT yet (%d):\n", len(r.NotYet))
			for _, c := range r.NotYet {
				fmt.Fprintf(g.stdout, "  %s  %s  job %d %s  %s\n", c.Label, c.Station, c.JobID, c.Job, c.Why)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print the day as JSON")
	return cmd
}
