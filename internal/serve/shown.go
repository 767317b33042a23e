package serve

import (
	"fmt"
	"math"
	"strings"

	"github.com/dit-org/dit/internal/live"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/units"
	"github.com/dit-org/dit/internal/verdict"
)

// Tone is the colour the page gives a card's state.
type Tone string

// The tones of a card.
const (
	ToneWork   Tone = ""       // at work, or queued
	ToneSafe   Tone = "safe"   // safe to format
	ToneFree   Tone = "free"   // a cascade's card free: it may leave the reader, NOT be formatted
	ToneFailed Tone = "failed" // failed or interrupted: NOT safe to format
)

// Shown is a card as people read it: its verdict in words and the live
// model's figures formatted by internal/units (the formatter of the CLI,
// dit-gui and the reports), so the page prints these and computes or
// decides nothing.
type Shown struct {
	// State is the card's verdict in words (while its run is at work,
	// with the run's phase); Tone the page's colour for it.
	State string `json:"state"`
	Tone  Tone   `json:"tone,omitempty"`
	// Phase names a cascade's second run at work ("second run: copying").
	Phase string `json:"phase,omitempty"`
	// Progress is how far the run at work is ("1.20 MB of 2.10 MB",
	// "read back 1.20 MB of 4.20 MB"), or the card's size once it ended;
	// Percent the part of the run done (live.Card.Percent; 100 once it
	// ended), for the bar.
	Progress string  `json:"progress"`
	Percent  float64 `json:"percent"`
	Bytes    string  `json:"bytes"`
	// Rate, ETA and Stall are the live model's while the run is at work:
	// "120.0 MB/s"; "copied in 1m05s · safe to format in 3m10s" (an
	// estimate not known says "unknown"); "s3: connection refused, retry
	// 3 of 10, since 40s".
	Rate  string `json:"rate,omitempty"`
	ETA   string `json:"eta,omitempty"`
	Stall string `json:"stall,omitempty"`
}

// JobShown is a job's live figures as people read them (empty when no
// process runs it).
type JobShown struct {
	// Progress: "2 of 5 cards copied · 1.20 GB of 4.00 GB"; Stalled:
	// "1 card stalled".
	Progress string `json:"progress,omitempty"`
	Stalled  string `json:"stalled,omitempty"`
	// Rate: read from the cards now; TBPerHour: the job's end-to-end
	// figure so far ("0.432 TB/hour"); ETA: until every card is copied,
	// free (a cascade) and safe to format.
	Rate      string `json:"rate,omitempty"`
	TBPerHour string `json:"tb_per_hour,omitempty"`
	ETA       string `json:"eta,omitempty"`
}

// cardShown is card c in words (cascade: the job has second runs).
func cardShown(c Card, cascade bool) Shown {
	sh := Shown{Bytes: units.FormatBytes(c.Bytes)}
	sh.State, sh.Tone = stateWords(c)
	l := c.Live
	if l == nil {
		sh.Progress = units.FormatBytes(c.Bytes)
		if n := c.Failed + failedThen(c.CardSummary); n > 0 {
			sh.Progress += fmt.Sprintf(" · %d file(s) failed", n)
		}
		if c.Status.Ended() || c.CardFree {
			sh.Percent = 100
		}
		return sh
	}
	if l.Hop == 2 {
		sh.Phase = "second run: " + string(l.Phase)
	}
	switch l.Phase {
	case live.Verifying, live.Sealing:
		sh.Progress = "read back " + units.FormatBytes(l.BytesVerified) + " of " + units.FormatBytes(l.VerifyTotal)
	case live.Done:
		sh.Progress = units.FormatBytes(l.Bytes)
	default:
		sh.Progress = units.FormatBytes(l.BytesCopied) + " of " + units.FormatBytes(l.Bytes)
	}
	sh.Percent = math.Round(l.Percent()*10) / 10
	if l.Stall != nil {
		sh.Stall = l.Stall.String()
	} else if l.Rate > 0 && l.Phase.Active() {
		sh.Rate = units.FormatRate(l.Rate)
	}
	if l.Phase != live.Done {
		sh.ETA = etaWords(l.ETA, l.Phase, cascade && l.Hop != 2)
	}
	return sh
}

// failedThen counts the files a cascade's second run failed.
func failedThen(c offload.CardSummary) int {
	if c.Then == nil {
		return 0
	}
	return c.Then.Failed
}

// stateWords is card c's verdict in words and its tone. A card at work
// says the phase its first run is in now (the live model's, when
// running), NOT safe yet.
func stateWords(c Card) (string, Tone) {
	free := ""
	if c.CardFree {
		free = "card free, "
	}
	switch c.Status {
	case verdict.Safe:
		return "safe to format", ToneSafe
	case verdict.CardFree:
		return "card free — NOT safe to format yet", ToneFree
	case verdict.Failed:
		return free + "FAILED — NOT safe to format", ToneFailed
	case verdict.Interrupted:
		return free + "interrupted — NOT safe to format", ToneFailed
	case verdict.Copied:
		return "copied, not verified — NOT safe to format", ToneWork
	}
	what := c.Status.Label()
	if c.Live != nil && c.Live.Hop != 2 && c.Live.Phase != live.Done {
		what = string(c.Live.Phase)
	}
	return what + " — NOT safe yet", ToneWork
}

// etaWords are a run's estimates in words: until copied (while it
// copies), card free (a cascade's first run) and safe to format.
func etaWords(t live.Times, p live.Phase, free bool) string {
	var parts []string
	if p == live.Queued || p == live.Copying {
		parts = append(parts, in("copied", t.Copied))
	}
	if free {
		parts = append(parts, in("card free", t.CardFree))
	}
	return strings.Join(append(parts, in("safe to format", t.Safe)), " · ")
}

// in is "what in 1m05s", or "what: unknown" when dit cannot say.
func in(what string, e live.Estimate) string {
	if !e.Known {
		return what + ": " + e.String()
	}
	return what + " in " + e.String()
}

// jobShown is job js's live figures in words.
func jobShown(js JobStatus) JobShown {
	l := js.Live
	if l == nil {
		return JobShown{}
	}
	sh := JobShown{Progress: fmt.Sprintf("%d of %d card(s) copied · %s of %s", l.Copied, l.Cards,
		units.FormatBytes(l.BytesCopied), units.FormatBytes(l.Bytes))}
	if l.Stalled > 0 {
		sh.Stalled = fmt.Sprintf("%d card(s) stalled", l.Stalled)
	}
	sh.Rate = units.FormatRate(l.Rate)
	sh.TBPerHour = units.FormatCopiedTBPerHour(l.BytesRead, l.TBPerHour)
	var parts []string
	if l.Copied < l.Cards {
		parts = append(parts, in("all copied", l.ETA.Copied))
	}
	if js.Cascade {
		parts = append(parts, in("all free", l.ETA.CardFree))
	}
	sh.ETA = strings.Join(append(parts, in("all safe to format", l.ETA.Safe)), " · ")
	return sh
}
