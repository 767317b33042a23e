package summary

import (
	"sort"
	"time"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/units"
)

// Activity is what a job moved and the time it actually spent, from its
// per-second samples and its runs: the basis of every TB/hour dit prints,
// true across any number of interruptions and resumes.
//
//   - Bytes copied are the bytes read from the cards (the sum of the copy
//     samples' increments, every run: a file read again after an
//     interruption counts again); bytes verified those read back from the
//     copies (every destination).
//   - Copy time is the time some card was copying (the union of the copy
//     samples' intervals), verify time the same for read-back; a card's own
//     active time is the union of its copy and verify intervals.
//   - Active time is the job's runs summed (start to end; a run that was
//     killed ends at its last sample); paused time is the rest of the span
//     from the first start to the last end.
//
// Rates are bytes over time, in TB/hour (10^12 bytes per hour); 0 when
// nothing was moved or no time was recorded, which people read as "-".
type Activity struct {
	Runs          int
	Active        time.Duration
	Paused        time.Duration
	BytesCopied   int64
	BytesVerified int64
	CopyTime      time.Duration
	VerifyTime    time.Duration
	Cards         map[int64]*CardActivity
}

// CardActivity is one card's part of an Activity.
type CardActivity struct {
	BytesCopied   int64
	BytesVerified int64
	CopyTime      time.Duration
	VerifyTime    time.Duration
	ActiveTime    time.Duration
}

// CopyTBPerHour, VerifyTBPerHour and EndToEndTBPerHour are the job's rates.
func (a *Activity) CopyTBPerHour() float64   { return tbh(a.BytesCopied, a.CopyTime) }
func (a *Activity) VerifyTBPerHour() float64 { return tbh(a.BytesVerified, a.VerifyTime) }
func (a *Activity) EndToEndTBPerHour() float64 {
	return tbh(a.BytesCopied, a.Active)
}

// CopyTBPerHour, VerifyTBPerHour and EndToEndTBPerHour are the card's rates.
func (c *CardActivity) CopyTBPerHour() float64   { return tbh(c.BytesCopied, c.CopyTime) }
func (c *CardActivity) VerifyTBPerHour() float64 { return tbh(c.BytesVerified, c.VerifyTime) }
func (c *CardActivity) EndToEndTBPerHour() float64 {
	return tbh(c.BytesCopied, c.ActiveTime)
}

func tbh(bytes int64, d time.Duration) float64 {
	if bytes <= 0 || d <= 0 {
		return 0
	}
	return units.TBPerHour(bytes, d)
}

type span struct{ from, to time.Time }

// union is the total length of a set of intervals, overlaps counted once.
func union(spans []span) time.Duration {
	sort.Slice(spans, func(i, j int) bool { return spans[i].from.Before(spans[j].from) })
	var total time.Duration
	var cur span
	for i, s := range spans {
		switch {
		case i == 0:
			cur = s
		case !s.from.After(cur.to):
			if s.to.After(cur.to) {
				cur.to = s.to
			}
		default:
			total += cur.to.Sub(cur.from)
			cur = s
		}
	}
	if len(spans) > 0 {
		total += cur.to.Sub(cur.from)
	}
	return total
}

// JobActivity reads a job's activity from the catalog: its cards' own
// samples (not the destinations', a job's other two thirds or more), and
// every sample's time only when a run was killed (where it ended).
func JobActivity(cat *catalog.Catalog, jobID int64) (*Activity, error) {
	cards, err := cat.Cards(jobID)
	if err != nil {
		return nil, err
	}
	return jobActivity(cat, jobID, cards)
}

// jobActivity is JobActivity of a job whose cards are read already.
func jobActivity(cat *catalog.Catalog, jobID int64, cards []*catalog.Card) (*Activity, error) {
	samples, err := cat.CardSamples(jobID)
	if err != nil {
		return nil, err
	}
	runs, err := cat.Runs(jobID)
	if err != nil {
		return nil, err
	}
	var times []time.Time
	for _, r := range runs {
		if r.Finished.IsZero() {
			if times, err = cat.SampleTimes(jobID); err != nil {
				return nil, err
			}
			break
		}
	}
	later := map[int64]bool{}
	for _, k := range cards {
		if k.Hop == 2 {
			later[k.ID] = true
		}
	}
	return activity(samples, times, runs, later), nil
}

// activity sums samples (those of a destination, DestID set, are left
// out); those of the cards in later (a cascade's second runs, which read
// the first copy, not a card) count for their card only: the job's bytes
// are the bytes read from the cards. A run that was killed ended at the
// latest of times (every sample's, destinations' included) before the
// next run.
func activity(samples []catalog.Sample, times []time.Time, runs []catalog.Run, later map[int64]bool) *Activity {
	a := &Activity{Cards: map[int64]*CardActivity{}, Runs: len(runs)}
	var copySpans, verifySpans []span
	cardSpans := map[int64][]span{}
	cardCopy, cardVerify := map[int64][]span{}, map[int64][]span{}
	for _, s := range samples {
		if s.DestID != 0 {
			continue // the card's side: what was read from it and read back
		}
		secs := s.Seconds
		if secs <= 0 {
			secs = 1 // a catalog before samples recorded their interval
		}
		d := time.Duration(secs * float64(time.Second))
		sp := span{s.T.Add(-d), s.T}
		moved := int64(s.Rate*secs + 0.5)
		c := a.Cards[s.CardID]
		if c == nil {
			c = &CardActivity{}
			a.Cards[s.CardID] = c
		}
		switch s.Phase {
		case "copy":
			c.BytesCopied += moved
			cardCopy[s.CardID] = append(cardCopy[s.CardID], sp)
			if !later[s.CardID] {
				a.BytesCopied += moved
				copySpans = append(copySpans, sp)
			}
		case "verify":
			c.BytesVerified += moved
			cardVerify[s.CardID] = append(cardVerify[s.CardID], sp)
			if !later[s.CardID] {
				a.BytesVerified += moved
				verifySpans = append(verifySpans, sp)
			}
		default:
			continue
		}
		cardSpans[s.CardID] = append(cardSpans[s.CardID], sp)
	}
	a.CopyTime, a.VerifyTime = union(copySpans), union(verifySpans)
	for id, c := range a.Cards {
		c.CopyTime, c.VerifyTime, c.ActiveTime = union(cardCopy[id]), union(cardVerify[id]), union(cardSpans[id])
	}
	var first, last time.Time
	for i, r := range runs {
		end := r.Finished
		if end.IsZero() {
			// Killed: it ran until its last sample (before the next run).
			end = r.Started
			for _, t := range times {
				if t.After(end) && (i+1 == len(runs) || t.Before(runs[i+1].Started)) {
					end = t
				}
			}
		}
		a.Active += end.Sub(r.Started)
		if first.IsZero() || r.Started.Before(first) {
			first = r.Started
		}
		if end.After(last) {
			last = end
		}
	}
	if len(runs) > 0 {
		a.Paused = max(last.Sub(first)-a.Active, 0)
	}
	return a
}
