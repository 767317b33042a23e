package serve

import (
	"strconv"

	"github.com/dit-org/dit/internal/live"
)

// cardMetrics writes the cards' and the running jobs' families: the
// verdicts (the summary's) and the live model's figures, never computed
// here.
func (s *Server) cardMetrics(st *Status, family func(name, typ, help string), sample func(name string, v float64, labels ...string)) {
	type row struct {
		j JobStatus
		c Card
	}
	var rows []row
	for _, j := range st.Jobs {
		for _, c := range j.Cards {
			rows = append(rows, row{j, c})
		}
	}
	labels := func(r row, name string, more ...string) []string {
		return append([]string{"station", r.j.Station, "job", strconv.FormatInt(r.j.ID, 10), "card", name}, more...)
	}
	family("dit_card_safe_to_format", "gauge", "1 when the card is safe to format (verified on every destination of every run, hash lists written), else 0.")
	for _, r := range rows {
		sample("dit_card_safe_to_format", b2f(r.c.SafeToFormat), labels(r, r.c.Label)...)
	}
	family("dit_card_free", "gauge", "1 when a cascade's card is free (its first run verified: it may leave the reader, NOT be formatted until dit_card_safe_to_format is 1), else 0.")
	for _, r := range rows {
		sample("dit_card_free", b2f(r.c.CardFree), labels(r, r.c.Label)...)
	}
	family("dit_card_state", "gauge", "1 for the card's (or its second run's) state as dit shows it: queued, copying, verifying, sealing, card_free, safe_to_format, verified, copied, failed, interrupted.")
	for _, r := range rows {
		sample("dit_card_state", 1, labels(r, r.c.Label, "state", string(r.c.Status))...)
		if r.c.Then != nil {
			sample("dit_card_state", 1, labels(r, r.c.Label+" (second run)", "state", string(r.c.Then.Status))...)
		}
	}
	family("dit_card_bytes", "gauge", "Size of a card on the status page.")
	for _, r := range rows {
		sample("dit_card_bytes", float64(r.c.Bytes), labels(r, r.c.Label)...)
	}
	// The live model's figures of the runs at work, family by family.
	type run struct {
		r    row
		name string
		l    *live.Card
	}
	var runs []run
	for _, r := range rows {
		if l := r.c.Live; l != nil {
			name := r.c.Label
			if l.Hop == 2 {
				name += " (second run)"
			}
			runs = append(runs, run{r, name, l})
		}
	}
	family("dit_card_done_bytes", "gauge", "Bytes done of the phase the card's run at work is in: copied while copying, read back while verifying (the live model's).")
	for _, x := range runs {
		done := x.l.BytesCopied
		if x.l.Phase == live.Verifying || x.l.Phase == live.Sealing {
			done = x.l.BytesVerified
		}
		sample("dit_card_done_bytes", float64(done), labels(x.r, x.name, "phase", string(x.l.Phase))...)
	}
	family("dit_card_rate_bytes_per_second", "gauge", "The rate of the card's run at work in its phase, smoothed (the live model's; 0 when it does not move).")
	for _, x := range runs {
		sample("dit_card_rate_bytes_per_second", x.l.Rate, labels(x.r, x.name, "phase", string(x.l.Phase))...)
	}
	family("dit_card_eta_seconds", "gauge", "Seconds until the card is copied, free (card_free) and safe to format, as the live model estimates them; absent when unknown (a stall, nothing measured).")
	for _, x := range runs {
		for _, e := range []struct {
			until string
			e     live.Estimate
		}{{"copied", x.l.ETA.Copied}, {"card_free", x.l.ETA.CardFree}, {"safe_to_format", x.l.ETA.Safe}} {
			if e.e.Known {
				sample("dit_card_eta_seconds", e.e.Seconds, labels(x.r, x.name, "until", e.until)...)
			}
		}
	}
	family("dit_card_stalled", "gauge", "1 while the card's run at work has not moved (a stall), else 0.")
	for _, x := range runs {
		sample("dit_card_stalled", b2f(x.l.Stall != nil), labels(x.r, x.name)...)
	}
	family("dit_job_rate_bytes_per_second", "gauge", "Bytes per second read from the cards by a running job, smoothed (the live model's).")
	family("dit_job_tb_per_hour", "gauge", "A running job's end-to-end TB/hour so far: bytes read from the cards over its active time, decimal TB (the live model's).")
	for _, j := range st.Jobs {
		if j.Live == nil {
			continue
		}
		sample("dit_job_rate_bytes_per_second", j.Live.Rate, "station", j.Station, "job", strconv.FormatInt(j.ID, 10))
		sample("dit_job_tb_per_hour", j.Live.TBPerHour, "station", j.Station, "job", strconv.FormatInt(j.ID, 10))
	}
}
