package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/notify"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/verdict"
)

func notifyTestConfig(url string) notify.Config {
	return notify.Config{Webhooks: []notify.Webhook{{URL: url, Timeout: 5 * time.Second, Tries: 1}}, Wait: 10 * time.Second, Queue: 64}
}

// In a cascade the first run's "verified" is only free; the second run's
// is safe to format. Failures come once per card.
func TestNotifyEventsCascade(t *testing.T) {
	hook := e2e.NewNotifyHook(t)
	var seen []string
	opts := offload.Options{Then: []string{"/shuttle"}, OnEvent: func(e offload.Event) { seen = append(seen, e.Type) }}
	j := notifyJob(notifyTestConfig(hook.URL), &opts)
	require.NotNil(t, j)
	ev := func(e offload.Event) { e.JobID = 4; opts.OnEvent(e) }
	ev(offload.Event{Type: offload.EvJobStarted, Message: "day04"})
	ev(offload.Event{Type: offload.EvRunDone, Card: "A001", State: offload.StateVerified})
	ev(offload.Event{Type: offload.EvCardFree, Card: "A001", Message: "card A001 is free"})
	ev(offload.Event{Type: offload.EvFile, Card: "A002", Path: "C/1.mov", State: offload.StateFailed, Message: "read error"})
	ev(offload.Event{Type: offload.EvFile, Card: "A002", Path: "C/2.mov", State: offload.StateFailed, Message: "read error"})
	ev(offload.Event{Type: offload.EvFile, Card: "A002", Path: "C/3.mov", State: offload.StateVerified})
	ev(offload.Event{Type: offload.EvCardDone, Card: "A002", State: string(verdict.Failed), Message: "2 file(s) failed"})
	ev(offload.Event{Type: offload.EvRunDone, Card: "A001" + offload.SecondRunSuffix, Hop: 2, State: offload.StateVerified})
	ev(offload.Event{Type: offload.EvCardDone, Card: "A001", State: string(verdict.Safe)})
	ev(offload.Event{Type: offload.EvWarning, Card: "A003", Message: "second run of A003 not started: the first copy cannot be read: the card is NOT safe to format"})
	ev(offload.Event{Type: offload.EvWarning, Card: "A003", Message: "second run of A003 not started: again: NOT safe to format"})
	require.Len(t, seen, 11, "the events still reach the printer")

	var w bytes.Buffer
	j.Finish(context.Background(), &w, &offload.Summary{JobID: 4, Name: "day04", ExitCode: 3,
		Cards: []offload.CardSummary{{Label: "A001", SafeToFormat: true, Verdict: "Verified: safe to format"}, {Label: "A002", Verdict: "FAILED: NOT safe to format"}}}, nil)
	require.Empty(t, w.String())
	msgs := hook.Got()
	require.Equal(t, []string{"card_free A001", "failure A002", "safe_to_format A001", "failure A003", "job_done"}, e2e.KindsOf(msgs))
	require.Contains(t, msgs[1]["text"], "C/1.mov")
	require.Contains(t, msgs[1]["text"], "C/2.mov")
	require.NotContains(t, msgs[1]["text"], "C/3.mov")
	require.Equal(t, "day04", msgs[0]["job"])
	require.EqualValues(t, 4, msgs[4]["job_id"])
}

// Without a cascade a card verified is safe to format; a job that stops
// with an error is a failure; the report is read from the destination.
func TestNotifyEventsPlainAndReport(t *testing.T) {
	hook := e2e.NewNotifyHook(t)
	dest := t.TempDir()
	rdir := filepath.Join(dest, "day05", "reports")
	require.NoError(t, os.MkdirAll(rdir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(rdir, "dit-report_job5_day05.pdf"), []byte("%PDF-1.7 test"), 0o644))
	opts := offload.Options{AfterJob: func(context.Context, *offload.Summary, fsys.FS) error { return nil }}
	j := notifyJob(notifyTestConfig(hook.URL), &opts)
	opts.OnEvent(offload.Event{Type: offload.EvJobStarted, JobID: 5, Message: "day05"})
	opts.OnEvent(offload.Event{Type: offload.EvCardDone, JobID: 5, Card: "A001", State: string(verdict.Safe)})
	sum := &offload.Summary{JobID: 5, Name: "day05", Layout: offload.DefaultLayout, Destinations: []string{dest},
		Cards: []offload.CardSummary{{Label: "A001", SafeToFormat: true, Verdict: "Verified: safe to format"}}}
	require.NoError(t, opts.AfterJob(context.Background(), sum, nil))
	var w bytes.Buffer
	j.Finish(context.Background(), &w, sum, nil)
	msgs := hook.Got()
	require.Equal(t, []string{"safe_to_format A001", "job_done"}, e2e.KindsOf(msgs))
	att := msgs[1]["attachments"].([]any)[0].(map[string]any)
	require.Equal(t, filepath.Join(rdir, "dit-report_job5_day05.pdf"), att["path"])

	hook2 := e2e.NewNotifyHook(t)
	opts = offload.Options{}
	j = notifyJob(notifyTestConfig(hook2.URL), &opts)
	j.Finish(context.Background(), &w, nil, os.ErrPermission)
	require.Equal(t, []string{"failure"}, e2e.KindsOf(hook2.Got()))
	require.Contains(t, hook2.Got()[0]["text"], "The job stopped: permission denied")

	var none *jobNotify // nothing configured
	none.Finish(context.Background(), &w, sum, nil)
	require.Empty(t, w.String())
}

// "" is the user's config file, which may be absent; "none" is off.
func TestNotifyConfigDefaultPath(t *testing.T) {
	xdg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", xdg)
	t.Setenv("HOME", xdg)
	cfg, err := loadNotifyConfig("")
	require.NoError(t, err)
	require.True(t, cfg.Empty())
	require.NoError(t, os.MkdirAll(filepath.Join(xdg, "dit"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(xdg, "dit", "config.yaml"), []byte("notify:\n  webhook:\n    url: http://127.0.0.1:9/x\n"), 0o644))
	if p, _ := notify.DefaultPath(); p == filepath.Join(xdg, "dit", "config.yaml") {
		cfg, err = loadNotifyConfig("")
		require.NoError(t, err)
		require.Len(t, cfg.Webhooks, 1)
	}
	cfg, err = loadNotifyConfig("none")
	require.NoError(t, err)
	require.True(t, cfg.Empty())
	_, err = loadNotifyConfig(filepath.Join(xdg, "missing.yaml"))
	require.ErrorContains(t, err, "missing.yaml")
}
