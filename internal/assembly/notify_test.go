package assembly

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/notify"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/verdict"
)

func notifyTestConfig(url string) notify.Config {
	return notify.Config{Webhooks: []notify.Webhook{{URL: url, Timeout: 5 * time.Second, Tries: 1}}, Wait: 10 * time.Second, Queue: 64}
}

// notifyHook is a real webhook receiver recording each message.
type notifyHook struct {
	*httptest.Server
	mu   sync.Mutex
	msgs []map[string]any
}

func newNotifyHook(t *testing.T) *notifyHook {
	h := &notifyHook{}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m map[string]any
		if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		h.mu.Lock()
		h.msgs = append(h.msgs, m)
		h.mu.Unlock()
	}))
	t.Cleanup(h.Close)
	return h
}

func (h *notifyHook) got() []map[string]any {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]map[string]any(nil), h.msgs...)
}

// kindsOf lists "kind card" of each message.
func kindsOf(msgs []map[string]any) []string {
	var out []string
	for _, m := range msgs {
		s := fmt.Sprint(m["kind"])
		if c, ok := m["card"].(string); ok {
			s += " " + c
		}
		out = append(out, s)
	}
	return out
}

// In a cascade the first run's "verified" is only free; the second run's
// is safe to format. Failures come once per card.
func TestNotifyEventsCascade(t *testing.T) {
	hook := newNotifyHook(t)
	j := newNotifier(&Settings{Then: []string{"/shuttle"}, Notify: notifyTestConfig(hook.URL)}, "day04")
	require.NotNil(t, j)
	ev := func(e offload.Event) { e.JobID = 4; j.event(e) }
	ev(offload.Event{Type: offload.EvJobStarted, Message: "day04"})
	ev(offload.Event{Type: offload.EvRunDone, Card: "A001", State: verdict.Verified})
	ev(offload.Event{Type: offload.EvCardFree, Card: "A001", Message: "card A001 is free"})
	ev(offload.Event{Type: offload.EvFile, Card: "A002", Path: "C/1.mov", State: verdict.Failed, Message: "read error"})
	ev(offload.Event{Type: offload.EvFile, Card: "A002", Path: "C/2.mov", State: verdict.Failed, Message: "read error"})
	ev(offload.Event{Type: offload.EvFile, Card: "A002", Path: "C/3.mov", State: verdict.Verified})
	ev(offload.Event{Type: offload.EvCardDone, Card: "A002", State: verdict.Failed, Message: "2 file(s) failed"})
	ev(offload.Event{Type: offload.EvRunDone, Card: "A001", Hop: 2, State: verdict.Verified})
	ev(offload.Event{Type: offload.EvCardDone, Card: "A001", State: verdict.Safe})
	// A warning while a card's run goes on (its hash lists) is no failure.
	ev(offload.Event{Type: offload.EvWarning, Card: "A003", Hop: 1, Message: "hash lists in /raid/day04/A003: a file left out"})
	// The engine's order when a second run cannot start: the first run
	// ends verified, then a warning in place of its card_free.
	ev(offload.Event{Type: offload.EvRunDone, Card: "A003", Hop: 1, State: verdict.Verified})
	ev(offload.Event{Type: offload.EvWarning, Card: "A003", Hop: 1, Message: "second run of A003 not started: the first copy cannot be read: the card is NOT safe to format"})
	ev(offload.Event{Type: offload.EvWarning, Card: "A003", Message: "second run of A003 not started: again: NOT safe to format"})

	undelivered := j.finish(context.Background(), &offload.Summary{JobID: 4, Name: "day04", ExitCode: 3,
		Cards: []offload.CardSummary{{CardFigures: offload.CardFigures{Label: "A001", SafeToFormat: true, Verdict: "Verified: safe to format"}}, {CardFigures: offload.CardFigures{Label: "A002", Verdict: "FAILED: NOT safe to format"}}}}, nil)
	require.Empty(t, undelivered)
	msgs := hook.got()
	require.Equal(t, []string{"card_free A001", "failure A002", "safe_to_format A001", "failure A003", "job_done"}, kindsOf(msgs))
	require.Contains(t, msgs[1]["text"], "C/1.mov")
	require.Contains(t, msgs[1]["text"], "C/2.mov")
	require.NotContains(t, msgs[1]["text"], "C/3.mov")
	require.Equal(t, "day04", msgs[0]["job"])
	require.EqualValues(t, 4, msgs[4]["job_id"])
}

// Without a cascade a card verified is safe to format; a job that stops
// with an error is a failure; the report is read from the destination.
func TestNotifyEventsPlainAndReport(t *testing.T) {
	hook := newNotifyHook(t)
	dest := t.TempDir()
	rdir := filepath.Join(dest, "day05", "reports")
	require.NoError(t, os.MkdirAll(rdir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(rdir, "dit-report_job5_day05.pdf"), []byte("%PDF-1.7 test"), 0o644))
	j := newNotifier(&Settings{Notify: notifyTestConfig(hook.URL)}, "day05")
	j.event(offload.Event{Type: offload.EvJobStarted, JobID: 5, Message: "day05"})
	j.event(offload.Event{Type: offload.EvCardDone, JobID: 5, Card: "A001", State: verdict.Safe})
	sum := &offload.Summary{JobID: 5, Name: "day05", Layout: offload.DefaultLayout, Destinations: []string{dest},
		Cards: []offload.CardSummary{{CardFigures: offload.CardFigures{Label: "A001", SafeToFormat: true, Verdict: "Verified: safe to format"}}}}
	j.afterJob(sum, nil)
	require.Empty(t, j.finish(context.Background(), sum, nil))
	msgs := hook.got()
	require.Equal(t, []string{"safe_to_format A001", "job_done"}, kindsOf(msgs))
	att := msgs[1]["attachments"].([]any)[0].(map[string]any)
	require.Equal(t, filepath.Join(rdir, "dit-report_job5_day05.pdf"), att["path"])

	hook2 := newNotifyHook(t)
	j = newNotifier(&Settings{Notify: notifyTestConfig(hook2.URL)}, "")
	j.finish(context.Background(), nil, os.ErrPermission)
	require.Equal(t, []string{"failure"}, kindsOf(hook2.got()))
	require.Contains(t, hook2.got()[0]["text"], "The job stopped: permission denied")

	require.Nil(t, newNotifier(&Settings{}, "day05"), "nothing configured, nobody listening")
	var none *notifier
	require.Empty(t, none.finish(context.Background(), sum, nil))
}

// The event mapping dit-gui gets through Hooks.OnNotify (no config): a cascade's first run is only
// free; safe to format from the second run verified; one failure per
// card.
func TestNotifierOnNotifyMapsEvents(t *testing.T) {
	var got []notify.Message
	hook := func(m notify.Message) { got = append(got, m) }
	messages := func(j *notifier, e offload.Event) []notify.Message {
		got = nil
		j.event(e)
		return got
	}
	j := newNotifier(&Settings{Then: []string{"/shuttle"}, Hooks: Hooks{OnNotify: hook}}, "day01")
	kinds := func(e offload.Event) []string {
		var out []string
		for _, m := range messages(j, e) {
			out = append(out, string(m.Kind)+" "+m.Card)
		}
		return out
	}
	require.Empty(t, kinds(offload.Event{Type: offload.EvJobStarted, JobID: 4, Message: "day01"}))
	require.Empty(t, kinds(offload.Event{Type: offload.EvRunDone, Card: "A001", State: verdict.Verified}), "a first run is not safe to format")
	require.Equal(t, []string{"card_free A001"}, kinds(offload.Event{Type: offload.EvCardFree, Card: "A001"}))
	require.Empty(t, kinds(offload.Event{Type: offload.EvRunDone, Card: "A001", Hop: 2, State: verdict.Verified}), "a run's end is not the card's verdict")
	require.Equal(t, []string{"safe_to_format A001"}, kinds(offload.Event{Type: offload.EvCardDone, Card: "A001", State: verdict.Safe}))
	require.Empty(t, kinds(offload.Event{Type: offload.EvFile, Card: "A002", Path: "CLIPS/x.mov", State: verdict.Failed, Message: "card removed"}))
	require.Empty(t, kinds(offload.Event{Type: offload.EvFile, Card: "A002", Path: "CLIPS/y.mov", State: verdict.Failed, Message: "card removed"}))
	failed := messages(j, offload.Event{Type: offload.EvCardDone, Card: "A002", State: verdict.Failed})
	require.Len(t, failed, 1)
	require.Equal(t, notify.Failure, failed[0].Kind)
	require.Equal(t, int64(4), failed[0].JobID)
	require.Contains(t, failed[0].Text, "Card A002: 2 files FAILED: NOT safe to format.\n  CLIPS/x.mov\n  CLIPS/y.mov")
	require.Equal(t, verdict.Failed, failed[0].State)
	require.Empty(t, kinds(offload.Event{Type: offload.EvCardDone, Card: "A002", State: verdict.Failed}), "one failure per card")

	plain := newNotifier(&Settings{Hooks: Hooks{OnNotify: hook}}, "j")
	require.Len(t, messages(plain, offload.Event{Type: offload.EvCardDone, Card: "A001", State: verdict.Safe}), 1, "the card's verdict safe to format")
}

// A resume of a job whose earlier run left a card failed: the notifier
// reads the job's verdicts from the catalog (a real one), and the card's
// safe_to_format says it replaces the failure; a card that was fine
// replaces nothing.
func TestNotifierResumeReplacesEarlierFailure(t *testing.T) {
	cat, err := catalog.Open(filepath.Join(t.TempDir(), "c.db"))
	require.NoError(t, err)
	defer cat.Close()
	job := &catalog.Job{Name: "day06", State: catalog.JobInterrupted, Hashes: "xxh64", VerifyMode: "dest", Layout: "{job}/{card}",
		OnConflict: "fail", Started: time.Now()}
	require.NoError(t, cat.CreateJob(job))
	d := &catalog.Dest{JobID: job.ID, Path: "/raid"}
	require.NoError(t, cat.AddDest(d))
	for i, x := range []struct{ label, state string }{{"A001", offload.StateFailed}, {"A002", offload.StateVerified}} {
		k := &catalog.Card{JobID: job.ID, Seq: i, Label: x.label, Path: "/cards/" + x.label, State: x.state, Bytes: 100, Files: 1, DoneAt: time.Now()}
		require.NoError(t, cat.AddCard(k))
		cat.UpdateCard(k)
		cat.PutFile(&catalog.File{CardID: k.ID, Rel: "C001.mov", Size: 100, State: x.state, Mtime: time.Now()})
		cat.PutCopy(k.ID, "C001.mov", &catalog.Copy{DestID: d.ID, Path: "day06/" + x.label + "/C001.mov", State: x.state})
	}
	require.NoError(t, cat.Flush())
	sum, err := offload.LoadSummary(cat, job.ID)
	require.NoError(t, err)
	require.Equal(t, verdict.Failed, sum.Cards[0].Status, "the earlier run's verdict")

	var got []notify.Message
	j := newNotifier(&Settings{Resume: job.ID, Catalog: cat, Hooks: Hooks{OnNotify: func(m notify.Message) { got = append(got, m) }}}, "day06")
	j.event(offload.Event{Type: offload.EvJobStarted, JobID: job.ID, Message: "day06"})
	j.event(offload.Event{Type: offload.EvCardDone, JobID: job.ID, Card: "A001", State: verdict.Safe})
	j.event(offload.Event{Type: offload.EvCardDone, JobID: job.ID, Card: "A002", State: verdict.Safe})
	require.Len(t, got, 2)
	require.Equal(t, verdict.Failed, got[0].Replaces)
	require.Contains(t, got[0].Subject(), "card A001 now verified: safe to format (was FAILED)")
	require.Empty(t, got[1].Replaces)
}
