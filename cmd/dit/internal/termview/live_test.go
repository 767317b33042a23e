package termview

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mattn/go-runewidth"
	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/live"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/verdict"
)

// fakeJob is a running job as the live display reads it: the live
// model's snapshot.
type fakeJob struct {
	mu    sync.Mutex
	job   live.Job
	cards []offload.CardProgress
}

func (f *fakeJob) ID() int64    { return 12 }
func (f *fakeJob) Name() string { return "Day01" }
func (f *fakeJob) Snapshot() offload.Progress {
	f.mu.Lock()
	defer f.mu.Unlock()
	return offload.Progress{Job: f.job, Cards: append([]offload.CardProgress(nil), f.cards...)}
}
func (f *fakeJob) set(cards ...offload.CardProgress) {
	f.mu.Lock()
	f.cards = cards
	f.mu.Unlock()
}
func (f *fakeJob) setJob(j live.Job) {
	f.mu.Lock()
	f.job = j
	f.mu.Unlock()
}

// safeIn is a card's estimates without a cascade: free when safe.
func safeIn(copied, safe float64) live.Times {
	return live.Times{Copied: live.In(copied), CardFree: live.In(safe), Safe: live.In(safe)}
}

// frames records what mpb writes: one Write per frame.
type frames struct {
	mu  sync.Mutex
	all []string
}

func (f *frames) Write(b []byte) (int, error) {
	f.mu.Lock()
	f.all = append(f.all, string(b))
	f.mu.Unlock()
	return len(b), nil
}

func (f *frames) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.all)
}

// text is every frame without its escapes: what went to the screen,
// lines written above the bars included.
func (f *frames) text() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return ansi.ReplaceAllString(strings.Join(f.all, ""), "")
}

var ansi = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]`)

// lines is frame i without its escapes, as lines.
func (f *frames) lines(t *testing.T, i int) []string {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if i < 0 {
		i += len(f.all)
	}
	require.True(t, i >= 0 && i < len(f.all), "no frame %d of %d", i, len(f.all))
	return strings.Split(strings.TrimSuffix(ansi.ReplaceAllString(f.all[i], ""), "\n"), "\n")
}

// next waits for a frame drawn wholly after now and returns it. The wait
// has no deadline of its own (the test binary's -timeout bounds it); a
// long one says what it waits for.
func (f *frames) next(t *testing.T) []string {
	t.Helper()
	n := f.count()
	start, said := time.Now(), time.Now()
	for f.count() < n+2 {
		if time.Since(said) >= 30*time.Second {
			said = time.Now()
			msg := fmt.Sprintf("%s: still waiting for a progress frame after %s", t.Name(), time.Since(start).Round(time.Second))
			fmt.Fprintln(os.Stderr, msg)
			t.Log(msg)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return f.lines(t, -1)
}

type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

const gb = 1_000_000_000

// line returns the line of frame that starts with label.
func line(t *testing.T, frame []string, label string) string {
	t.Helper()
	for _, l := range frame {
		if strings.HasPrefix(l, label+" ") {
			return l
		}
	}
	t.Fatalf("no line for %s in\n%s", label, strings.Join(frame, "\n"))
	return ""
}

func checkFrame(t *testing.T, frame []string, width int) {
	t.Helper()
	for _, l := range frame {
		require.LessOrEqual(t, runewidth.StringWidth(l), width, "line longer than %d columns: %q", width, l)
		require.NotContains(t, l, "[-]")
		require.NotContains(t, l, "[]")
		require.NotContains(t, l, "…", "a line was cut: %q", l)
	}
}

// The live display at 60, 80 and 120 columns: a header with the job,
// its live TB/hour, rate and estimate until safe; per card its phase and
// the phase's own percentage, files, rate and the model's estimate; a bar
// only where there is room (never "[-]"); a card with nothing to copy
// because it was verified before says so; the last frame shows how each
// card ended.
func TestProgressRendering(t *testing.T) {
	for _, width := range []int{60, 80, 120} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			clk := &fakeClock{t: time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)}
			job := &fakeJob{}
			// A001 copies (half its read-back already done: the copy's own
			// percentage is shown, not a mix); A002 reads back; A003 was
			// verified by an earlier run of the job: nothing to copy.
			a1 := offload.CardProgress{Label: "A001", Phase: live.Copying, Files: 250, FilesDone: 100, Bytes: 2 * gb, BytesCopied: 800_000_000, ReadBack: live.ReadBack{VerifyTotal: 4 * gb, BytesVerified: 1 * gb}}
			a2 := offload.CardProgress{Label: "A002_C007", Phase: live.Verifying, Files: 1200, FilesDone: 100, Bytes: 1 * gb, BytesCopied: 1 * gb, ReadBack: live.ReadBack{VerifyTotal: 2 * gb, BytesVerified: 200_000_000}}
			a3 := offload.CardProgress{Label: "A003", Phase: live.Copying, Files: 9, FilesDone: 9}
			job.set(a1, a2, a3)
			var out frames
			tp := &Live{w: &out, width: width, refresh: 5 * time.Millisecond, poll: -1, now: clk.Now}
			tp.Start(job)
			tp.Event(offload.Event{Type: offload.EvRunDone, Card: "A003", State: verdict.Verified})

			clk.add(2 * time.Second)
			a1.BytesCopied, a1.BytesVerified, a1.FilesDone = 940_000_000, 1_300_000_000, 120
			a2.BytesVerified, a2.FilesDone = 240_000_000, 130
			// The model's rates and estimates, which every front end shows
			// as they are.
			a1.Rate, a2.Rate = 70e6, 20e6
			a1.ETA, a2.ETA = safeIn(9, 17.09), safeIn(0, 88)
			j := live.Job{Rate: 90e6, TBPerHour: 0.324, Cards: 3, Copied: 2, Bytes: 3 * gb, BytesCopied: 1_940_000_000, ETA: safeIn(9, 88)}
			tp.Event(offload.Event{Type: offload.EvProgress, Progress: &offload.Progress{Job: j, Cards: []offload.CardProgress{a1, a2, a3}}})

			frame := out.next(t)
			t.Logf("running, %d columns:\n%s", width, strings.Join(frame, "\n"))
			checkFrame(t, frame, width)
			require.Len(t, frame, 4)
			head := frame[0]
			require.Contains(t, head, `job 12 "Day01"`)
			require.Contains(t, head, "0.324 TB/hour")
			require.Contains(t, head, "90.0 MB/s")
			require.Contains(t, head, "all safe in 1m28s") // the job's estimate, not the display's
			l1 := line(t, frame, "A001")
			require.Contains(t, l1, "copying")
			require.Contains(t, l1, "47.0 %") // 940 MB of 2 GB copied
			require.Contains(t, l1, "120/250")
			require.Contains(t, l1, "70.0 MB/s")
			require.Contains(t, l1, "18s") // 17.09 s left, rounded up
			l2 := line(t, frame, "A002_C007")
			require.Contains(t, l2, "verifying")
			require.Contains(t, l2, "12.0 %") // 240 MB of 2 GB read back
			require.Contains(t, l2, "130/1200")
			l3 := line(t, frame, "A003")
			require.Contains(t, l3, "done")
			require.Contains(t, l3, "(verified before)")
			require.NotContains(t, l3, "%")
			if width >= 80 {
				require.Regexp(t, `\[=+>?-+\]`, l1, "a bar at %d columns", width)
				require.Contains(t, l1, "safe in 18s")
				require.Contains(t, l2, "safe in 1m28s")
			}
			if width >= 120 {
				require.Contains(t, l1, "files")
			}
			if m := regexp.MustCompile(`\[[^\]]*\]`).FindString(l1); m != "" {
				require.GreaterOrEqual(t, len(m), 10, "a bar too short to read: %q", m)
			}

			// The job ends: A001 verified, A002 with a failed file. The last
			// frame says so; nothing stays at "verifying".
			clk.add(90 * time.Second)
			a1 = offload.CardProgress{Label: "A001", Phase: live.Done, Files: 250, FilesDone: 250, Bytes: 2 * gb, BytesCopied: 2 * gb, ReadBack: live.ReadBack{VerifyTotal: 4 * gb, BytesVerified: 4 * gb}}
			a2 = offload.CardProgress{Label: "A002_C007", Phase: live.Done, Files: 1200, FilesDone: 1200, FilesFailed: 1, Bytes: 1 * gb, BytesCopied: 1 * gb, ReadBack: live.ReadBack{VerifyTotal: 2 * gb, BytesVerified: 2 * gb}}
			job.set(a1, a2, a3)
			tp.Event(offload.Event{Type: offload.EvRunDone, Card: "A001", State: verdict.Verified})
			tp.Event(offload.Event{Type: offload.EvRunDone, Card: "A002_C007", State: verdict.Failed, Message: "1 file(s) failed"})
			tp.Stop()
			frame = out.lines(t, -1)
			t.Logf("final, %d columns:\n%s", width, strings.Join(frame, "\n"))
			checkFrame(t, frame, width)
			require.Contains(t, frame[0], `job 12 "Day01"`)
			require.Contains(t, frame[0], "ran 1m32s")
			l1 = line(t, frame, "A001")
			require.Contains(t, l1, "verified")
			require.Contains(t, l1, "100.0 %")
			require.Contains(t, l1, "250/250")
			l2 = line(t, frame, "A002_C007")
			require.Contains(t, l2, "failed")
			require.Contains(t, l2, "1 file(s) failed")
			require.NotContains(t, l2, "100")
			require.NotContains(t, strings.Join(frame, "\n"), "verifying")
			require.Contains(t, line(t, frame, "A003"), "done")
		})
	}
}

// What the model cannot say, the lines do not guess: "ETA unknown" on the
// card and in the header; a stalled card shows the engine's words for
// why instead of an estimate, and the stall and the move are said above
// the lines; a cascade's card says when it is free and when safe, its
// second run is named as such; no percentage passes 100 even when the
// counts do.
func TestLiveRendersModel(t *testing.T) {
	job := &fakeJob{}
	stall := &live.Stall{Where: "/mnt/raid", Cause: "s3: connection refused", Retry: 3, Retries: 10, Seconds: 40}
	cards := []offload.CardProgress{
		{Label: "A001", Phase: live.Copying, Files: 10, FilesDone: 2, Bytes: 10 * gb, BytesCopied: 2 * gb, Rate: 1e6, ReadBack: live.ReadBack{VerifyTotal: 10 * gb}},
		{Label: "A002", Phase: live.Copying, Files: 10, FilesDone: 4, Bytes: 10 * gb, BytesCopied: 4 * gb, Stall: stall, ReadBack: live.ReadBack{VerifyTotal: 10 * gb}},
		{Label: "A003", Phase: live.Verifying, Files: 10, FilesDone: 9, Bytes: 10 * gb, BytesCopied: 10 * gb, Rate: 300e6,
			ETA: live.Times{Copied: live.In(0), CardFree: live.In(5), Safe: live.In(125)}, ReadBack: live.ReadBack{VerifyTotal: 10 * gb, BytesVerified: 9 * gb}},
		{Label: "A004", Hop: 2, Phase: live.Copying, Files: 10, FilesDone: 1, Bytes: 10 * gb, BytesCopied: 12 * gb, Rate: 200e6,
			ETA: live.Times{Copied: live.In(0), CardFree: live.In(0), Safe: live.In(65)}, ReadBack: live.ReadBack{VerifyTotal: 10 * gb}},
	}
	job.set(cards...)
	job.setJob(live.Job{Rate: 501e6, TBPerHour: 1.804, Cards: 4, Stalled: 1})
	var out frames
	tp := &Live{w: &out, width: 120, refresh: 5 * time.Millisecond, poll: -1}
	tp.Start(job)
	tp.Event(offload.Event{Type: offload.EvStalled, Card: "A002", Path: "/mnt/raid", Message: stall.String()})
	frame := out.next(t)
	t.Logf("\n%s", strings.Join(frame, "\n"))
	require.Contains(t, out.text(), "A002: STALLED at /mnt/raid: s3: connection refused, retry 3 of 10, since 40s\n")
	head := frame[len(frame)-5]
	require.Contains(t, head, "3 cards, 4 runs: 3 copying, 1 verifying")
	require.Contains(t, head, "1.804 TB/hour")
	require.Contains(t, head, "0.501 GB/s")
	require.Contains(t, head, "1 STALLED")
	require.Contains(t, head, "ETA unknown")
	require.Contains(t, line(t, frame, "A001"), "ETA unknown")
	l2 := line(t, frame, "A002")
	require.Contains(t, l2, "40.0 %")
	require.Contains(t, l2, "STALLED: s3: connection refused, retry 3 of 10, since 40s")
	require.NotContains(t, l2, "ETA")
	require.Contains(t, line(t, frame, "A003"), "free in 5s, safe in 2m05s")
	l4 := line(t, frame, "A004 (2nd run)")
	require.Contains(t, l4, "safe in 1m05s")
	require.NotContains(t, l4, "free")
	require.Contains(t, l4, "100.0 %") // 12 GB "copied" of 10: capped
	for _, l := range frame {
		for _, m := range regexp.MustCompile(`(\d+\.\d) %`).FindAllStringSubmatch(l, -1) {
			var v float64
			fmt.Sscan(m[1], &v)
			require.LessOrEqual(t, v, 100.0, l)
		}
	}

	tp.Event(offload.Event{Type: offload.EvMoving, Card: "A002"})
	tp.Event(offload.Event{Type: offload.EvStalled, Card: "A004", Hop: 2, Path: "card", Message: "no data from the card, since 10s"})
	tp.Stop()
	require.Contains(t, out.text(), "A002: moving again\n")
	require.Contains(t, out.text(), "A004 (2nd run): STALLED: no data from the card, since 10s\n")
}

// A card's lines while it seals, waits, or has nothing to copy; how a
// stopped card ended.
func TestProgressPhases(t *testing.T) {
	job := &fakeJob{}
	job.set(
		offload.CardProgress{Label: "A001", Phase: live.Sealing, Files: 3, FilesDone: 3, Bytes: 10, BytesCopied: 10, ReadBack: live.ReadBack{VerifyTotal: 20, BytesVerified: 20}},
		offload.CardProgress{Label: "A002", Phase: live.Queued, Files: 4, Bytes: 10},
		offload.CardProgress{Label: "A003", Phase: live.Verifying, Files: 5, FilesDone: 4, Bytes: 10, BytesCopied: 10, ReadBack: live.ReadBack{VerifyTotal: 10_000, BytesVerified: 9_999}},
	)
	job.setJob(live.Job{Cards: 3, Copied: 2})
	var out frames
	tp := &Live{w: &out, width: 80, refresh: 5 * time.Millisecond, poll: -1}
	tp.Start(job)
	frame := out.next(t)
	checkFrame(t, frame, 80)
	require.Contains(t, line(t, frame, "A001"), "sealing")
	require.Contains(t, line(t, frame, "A001"), "writing hash lists")
	require.Contains(t, line(t, frame, "A002"), "queued")
	require.Contains(t, line(t, frame, "A002"), "waiting")
	require.Contains(t, line(t, frame, "A003"), "99.9 %") // 100 % only when all is read back
	require.Contains(t, line(t, frame, "A003"), "ETA unknown")
	require.Contains(t, frame[0], "ETA unknown") // nothing measured, nothing planned
	require.Contains(t, frame[0], "3 cards: 1 queued, 1 verifying, 1 sealing")

	tp.Event(offload.Event{Type: offload.EvRunDone, Card: "A001", State: verdict.Sealing, Message: "disk full"})
	tp.Event(offload.Event{Type: offload.EvRunDone, Card: "A002", State: verdict.Interrupted})
	tp.Event(offload.Event{Type: offload.EvRunDone, Card: "A003", State: verdict.Interrupted})
	tp.Stop()
	frame = out.lines(t, -1)
	checkFrame(t, frame, 80)
	require.Contains(t, line(t, frame, "A001"), "hash lists not written: disk full")
	require.Contains(t, line(t, frame, "A002"), "interrupted")
	require.Contains(t, line(t, frame, "A003"), "stopped while reading back, at 99.9 %")
}

func TestPercent(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{{0, "0.0 %"}, {99.99, "99.9 %"}, {100, "100.0 %"}, {100.0 / 3, "33.3 %"}, {47, "47.0 %"}, {140, "100.0 %"}} {
		got, _ := pctText(c.v)
		require.Equal(t, c.want, got)
	}
}

// The plain lines give the phase's own percentage and the model's
// estimate or stall; the job's line its figures.
func TestPlainLine(t *testing.T) {
	l := PlainLine(offload.CardProgress{Label: "A001", Phase: live.Verifying, Files: 2, FilesDone: 1, Bytes: 100, BytesCopied: 100,
		Rate: 2e6, ETA: safeIn(0, 65), ReadBack: live.ReadBack{VerifyTotal: 200, BytesVerified: 50}})
	require.Contains(t, l, "verifying 25.0 %")
	require.Contains(t, l, "1/2 files")
	require.Contains(t, l, "2.0 MB/s  safe in 1m05s")
	l = PlainLine(offload.CardProgress{Label: "A001", Hop: 2, Phase: live.Copying, Files: 2, Bytes: 100, BytesCopied: 10,
		Stall: &live.Stall{Where: "card", Cause: "no data from the card", Seconds: 12}})
	require.Contains(t, l, "A001 (2nd run) copying   10.0 %  STALLED: no data from the card, since 12s")
	require.NotContains(t, l, "ETA")
	require.Equal(t, "job 4: 1/2 cards copied, 0.720 TB/hour, 0.200 GB/s, all safe in 2m00s",
		PlainJobLine(4, live.Job{Cards: 2, Copied: 1, TBPerHour: 0.72, Rate: 200e6, ETA: safeIn(30, 120)}))
	require.Equal(t, "job 4: 0/2 cards copied, ETA unknown", PlainJobLine(4, live.Job{Cards: 2}))
	// A cascade: free, then safe; once every card is free, safe only.
	cascade := live.Times{Copied: live.In(9), CardFree: live.In(15), Safe: live.In(44)}
	require.Equal(t, "job 4: 0/2 cards copied, all free in 15s, safe in 44s", PlainJobLine(4, live.Job{Cards: 2, ETA: cascade}))
	cascade.CardFree = live.In(0)
	require.Equal(t, "job 4: 2/2 cards copied, all safe in 44s", PlainJobLine(4, live.Job{Cards: 2, Copied: 2, ETA: cascade}))
	cascade.Safe = live.Estimate{}
	require.Equal(t, "job 4: 2/2 cards copied, ETA unknown", PlainJobLine(4, live.Job{Cards: 2, Copied: 2, ETA: cascade}))
}

// dit verify says how far it is: on a terminal a line fitted to the width,
// otherwise a line every few seconds; copies that differ go to stdout.
func TestVerifyProgress(t *testing.T) {
	for _, width := range []int{60, 80, 120} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			clk := &fakeClock{t: time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)}
			var errw frames
			var out bytes.Buffer
			v := &Verify{w: &errw, out: &out, job: 12, tty: true, width: width, refresh: 5 * time.Millisecond, now: clk.Now}
			v.Set(offload.RecheckProgress{Copies: 500, Bytes: 40 * gb})
			clk.add(4 * time.Second)
			// The engine's rate and estimate (live.Meter).
			v.Set(offload.RecheckProgress{Copies: 500, CopiesDone: 120, Bytes: 40 * gb, BytesRead: 1_640_000_000, Rate: 410e6, ETA: live.In(93.56)})
			v.Result("failed /d/A001/a.mov: md5 differs")
			frame := errw.next(t)
			t.Logf("dit verify, %d columns:\n%s", width, strings.Join(frame, "\n"))
			checkFrame(t, frame, width)
			last := frame[len(frame)-1]
			require.Contains(t, last, "job 12 reading back")
			require.Contains(t, last, "120/500 copies")
			require.Contains(t, last, "4.1 %")
			require.Contains(t, last, "ETA 1m34s") // 38.36 GB at 410 MB/s
			if width >= 80 {
				require.Contains(t, last, "0.410 GB/s")
			}
			require.Equal(t, "failed /d/A001/a.mov: md5 differs\n", out.String())
			v.Set(offload.RecheckProgress{Copies: 500, CopiesDone: 500, Bytes: 40 * gb, BytesRead: 40 * gb})
			v.Stop()
			frame = errw.lines(t, -1)
			checkFrame(t, frame, width)
			require.Contains(t, frame[len(frame)-1], "500/500 copies  100.0 %")
		})
	}

	clk := &fakeClock{t: time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)}
	var errw, out bytes.Buffer
	v := &Verify{w: &errw, out: &out, job: 3, every: 5 * time.Second, now: clk.Now}
	v.Set(offload.RecheckProgress{Copies: 4, Bytes: 4 * gb})
	for i := 1; i <= 4; i++ {
		clk.add(3 * time.Second)
		read := int64(i) * gb / 2
		v.Set(offload.RecheckProgress{Copies: 4, CopiesDone: i - 1, Bytes: 4 * gb, BytesRead: read, Rate: 1.0 / 6 * gb, ETA: live.In(float64(4*gb-read) / (1.0 / 6 * gb))})
	}
	v.Stop()
	require.Equal(t, "dit verify: job 3: reading back 4 copies, 4.00 GB\n"+
		"dit verify: job 3: 1/4 copies, 1.00 GB of 4.00 GB read back (25.0 %), 0.167 GB/s, ETA 18s\n"+
		"dit verify: job 3: 3/4 copies, 2.00 GB of 4.00 GB read back (50.0 %), 0.167 GB/s, ETA 12s\n", errw.String())
}

// Many files failing for one card-wide reason are said once, then counted
// when the card's run ends; file-specific reasons are each said.
func TestFailuresSaidOnce(t *testing.T) {
	var f Failures
	gone := "card read failed (input/output error)"
	require.Equal(t, "A001: FAILED a.mov: "+gone, f.Line(offload.Event{Card: "A001", Path: "a.mov", Message: gone}))
	require.Empty(t, f.Line(offload.Event{Card: "A001", Path: "b.mov", Message: gone}))
	require.Empty(t, f.Line(offload.Event{Card: "A001", Path: "c.mov", Message: gone}))
	require.Equal(t, "A002: FAILED a.mov: "+gone, f.Line(offload.Event{Card: "A002", Path: "a.mov", Message: gone}))
	require.Equal(t, "A001: FAILED d.mov: md5 differs", f.Line(offload.Event{Card: "A001", Path: "d.mov", Message: "md5 differs"}))
	require.Equal(t, "A001: FAILED e.mov: md5 differs", f.Line(offload.Event{Card: "A001", Path: "e.mov", Message: "md5 differs"}))
	require.Equal(t, "A001: 3 files FAILED, all for the reason above (card read failed)", f.CardDone("A001", 0))
	require.Empty(t, f.CardDone("A002", 0))
	require.Empty(t, f.CardDone("A001", 2), "the second run's are its own")
	require.Equal(t, "A001 (2nd run): FAILED a.mov: md5 differs", f.Line(offload.Event{Card: "A001", Hop: 2, Path: "a.mov", Message: "md5 differs"}))
	require.Equal(t, "A003: warning: disk slow", WarningLine(offload.Event{Card: "A003", Message: "disk slow"}))
}

// dit verify's first line says what it reads back and the cloud copies it
// checks, not yet how (the storage's checksum may be missing: then they
// are read back), and counts only bytes read back.
func TestVerifyStartLineCloud(t *testing.T) {
	for _, c := range []struct {
		p    offload.RecheckProgress
		want string
	}{
		{offload.RecheckProgress{Copies: 4, Bytes: 2_000_000}, "job 7: reading back 4 copies, 2.00 MB"},
		{offload.RecheckProgress{Copies: 52, Checked: 52}, "job 7: checking 52 cloud copies"},
		{offload.RecheckProgress{Copies: 6, Checked: 3, Bytes: 3_000_000}, "job 7: reading back 3 copies, 3.00 MB; checking 3 cloud copies"},
	} {
		if got := verifyStartLine(7, c.p); got != c.want {
			t.Errorf("verifyStartLine(%+v) = %q, want %q", c.p, got, c.want)
		}
	}
}

// Without a terminal, a dit verify of cloud copies ends with a line that
// says how they were checked: by the storage's checksum from a listing
// (S3), read back (a remote that gives none: each moves to the bytes
// read back when its turn comes), or some of each.
func TestVerifyCloudSaysHowAtTheEnd(t *testing.T) {
	for _, c := range []struct {
		name string
		end  offload.RecheckProgress
		want string
	}{
		{"listing", offload.RecheckProgress{Copies: 7, CopiesDone: 7, Checked: 7},
			"dit verify: job 7: 7/7 copies checked, by the storage's checksum (listing)\n"},
		{"read back", offload.RecheckProgress{Copies: 7, CopiesDone: 7, Bytes: 20_000_000, BytesRead: 20_000_000},
			"dit verify: job 7: 7/7 copies, 20.0 MB of 20.0 MB read back (100.0 %)\n"},
		{"both", offload.RecheckProgress{Copies: 7, CopiesDone: 7, Checked: 4, Bytes: 3_000_000, BytesRead: 3_000_000},
			"dit verify: job 7: 7/7 copies, 3.00 MB of 3.00 MB read back (100.0 %), 4 by the storage's checksum (listing)\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			clk := &fakeClock{t: time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)}
			var errw, out bytes.Buffer
			v := &Verify{w: &errw, out: &out, job: 7, every: 5 * time.Second, now: clk.Now}
			v.Set(offload.RecheckProgress{Copies: 7, Checked: 7})
			clk.add(time.Second)
			v.Set(c.end)
			v.Stop()
			require.Equal(t, "dit verify: job 7: checking 7 cloud copies\n"+c.want, errw.String())
		})
	}
}

// A cascade's card that is free says it is not safe, not a percentage.
func TestFreeRow(t *testing.T) {
	cv := &cardState{Card: live.Card{Label: "A001", Phase: live.Done, Files: 3, FilesDone: 3, Bytes: 10, BytesCopied: 10, ReadBack: live.ReadBack{VerifyTotal: 10, BytesVerified: 10}},
		ended: true, final: verdict.CardFree}
	r := cv.row()
	require.Equal(t, "free", r.phase)
	require.Equal(t, "NOT safe to format until its second run is verified", r.text)
	require.Empty(t, r.pct)
	cv.final = verdict.Safe
	r = cv.row()
	require.Equal(t, "SAFE", r.phase)
	require.Equal(t, "100.0 %", r.pct)
}
