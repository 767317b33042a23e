package main

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/termview"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/verdict"
)

// Warnings reach a person: as lines while the job runs (plain and bars)
// and again in the summary.
func TestWarningsArePrinted(t *testing.T) {
	msg := `array "cart": a.mov: stripe 0 position 1 (blade role 1) rebuilt from parity (repaired-on-read)`
	var plain bytes.Buffer
	p := &plainPrinter{w: &plain}
	p.Event(offload.Event{Type: offload.EvWarning, Time: time.Now(), Message: msg})
	p.Event(offload.Event{Type: offload.EvWarning, Time: time.Now(), Card: "A001", Message: "sealing: disk full"})
	require.Equal(t, "warning: "+msg+"\nA001: warning: sealing: disk full\n", plain.String())

	var tty bytes.Buffer
	tp := termview.New(&tty)
	tp.Event(offload.Event{Type: offload.EvWarning, Message: msg})
	require.Equal(t, "warning: "+msg+"\n", tty.String())

	var sum bytes.Buffer
	writeSummary(&sum, &offload.Summary{JobID: 3, State: "done", Warnings: []string{msg}}, "/tmp/c.db", "", nil)
	require.Contains(t, sum.String(), "Warnings:\n  "+msg+"\n")
}

// The next step fits what is wrong: files changed on the card since their
// copies were verified are not copied again by a resume (a new job);
// failed files and unwritten hash lists are both named; the commands
// printed carry the catalog the command was given.
func TestNextStepSaysWhatHelps(t *testing.T) {
	g := &GlobalOptions{DB: "/srv/carts/cart2.db"}
	changed := []offload.CardSummary{{CardFigures: offload.CardFigures{Label: "A001", Failed: 1}, State: "failed", Failures: []offload.Failure{{Path: "CLIPS/C001.mov", Error: offload.ChangedSinceVerified + " (size 1 -> 2)"}},
		Advice: offload.CardAdvice{Changed: 1}}}
	msg := nextStep(g, 4, "done", changed)
	require.Contains(t, msg, "offload the card as a new job")
	require.NotContains(t, msg, "--resume")

	both := []offload.CardSummary{{CardFigures: offload.CardFigures{Label: "A001", Failed: 2}, State: "sealing"}}
	msg = nextStep(g, 4, "done", both)
	require.Contains(t, msg, "2 file(s) failed")
	require.Contains(t, msg, "hash lists of 1 card(s) are not written")
	require.Contains(t, msg, "dit offload --resume 4 --db /srv/carts/cart2.db")

	// A cloud history held back by a failed upload (a cascade's second
	// run here): the resume writes it. One written by this job before
	// files were added: only another job, to another folder.
	waits := []offload.CardSummary{{CardFigures: offload.CardFigures{Label: "A001"}, State: "verified", Then: &offload.HopSummary{State: "sealing", Failed: 1,
		Failures: []offload.Failure{{Path: "clip.mov", Error: "upload failed"}, {Path: "(hash lists)", Error: offload.HistoryWaits + "rclone:s3:show/day01/A001: 1 file not verified there (clip.mov): ..."}},
		Advice:   offload.CardAdvice{HistoryWaits: true}}}}
	require.Equal(t, "the cloud history of 1 card(s) waits for files not verified there: once the cause is fixed (see above), upload them and write it with: dit offload --resume 4 --db /srv/carts/cart2.db",
		nextStep(g, 4, "done", waits))
	written := []offload.CardSummary{{CardFigures: offload.CardFigures{Label: "A001"}, State: "sealing",
		Failures: []offload.Failure{{Path: "(hash lists)", Error: "hash lists not written in rclone:s3:show/day01/A001: rclone:s3:show/day01/A001/ascmhl " + offload.HistoryWritten + " once ..."}},
		Advice:   offload.CardAdvice{HistoryWritten: true}}}
	require.Equal(t, "the cloud history of 1 card(s) was written by this job before and cannot list every file (dit never replaces an object): offload them again to another cloud folder",
		nextStep(g, 4, "done", written))

	var sum bytes.Buffer
	writeSummary(&sum, &offload.Summary{JobID: 4, State: "done"}, g.DB, "", g)
	require.Contains(t, sum.String(), "(dit job show 4 --db /srv/carts/cart2.db)")
}

// The plain printer's card line has no trailing space or empty text.
func TestPlainCardDone(t *testing.T) {
	var b bytes.Buffer
	p := &plainPrinter{w: &b}
	p.Event(offload.Event{Type: offload.EvCardDone, Card: "A002", State: verdict.Safe, Message: "Verified: safe to format"})
	p.Event(offload.Event{Type: offload.EvCardDone, Card: "A003", State: verdict.Failed, Message: "FAILED: NOT safe to format: 2 file(s) failed"})
	require.Equal(t, "A002: Verified: safe to format\nA003: FAILED: NOT safe to format: 2 file(s) failed\n", b.String())
}

// A resumed job's line gives the bytes read from the cards as the model
// counts them (offload.JobFigures.BytesCopied: read to be written, not
// read only to check a copy already there) and says so: a resume that
// only checked the card's files against the cloud says 0 B read to be
// copied, not 0 B read.
func TestResumedLineSaysWhatItCounts(t *testing.T) {
	for _, c := range []struct {
		copied int64
		want   string
	}{
		{0, "  resumed: ran 1m30s in 2 runs, paused 10m00s; 0 B read from the cards to be copied, in all runs\n"},
		{2_500_000_000, "  resumed: ran 1m30s in 2 runs, paused 10m00s; 2.50 GB read from the cards to be copied, in all runs\n"},
	} {
		var b bytes.Buffer
		s := &offload.Summary{JobID: 5, State: "done"}
		s.Runs, s.ActiveSeconds, s.PausedSeconds, s.BytesCopied = 2, 90, 600, c.copied
		writeSummary(&b, s, "/tmp/c.db", "", nil)
		require.Contains(t, b.String(), c.want)
		require.NotContains(t, b.String(), "read from the cards in all")
	}
}

// A card with more failed files than its summary lists: the summary
// prints the listed ones and says how many more failed, with the command
// that lists them all, the card's count being the true one.
func TestSummarySaysFailuresLeftOut(t *testing.T) {
	g := &GlobalOptions{DB: "/srv/carts/cart2.db"}
	var fs []offload.Failure
	for i := range 100 {
		fs = append(fs, offload.Failure{Path: fmt.Sprintf("CLIPS/C%07d.ari", i), Error: "reading the card: input/output error"})
	}
	fs = append(fs, offload.Failure{Path: "(hash lists)", Error: "hash lists not written"})
	s := &offload.Summary{JobID: 7, State: "done", Cards: []offload.CardSummary{{CardFigures: offload.CardFigures{Label: "A001", Files: 1_000_000, Failed: 1_000_000},
		Failures: fs, FailuresMore: 999_900}}}
	var b bytes.Buffer
	writeSummary(&b, s, g.DB, "", g)
	out := b.String()
	require.Contains(t, out, "1000000 failed")
	require.Contains(t, out, "FAILED 100 files (CLIPS/C0000000.ari ... CLIPS/C0000099.ari): reading the card: input/output error\n")
	require.Contains(t, out, "FAILED (hash lists): hash lists not written\n")
	require.Contains(t, out, "      ... and 999900 more failed files, not listed here: dit job show 7 --db /srv/carts/cart2.db lists them all\n")
	require.Contains(t, out, "1000000 file(s) failed")
}
