package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"net/mail"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/verdict"
)

var at0 = time.Date(2026, 12, 3, 14, 0, 0, 0, time.UTC)

// feed gives tracker t the engine's events (job 7), each a second after
// the last, and returns the messages they made.
func feed(t *Tracker, evs ...offload.Event) []Message {
	var out []Message
	for i, e := range evs {
		e.JobID = 7
		if e.Time.IsZero() {
			e.Time = at0.Add(time.Duration(i) * time.Second)
		}
		out = append(out, t.Messages(e)...)
	}
	return out
}

func kinds(msgs []Message) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, string(m.Kind)+" "+m.Card)
	}
	return out
}

// A stall is said once, naming the card (and its run), where and the
// engine's words; that it moves again is said once too, and only of a
// stall that was said. A webhook that wants stalls hears both, one that
// wants failures neither.
func TestStallAndMovingAgain(t *testing.T) {
	tr := NewTracker("Day01", true)
	words := "s3: connection refused, retry 3 of 10, since 10s"
	msgs := feed(tr,
		offload.Event{Type: offload.EvJobStarted, Message: "Day01"},
		offload.Event{Type: offload.EvMoving, Card: "A002"}, // no stall said: nothing
		offload.Event{Type: offload.EvStalled, Card: "A001", Hop: 2, Path: "/Volumes/SHUTTLE1", Message: words},
		offload.Event{Type: offload.EvMoving, Card: "A001", Hop: 1}, // not the run that stalled
		offload.Event{Type: offload.EvMoving, Card: "A001", Hop: 2, Time: at0.Add(83 * time.Second)},
		offload.Event{Type: offload.EvMoving, Card: "A001", Hop: 2},
	)
	require.Equal(t, []string{"stalled A001", "moving A001"}, kinds(msgs))
	st, mv := msgs[0], msgs[1]
	require.Equal(t, "dit: job Day01 (#7): card A001 (second run) stalled at /Volumes/SHUTTLE1", st.Subject())
	require.Contains(t, st.Text, "Card A001's second run (from the first copy) is stalled at /Volumes/SHUTTLE1: "+words)
	require.Contains(t, st.Text, "NOT safe to format")
	require.Equal(t, 2, st.Hop)
	require.Equal(t, "/Volumes/SHUTTLE1", st.Where)
	require.Equal(t, "dit: job Day01 (#7): card A001 (second run) moving again", mv.Subject())
	require.Equal(t, "Card A001's second run (from the first copy) moves again at /Volumes/SHUTTLE1, 1m21s after the stall notice ("+words+").", mv.Text)

	// Delivered: to a webhook that wants stalls, both; to one that wants
	// failures, neither.
	stalls, failures := newHookServer(t, nil), newHookServer(t, nil)
	cfg := hookConfig(stalls.URL, func(w *Webhook) { w.Kinds = []Kind{Stalled} })
	cfg.Webhooks = append(cfg.Webhooks, Webhook{URL: failures.URL, Timeout: 5 * time.Second, Tries: 1, Kinds: []Kind{Failure}})
	n := New(cfg)
	for _, m := range msgs {
		n.Notify(m)
	}
	require.Empty(t, n.Close(context.Background()))
	got := stalls.messages()
	require.Len(t, got, 2)
	require.Equal(t, "stalled", got[0]["kind"])
	require.Equal(t, "moving", got[1]["kind"])
	require.EqualValues(t, 2, got[0]["hop"])
	require.Equal(t, "/Volumes/SHUTTLE1", got[0]["where"])
	require.Empty(t, failures.messages())

	// A stall that ends in the card's end is not followed by "moving".
	msgs = feed(tr,
		offload.Event{Type: offload.EvStalled, Card: "A003", Path: "card", Message: "no data from the card, since 10s"},
		offload.Event{Type: offload.EvCardDone, Card: "A003", State: verdict.Failed, Message: "card removed"},
		offload.Event{Type: offload.EvMoving, Card: "A003"},
	)
	require.Equal(t, []string{"stalled A003", "failure A003"}, kinds(msgs))
}

// A card whose run failed and that a retry makes safe: the notice says it
// is now safe and that it replaces the failure (webhook and mail); a
// failure after a retry is said again.
func TestLaterVerdictReplacesFailure(t *testing.T) {
	tr := NewTracker("Day01", false)
	sum := &offload.CardSummary{CardFigures: offload.CardFigures{Label: "A001", Files: 3, Bytes: 3000},
		Destinations: []offload.DestSummary{{Path: "/raid/Day01/A001", Verified: 2, Failed: 1}}}
	msgs := feed(tr,
		offload.Event{Type: offload.EvFile, Card: "A001", Path: "C002.mov", State: verdict.Failed,
			Copies: []offload.CopyState{{Dest: "/raid", State: offload.StateFailed, Error: "write /raid/x: no space left on device"}}},
		offload.Event{Type: offload.EvCardDone, Card: "A001", State: verdict.Failed, Summary: sum},
		offload.Event{Type: offload.EvCardDone, Card: "A001", State: verdict.Failed, Summary: sum}, // once
		offload.Event{Type: offload.EvCardRetried, Card: "A001", Hop: 1},
		offload.Event{Type: offload.EvCardDone, Card: "A001", State: verdict.Safe},
		offload.Event{Type: offload.EvCardDone, Card: "A001", State: verdict.Safe},
	)
	require.Equal(t, []string{"failure A001", "safe_to_format A001", "safe_to_format A001"}, kinds(msgs))
	require.Contains(t, msgs[0].Text, "/raid/Day01/A001: destination full (no space left on device) (1 file)")
	safe := msgs[1]
	require.Equal(t, verdict.Safe, safe.State)
	require.Equal(t, verdict.Failed, safe.Replaces)
	require.Equal(t, "dit: job Day01 (#7): card A001 now verified: safe to format (was FAILED)", safe.Subject())
	require.Contains(t, safe.Text, "This replaces the earlier notice: card A001 was FAILED; it is now verified on every destination: safe to format.")
	require.Empty(t, msgs[2].Replaces, "said once")

	// By mail and webhook, as sent.
	s := startSMTP(t, nil)
	h := newHookServer(t, nil)
	cfg := s.config(nil)
	cfg.Webhooks = hookConfig(h.URL, nil).Webhooks
	n := New(cfg)
	n.Notify(safe)
	require.Empty(t, n.Close(context.Background()))
	pm, err := mail.ReadMessage(bytes.NewReader(s.sent()[0].data))
	require.NoError(t, err)
	subj, _ := new(mime.WordDecoder).DecodeHeader(pm.Header.Get("Subject"))
	require.Equal(t, safe.Subject(), subj)
	got := h.messages()[0]
	require.Equal(t, "failed", got["replaces"])
	require.Equal(t, "safe_to_format", got["state"])

	// Failed again after another retry: said again.
	msgs = feed(tr,
		offload.Event{Type: offload.EvCardRetried, Card: "A001", Hop: 1},
		offload.Event{Type: offload.EvCardDone, Card: "A001", State: verdict.Failed},
	)
	require.Equal(t, []string{"failure A001"}, kinds(msgs))
}

// A resume: a card an earlier run of the job left interrupted or failed
// (Earlier, the summary's verdict) is said free, then safe, replacing it;
// a card that was fine replaces nothing.
func TestResumeReplacesEarlierVerdict(t *testing.T) {
	tr := NewTracker("Day01", true)
	tr.Earlier("A001", verdict.Interrupted)
	tr.Earlier("A002", verdict.CardFree)
	msgs := feed(tr,
		offload.Event{Type: offload.EvRunDone, Card: "A001", Hop: 1, State: verdict.Verified},
		offload.Event{Type: offload.EvCardFree, Card: "A001"},
		offload.Event{Type: offload.EvCardDone, Card: "A001", State: verdict.Safe},
		offload.Event{Type: offload.EvCardDone, Card: "A002", State: verdict.Safe},
	)
	require.Equal(t, []string{"card_free A001", "safe_to_format A001", "safe_to_format A002"}, kinds(msgs))
	require.Equal(t, verdict.Interrupted, msgs[0].Replaces)
	require.Equal(t, "dit: job Day01 (#7): card A001 now free (was interrupted): it may leave the reader, NOT be formatted yet", msgs[0].Subject())
	require.Contains(t, msgs[0].Text, "card A001 was interrupted; it is now free")
	require.Empty(t, msgs[1].Replaces, "the free notice replaced it")
	require.Empty(t, msgs[2].Replaces)
}

// A cascade's failed files are counted per run by the event's hop (no
// label suffix): the card's failure lists both runs' files, each
// destination with its own reason.
func TestFailureOfBothRunsByHop(t *testing.T) {
	tr := NewTracker("Day01", true)
	sum := &offload.CardSummary{CardFigures: offload.CardFigures{Label: "A001"},
		Destinations: []offload.DestSummary{{Path: "/raid/Day01/A001", Failed: 1}},
		Then:         &offload.HopSummary{Destinations: []offload.DestSummary{{Path: "/shuttle/Day01/A001", Failed: 1}}}}
	msgs := feed(tr,
		offload.Event{Type: offload.EvFile, Card: "A001", Hop: 1, Path: "C001.mov", State: verdict.Failed,
			Copies: []offload.CopyState{{Dest: "/raid", State: offload.StateFailed, Error: "read back: xxh64 mismatch"}}},
		offload.Event{Type: offload.EvFile, Card: "A001", Hop: 2, Path: "C002.mov", State: verdict.Failed,
			Copies: []offload.CopyState{{Dest: "/shuttle", State: offload.StateFailed, Error: "open /shuttle/x: permission denied"}}},
		offload.Event{Type: offload.EvFile, Card: "A001", Hop: 2, Path: "C003.mov", State: verdict.Verified},
		offload.Event{Type: offload.EvCardDone, Card: "A001", State: verdict.Failed, Summary: sum},
	)
	require.Len(t, msgs, 1)
	text := msgs[0].Text
	require.Contains(t, text, "Card A001: 2 files FAILED: NOT safe to format.")
	require.Contains(t, text, "/raid/Day01/A001: a copy read back different from the card (1 file)")
	require.Contains(t, text, "/shuttle/Day01/A001: permission denied (1 file)")
	require.Contains(t, text, "  C001.mov\n  C002.mov")
	require.NotContains(t, text, "C003.mov")
	require.Equal(t, []DestStatus{{Path: "/raid/Day01/A001", Failed: 1, Reason: "a copy read back different from the card"},
		{Path: "/shuttle/Day01/A001", Failed: 1, Reason: "permission denied"}}, msgs[0].Destinations)
	require.False(t, strings.Contains(text, "2nd run"))
}

// A card's notices carry the card in the one card shape: a card message
// (safe_to_format, failure) the card_done event's summary, job_done each
// card's, as it is (the JSON dit jobs --json and the events give).
func TestNoticesCarryTheOneCardShape(t *testing.T) {
	sum := &offload.CardSummary{CardFigures: offload.CardFigures{Label: "A001", Status: verdict.Safe, SafeToFormat: true,
		Files: 3, Bytes: 30_000, Verdict: "Verified: safe to format", SafeAt: at0}, Path: "/Volumes/A001", FirstRun: verdict.Verified,
		Destinations: []offload.DestSummary{{Path: "/Volumes/RAID/day01/A001", Verified: 3}}}
	want, err := json.Marshal(sum)
	require.NoError(t, err)
	tr := NewTracker("day01", false)
	msgs := feed(tr, offload.Event{Type: offload.EvCardDone, Card: "A001", State: verdict.Safe, Summary: sum})
	require.Len(t, msgs, 1)
	b, err := json.Marshal(Payload{Message: msgs[0]})
	require.NoError(t, err)
	var got struct {
		Summary json.RawMessage `json:"summary"`
	}
	require.NoError(t, json.Unmarshal(b, &got))
	require.JSONEq(t, string(want), string(got.Summary), "safe_to_format")

	done := tr.Done(&offload.Summary{JobID: 7, Name: "day01", Cards: []offload.CardSummary{*sum}})
	b, err = json.Marshal(Payload{Message: done})
	require.NoError(t, err)
	var job struct {
		Cards []struct {
			Summary json.RawMessage `json:"summary"`
		} `json:"cards"`
	}
	require.NoError(t, json.Unmarshal(b, &job))
	require.Len(t, job.Cards, 1)
	require.JSONEq(t, string(want), string(job.Cards[0].Summary), "job_done")
}

// A card whose destination went away fails every file: its notice counts
// them all, names the first ten (the first run's first) and says how
// many more; the tracker holds those ten paths, not one a file.
func TestFailureOfAMillionFramesNamesTen(t *testing.T) {
	tr := NewTracker("Day01", true)
	const n1, n2 = 100_000, 3
	var evs []offload.Event
	for i := range n1 {
		evs = append(evs, offload.Event{Type: offload.EvFile, Card: "A001", Hop: 1, Path: fmt.Sprintf("F/%07d.ari", i), State: verdict.Failed,
			Copies: []offload.CopyState{{Dest: "/raid", State: offload.StateFailed, Error: "write: no such device"}}})
	}
	for i := range n2 {
		evs = append(evs, offload.Event{Type: offload.EvFile, Card: "A001", Hop: 2, Path: fmt.Sprintf("G/%d.ari", i), State: verdict.Failed})
	}
	sum := &offload.CardSummary{CardFigures: offload.CardFigures{Label: "A001"},
		Destinations: []offload.DestSummary{{Path: "/raid/Day01/A001", Failed: n1}}}
	msgs := feed(tr, append(evs, offload.Event{Type: offload.EvCardDone, Card: "A001", State: verdict.Failed, Summary: sum})...)
	require.Len(t, msgs, 1)
	text := msgs[0].Text
	require.Contains(t, text, "Card A001: 100003 files FAILED: NOT safe to format.")
	var named []string
	for i := range 10 {
		named = append(named, fmt.Sprintf("  F/%07d.ari", i))
	}
	require.Contains(t, text, strings.Join(named, "\n")+"\n... and 99993 more")
	require.NotContains(t, text, "F/0000010.ari")
	require.NotContains(t, text, "G/0.ari")
	for r, ff := range tr.failed {
		require.LessOrEqual(t, len(ff.first), failedShown, "paths held for %v", r)
	}
}
