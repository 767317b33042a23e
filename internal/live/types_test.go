package live

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"
)

func TestEstimateJSON(t *testing.T) {
	b, _ := json.Marshal(Times{Copied: In(12.34), Safe: Estimate{}})
	if string(b) != `{"copied_s":12.3,"card_free_s":null,"safe_s":null}` {
		t.Fatalf("got %s", b)
	}
	var back Times
	if err := json.Unmarshal(b, &back); err != nil || !back.Copied.Known || back.Copied.Seconds != 12.3 || back.Safe.Known {
		t.Fatalf("read back %+v %v", back, err)
	}
	if In(-3).Seconds != 0 || (Estimate{}).String() != "unknown" || In(65).String() != "1m05s" {
		t.Fatal("estimate words")
	}
}

func TestStallWords(t *testing.T) {
	s := &Stall{Cause: "s3: connection refused", Retry: 3, Retries: 10, Seconds: 40.4}
	if got := s.String(); got != "s3: connection refused, retry 3 of 10, since 40s" {
		t.Fatalf("got %q", got)
	}
}

// Retried bytes are counted apart: a run's figures never pass its size.
func TestProgressNeverAbove100(t *testing.T) {
	m := NewModel(Config{Verify: true}, t0)
	c := Counters{Key: 1, Label: "A001", Phase: Copying, Files: 1, Bytes: 145e6, BytesCopied: 181e6, BytesResent: 36e6,
		VerifyTotal: 145e6, BytesVerified: 150e6, Dests: []DestCounters{{Dest: "rclone:s3:b", Bytes: 145e6, BytesWritten: 181e6, VerifyTotal: 145e6}}}
	p := m.Tick(t0.Add(time.Second), []Counters{c})
	k := p.Cards[0]
	if k.BytesCopied != 145e6 || k.BytesVerified != 145e6 || k.Dests[0].BytesWritten != 145e6 || k.Percent() != 100 || k.BytesResent != 36e6 {
		t.Fatalf("%+v", k)
	}
}

// The job's TB/hour is what was read over the time active, earlier runs
// included.
func TestJobTBPerHour(t *testing.T) {
	m := NewModel(Config{EarlierBytes: 1e12, EarlierActive: time.Hour}, t0)
	m.Tick(t0.Add(time.Hour), []Counters{{Key: 1, Label: "A", Phase: Copying, Bytes: 3e12, BytesCopied: 1e12}})
	p := m.Last()
	if p.Job.TBPerHour != 1 || p.Job.BytesRead != 2e12 {
		t.Fatalf("%+v", p.Job)
	}
}

// A paused job is held, not stalled: no stall however long it waits,
// its estimates unknown, and it says it is paused.
func TestPausedIsNotStalled(t *testing.T) {
	m := NewModel(Config{Verify: true, Prior: func(string, int) Prior { return Prior{Rate: 1e6} }}, t0)
	c := Counters{Key: 1, Label: "A001", Phase: Copying, Files: 2, FilesToCopy: 2, Bytes: 10e6, BytesCopied: 1e6, VerifyTotal: 10e6,
		Dests: []DestCounters{{Dest: "/d1", State: DestWriting, Bytes: 10e6, BytesWritten: 1e6, VerifyTotal: 10e6}}}
	m.Tick(t0.Add(time.Second), []Counters{c})
	m.Pause(true)
	var p Progress
	for s := 2; s < 60; s++ {
		p = m.Tick(t0.Add(time.Duration(s)*time.Second), []Counters{c})
	}
	if p.Job.Stalled != 0 || p.Cards[0].Stall != nil || !p.Job.Paused || p.Cards[0].ETA.Safe.Known || p.Job.ETA.Safe.Known {
		t.Fatalf("paused: %+v %+v", p.Job, p.Cards[0])
	}
	m.Pause(false)
	p = m.Tick(t0.Add(61*time.Second), []Counters{c})
	if p.Cards[0].Stall != nil || !p.Cards[0].ETA.Safe.Known || p.Job.Paused {
		t.Fatalf("going on: %+v", p.Cards[0])
	}
	for s := 62; s < 75; s++ {
		p = m.Tick(t0.Add(time.Duration(s)*time.Second), []Counters{c})
	}
	if p.Cards[0].Stall == nil {
		t.Fatal("not moving once it went on: a stall")
	}
}

// A card's TB/hour is the bytes its run read from its source (copied and
// sent again) over the seconds it was copying or verifying, 10^12 bytes
// per hour: a tick's interval counts when the run was copying or
// verifying at either end of it; queued and writing its hash lists do
// not count; paused does, as in the job's figure. It stays what it was
// once the run is done.
func TestCardTBPerHour(t *testing.T) {
	m := NewModel(Config{Verify: true}, t0)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	c := Counters{Key: 1, Label: "A001", Phase: Queued, Files: 10, Bytes: 1e9, VerifyTotal: 1e9}
	k := m.Tick(at(1), []Counters{c}).Cards[0]
	if k.ActiveSeconds != 0 || k.TBPerHour != 0 {
		t.Fatalf("queued: %+v", k)
	}
	c.Phase = Copying
	for s := 2; s <= 11; s++ { // 100 MB a second; 50 MB sent again at 6 s; paused from 5 s to 8 s
		c.BytesCopied = int64(s-1) * 100e6
		if s == 6 {
			c.BytesResent = 50e6
		}
		m.Pause(s >= 5 && s < 8)
		k = m.Tick(at(s), []Counters{c}).Cards[0]
		if s == 6 {
			// 5 s counted (1-2 ... 5-6), 550 MB read.
			if want := 550e6 / 5.0 * 3600 / 1e12; k.ActiveSeconds != 5 || math.Abs(k.TBPerHour-want) > 1e-12 {
				t.Fatalf("at 6 s: %+v, want %v TB/hour", k, want)
			}
		}
	}
	m.Pause(false)
	c.Phase = Verifying
	for s := 12; s <= 16; s++ {
		c.BytesVerified = int64(s-11) * 200e6
		m.Tick(at(s), []Counters{c})
	}
	c.Phase = Sealing
	m.Tick(at(17), []Counters{c}) // verifying at its start: counted
	m.Tick(at(18), []Counters{c}) // sealing throughout: not
	c.Phase = Done
	m.Tick(at(19), []Counters{c})
	k = m.Tick(at(30), []Counters{c}).Cards[0]
	want := (1e9 + 50e6) / 16.0 * 3600 / 1e12 // 0.236 TB/hour
	if k.ActiveSeconds != 16 || math.Abs(k.TBPerHour-want) > 1e-12 {
		t.Fatalf("done: active %v s, %v TB/hour; want 16 s, %v", k.ActiveSeconds, k.TBPerHour, want)
	}
	// Between ticks, the last tick's figure.
	if p := m.Peek([]Counters{c}); p.Cards[0].TBPerHour != k.TBPerHour || p.Cards[0].ActiveSeconds != 16 {
		t.Fatalf("peek: %+v", p.Cards[0])
	}
}

// A run's files to read back and read back, on each destination and for
// the run, are in the snapshot, capped at their totals.
func TestFilesReadBackPerDestination(t *testing.T) {
	m := NewModel(Config{Verify: true}, t0)
	c := Counters{Key: 1, Label: "A001", Phase: Verifying, Files: 10, FilesToCopy: 10, FilesCopied: 10, Bytes: 1e6, BytesCopied: 1e6,
		VerifyTotal: 2e6, BytesVerified: 1.5e6, VerifyFiles: 20, FilesVerified: 21,
		Dests: []DestCounters{
			{Dest: "/d1", State: DestVerifying, Bytes: 1e6, BytesWritten: 1e6, VerifyTotal: 1e6, BytesVerified: 1e6, VerifyFiles: 10, FilesVerified: 11},
			{Dest: "/d2", State: DestVerifying, Bytes: 1e6, BytesWritten: 1e6, VerifyTotal: 1e6, BytesVerified: 0.5e6, VerifyFiles: 10, FilesVerified: 4},
		}}
	k := m.Tick(t0.Add(time.Second), []Counters{c}).Cards[0]
	if k.VerifyFiles != 20 || k.FilesVerified != 20 {
		t.Errorf("run: %d of %d files read back", k.FilesVerified, k.VerifyFiles)
	}
	if d := k.Dests[0]; d.VerifyFiles != 10 || d.FilesVerified != 10 {
		t.Errorf("%s: %d of %d files read back", d.Dest, d.FilesVerified, d.VerifyFiles)
	}
	if d := k.Dests[1]; d.VerifyFiles != 10 || d.FilesVerified != 4 {
		t.Errorf("%s: %d of %d files read back", d.Dest, d.FilesVerified, d.VerifyFiles)
	}
}

// The phases after the read-back are counted and never pass their
// totals: a seal that walks its files twice, proxies reported past the
// clips to make; in JSON as seal_files, files_sealed, proxies,
// proxies_made; while sealing the phase's part is its files named.
func TestAfterCountsCapped(t *testing.T) {
	m := NewModel(Config{Verify: true}, t0)
	c := Counters{Key: 1, Label: "A001", Phase: Sealing, Files: 4, Bytes: 4e6, BytesCopied: 4e6, VerifyTotal: 8e6, BytesVerified: 8e6,
		After: After{SealFiles: 8, FilesSealed: 3, Proxies: 2, ProxiesMade: 5}}
	k := m.Tick(t0.Add(time.Second), []Counters{c}).Cards[0]
	if k.SealFiles != 8 || k.FilesSealed != 3 || k.Proxies != 2 || k.ProxiesMade != 2 {
		t.Fatalf("%+v", k.After)
	}
	if k.PhasePercent() != 37.5 {
		t.Fatalf("sealing 3 of 8 files: %v %%", k.PhasePercent())
	}
	c.FilesSealed = 12
	k = m.Tick(t0.Add(2*time.Second), []Counters{c}).Cards[0]
	if k.FilesSealed != 8 || k.PhasePercent() != 100 {
		t.Fatalf("%+v %v", k.After, k.PhasePercent())
	}
	b, _ := json.Marshal(k)
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got["seal_files"] != 8.0 || got["files_sealed"] != 8.0 || got["proxies"] != 2.0 || got["proxies_made"] != 2.0 {
		t.Fatalf("%s", b)
	}
	b, _ = json.Marshal(Card{Label: "B"})
	if strings.Contains(string(b), "seal") || strings.Contains(string(b), "prox") {
		t.Fatalf("a run with no seal or proxies counted omits them: %s", b)
	}
}

// A card writing its hash lists moves while the seal's walks go on, even
// once the first walk named every file (a seal walks the card's files
// more than once): no stall. One whose seal stops is stalled, with words
// that say so, not "nothing read back".
func TestSealingMovesWhileItWalks(t *testing.T) {
	m := NewModel(Config{Verify: true}, t0)
	c := Counters{Key: 1, Label: "A001", Phase: Sealing, Files: 1000, FilesToCopy: 1000, Bytes: 512e3, BytesCopied: 512e3,
		FilesCopied: 1000, VerifyFiles: 1000, VerifyTotal: 512e3, FilesVerified: 1000, BytesVerified: 512e3,
		After: After{SealFiles: 1000},
		Dests: []DestCounters{{Dest: "/d1", State: DestSealing, Bytes: 512e3, BytesWritten: 512e3, VerifyTotal: 512e3, BytesVerified: 512e3}}}
	var p Progress
	for s := 1; s <= 60; s++ {
		c.SealSteps += 40 // two walks of 1,000 files in 50 s
		c.FilesSealed = int(min(c.SealSteps, 1000))
		p = m.Tick(t0.Add(time.Duration(s)*time.Second), []Counters{c})
		if p.Cards[0].Stall != nil || p.Job.Stalled != 0 {
			t.Fatalf("second %d, %d steps: %+v", s, c.SealSteps, p.Cards[0].Stall)
		}
	}
	for s := 61; s < 61+int(StallAfter.Seconds())+2; s++ {
		p = m.Tick(t0.Add(time.Duration(s)*time.Second), []Counters{c})
	}
	st := p.Cards[0].Stall
	if st == nil || st.Cause != "its hash lists are not being written" {
		t.Fatalf("a seal that stopped: %+v", st)
	}
}

// A card of many files seals far longer than the plan's fixed time says:
// once its walks have come some way, the time to safe is the rest of
// the walks at the pace so far (within 15 % of the truth), never "safe
// in 0s" while it seals; with nothing to go on past half again the
// expected time, unknown.
func TestSealETAFollowsTheWalks(t *testing.T) {
	prior := func(string, int) Prior { return Prior{Fixed: 5 * time.Second} }
	base := Counters{Key: 1, Label: "A001", Phase: Sealing, Files: 1000, FilesToCopy: 1000, Bytes: 512e3, BytesCopied: 512e3,
		FilesCopied: 1000, VerifyFiles: 2000, VerifyTotal: 1024e3, FilesVerified: 2000, BytesVerified: 1024e3,
		Dests: []DestCounters{{Dest: "/d1", State: DestSealing, Bytes: 512e3, BytesWritten: 512e3, VerifyTotal: 512e3, BytesVerified: 512e3},
			{Dest: "/d2", State: DestSealing, Bytes: 512e3, BytesWritten: 512e3, VerifyTotal: 512e3, BytesVerified: 512e3}}}
	// The seal takes 60 s: each destination's two walks of 1,000 files
	// (30 s a destination), the files named counted over both.
	const total = 60
	m := NewModel(Config{Verify: true, Prior: prior}, t0)
	c := base
	c.SealFiles = 2000
	m.Tick(t0, []Counters{c})
	for s := 1; s < total; s++ {
		c.SealSteps = int64(s) * 4000 / total
		c.FilesSealed = int(c.SealSteps / 2)
		p := m.Tick(t0.Add(time.Duration(s)*time.Second), []Counters{c})
		safe := p.Cards[0].ETA.Safe
		left := float64(total - s)
		if !safe.Known || safe.Seconds <= 0 {
			t.Fatalf("second %d of %d sealing: safe %+v", s, total, safe)
		}
		if s >= total/10 && math.Abs(safe.Seconds-left) > 0.15*left+1 {
			t.Errorf("second %d: safe in %.1fs, really %.0fs", s, safe.Seconds, left)
		}
	}

	// Nothing counted (a seal of a kind that does not say its walks):
	// the expected 5 s less the time sealed, then unknown past 7.5 s.
	m = NewModel(Config{Verify: true, Prior: prior}, t0)
	c = base
	m.Tick(t0, []Counters{c})
	for s := 1; s <= 12; s++ {
		c.SealSteps = int64(s) * 100 // it moves: not stalled
		p := m.Tick(t0.Add(time.Duration(s)*time.Second), []Counters{c})
		safe := p.Cards[0].ETA.Safe
		switch {
		case s <= 5 && (!safe.Known || math.Abs(safe.Seconds-float64(5-s)) > 0.01):
			t.Fatalf("second %d: safe %+v, want in %ds", s, safe, 5-s)
		case s > 7 && safe.Known:
			t.Fatalf("second %d, past half again the expected 5 s: safe %+v, want unknown", s, safe)
		}
	}
}

// An estimate reads rounded up to the second: anything left is at least
// "1s"; "0s" is said only of what is done (a card that stopped moving a
// fraction of a second short of its end was "safe in 0s" for the ten
// seconds before it was said STALLED).
func TestEstimateReadsRoundedUp(t *testing.T) {
	for _, c := range []struct {
		e    Estimate
		want string
	}{
		{In(0), "0s"}, {In(0.4), "1s"}, {In(1), "1s"}, {In(17), "17s"}, {In(17.09), "18s"},
		{In(64.5), "1m05s"}, {In(3600), "1h00m00s"}, {In(-2), "0s"}, {Estimate{}, "unknown"},
	} {
		if got := c.e.String(); got != c.want {
			t.Errorf("%v s: %q, want %q", c.e.Seconds, got, c.want)
		}
	}
}
