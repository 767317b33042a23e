package ui

// Screenshots of dit-gui for the docs (docs/gui-retry-*.png,
// docs/gui-stalled-*.png), drawn by Fyne's test renderer from the live
// model's snapshots and the engine's events, in both themes: a retry
// after a failure (the banner follows the verdicts: no stale failure
// notice) and a stalled upload ("stalled" and its cause). The test
// checks what they show and that the docs' files are up to date;
// `go test -run TestScreenshots ./ui/ -args -shots` writes them.

import (
	"bytes"
	"cmp"
	"flag"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/live"
	"github.com/dit-org/dit/internal/notify"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/verdict"
)

var writeShots = flag.Bool("shots", false, "write the docs' screenshots (docs/gui-retry-*.png, docs/gui-stalled-*.png)")

// shotSnap is the model's snapshot of job 7 at s seconds: A001 and A002
// to the RAID and the cloud; a, b are the two cards' runs.
func shotSnap(s int, a, b offload.CardProgress, job live.Job) *offload.Progress {
	job.At, job.Elapsed, job.Cards = t0.Add(time.Duration(s)*time.Second), float64(s), 2
	return &offload.Progress{Job: job, Cards: []offload.CardProgress{a, b}}
}

// shotCard is a card's run copying to the RAID and lCloud, fraction f of
// it copied, the rest read back behind, at rate.
func shotCard(label string, size int64, f, rate float64, eta live.Times) offload.CardProgress {
	n := func(x float64) int64 { return int64(x * float64(size)) }
	return offload.CardProgress{Label: label, Phase: live.Copying, Files: 12, FilesCopied: int(f * 12), FilesDone: int(f * 10), Bytes: size, BytesCopied: n(f), Rate: rate, ETA: eta, ETASeconds: eta.Safe, Current: "CLIPS/" + label + "C007_261122_R1AB.mov",
		Dests: []offload.DestProgress{
			{Dest: gRaid, State: live.DestWriting, Bytes: size, BytesWritten: n(f), VerifyTotal: size, BytesVerified: n(0.9 * f), Rate: rate},
			{Dest: lCloud, State: live.DestWriting, Bytes: size, BytesWritten: n(0.8 * f), VerifyTotal: size, BytesVerified: n(0.5 * f), Rate: 0.8 * rate},
		}, ReadBack: live.ReadBack{VerifyTotal: 2 * size, BytesVerified: n(1.4 * f)}}
}

// shotStalled is job 7 40 s after A001's upload to the cloud stopped
// moving (connection refused, retrying); A002 goes on.
func shotStalled() *jobRun {
	m := newRunModel(7, "day01", t0, offload.Progress{Cards: []offload.CardProgress{{Label: "A001"}, {Label: "A002"}}}, []string{"/Volumes/A001", "/Volumes/A002"})
	for s := 1; s <= 90; s++ {
		f := float64(s) / 150
		eta := live.Times{Copied: live.In(150 - float64(s)), CardFree: live.In(170 - float64(s)), Safe: live.In(170 - float64(s))}
		a := shotCard("A001", 4e9, min(f, 0.33), 0.45e9, eta)
		b := shotCard("A002", 3e9, f*1.2, 0.38e9, eta)
		job := live.Job{Bytes: 7e9, BytesCopied: a.BytesCopied + b.BytesCopied, BytesRead: a.BytesCopied + b.BytesCopied, Rate: 0.83e9, ETA: eta}
		if s > 50 {
			// A001's upload has not moved since 50 s: the model says
			// stalled, its estimates unknown.
			st := &live.Stall{Since: t0.Add(50 * time.Second), Seconds: float64(s - 50), Where: lCloud, Cause: "s3: connection refused", Retry: 3, Retries: 10}
			a.Rate, a.Dests[1].Rate, a.Dests[0].Rate = 0, 0, 0
			a.Stall, a.Dests[1].Stall = st, st
			a.Retries, a.Dests[1].Retries, a.Dests[1].LastError = 3, 3, "s3: connection refused"
			a.ETA, a.ETASeconds = live.Times{}, live.Estimate{}
			job.Rate, job.Stalled, job.ETA = 0.38e9, 1, live.Times{}
		}
		job.TBPerHour = float64(job.BytesRead) / float64(s) * 3600 / 1e12
		m.apply(offload.Event{Type: offload.EvProgress, Time: t0.Add(time.Duration(s) * time.Second), Progress: shotSnap(s, a, b, job)})
		if s == 60 {
			m.apply(offload.Event{Type: offload.EvStalled, Time: t0.Add(60 * time.Second), Card: "A001", Path: lCloud, Message: a.Stall.String()})
		}
	}
	run := &jobRun{cancel: func() {}, done: make(chan struct{}), pause: newPauser(nil)}
	run.setModel(m)
	return run
}

// shotRetry is job 7 resumed to retry its failed files: both cards had
// failed (on the banner); A001's retry is verified and safe to format,
// A002's still copies. The failure notices come through the app's
// notifications, A001's verdict through its event handler.
func shotRetry(h *harness) {
	for _, c := range []struct{ card, why string }{
		{"A001", lCloud + "/A001: a copy read back different from the card"},
		{"A002", gRaid + "/day01/A002: no space left on device"},
	} {
		h.a.notified(notify.Message{Kind: notify.Failure, JobID: 7, Job: "day01", Card: c.card, State: verdict.Failed,
			Text: "Card " + c.card + " FAILED: NOT safe to format\n" + c.why})
	}
	m := newRunModel(7, "day01", t0, offload.Progress{Cards: []offload.CardProgress{{Label: "A001"}, {Label: "A002"}}}, []string{"/Volumes/A001", "/Volumes/A002"})
	run := &jobRun{cancel: func() {}, done: make(chan struct{}), pause: newPauser(nil)}
	run.setModel(m)
	h.locked(func() { h.a.running.bind(run) })
	for s := 1; s <= 30; s++ {
		// The retry reads only the failed files: one of each card.
		a := shotCard("A001", 0.6e9, min(float64(s)/6, 1), 0.55e9, live.Times{Copied: live.In(6 - float64(s)), CardFree: live.In(8 - float64(s)), Safe: live.In(8 - float64(s))})
		a.Files, a.FilesCopied, a.FilesDone = 1, 1, 1
		b := shotCard("A002", 2.4e9, float64(s)/60, 0.08e9, live.Times{Copied: live.In(60 - float64(s)), CardFree: live.In(66 - float64(s)), Safe: live.In(66 - float64(s))})
		b.Files, b.FilesCopied, b.FilesDone, b.Dests[1].Rate = 1, 0, 0, 0.06e9
		if s >= 8 {
			a.Phase, a.Rate, a.BytesVerified, a.Current = live.Done, 0, a.VerifyTotal, ""
			for i := range a.Dests {
				a.Dests[i].State, a.Dests[i].BytesWritten, a.Dests[i].BytesVerified, a.Dests[i].Rate = live.DestVerified, a.Bytes, a.Bytes, 0
			}
		}
		job := live.Job{Bytes: 3e9, BytesCopied: a.BytesCopied + b.BytesCopied, BytesRead: a.BytesCopied + b.BytesCopied, Rate: a.Rate + b.Rate,
			ETA: b.ETA}
		job.TBPerHour = float64(job.BytesRead) / float64(s) * 3600 / 1e12
		m.apply(offload.Event{Type: offload.EvProgress, Time: t0.Add(time.Duration(s) * time.Second), Progress: shotSnap(s, a, b, job)})
		if s == 8 {
			m.apply(offload.Event{Type: offload.EvRunDone, Time: t0.Add(8 * time.Second), Card: "A001", State: verdict.Verified})
			h.a.onEvent(run, offload.Event{Type: offload.EvCardDone, Time: t0.Add(8 * time.Second), Card: "A001", State: verdict.Safe,
				Summary: &offload.CardSummary{CardFigures: offload.CardFigures{Label: "A001", Status: verdict.Safe, SafeToFormat: true,
					Verdict: "Verified: safe to format", SafeAt: t0.Add(8 * time.Second)}, FirstRun: verdict.Verified}})
		}
	}
}

func TestScreenshots(t *testing.T) {
	if testing.Short() {
		t.Skip("screenshots: drawn without -short")
	}
	for _, mode := range []string{ThemeLight, ThemeDark} {
		variant := map[string]string{ThemeLight: "light", ThemeDark: "dark"}[mode]
		t.Run("stalled-"+variant, func(t *testing.T) {
			h := newHarness(t, nil)
			showRun(h, shotStalled(), mode)
			h.locked(func() {
				p := h.a.running.panels[0]
				require.Equal(t, stateCopying+stalledSuffix, p.state.Text)
				require.Contains(t, p.stall.Text, "s3: connection refused, retry 3 of 10, since 40s")
				require.Contains(t, h.a.running.stallL.Text, "1 card stalled")
				require.Equal(t, "unknown", h.a.running.etaBig.Text)
			})
			shot(t, h, "gui-stalled-"+variant+".png")
		})
		t.Run("retry-"+variant, func(t *testing.T) {
			h := newHarness(t, nil)
			h.locked(func() { h.a.selectTab(h.a.running.content) })
			shotRetry(h)
			h.locked(func() {
				// Laid out anew with the banner (the test canvas lays out
				// on a resize).
				h.a.win.Resize(fyne.NewSize(1280, 900))
				h.a.win.Canvas().Capture()
				h.a.SetTheme(mode)
				require.Equal(t, []string{stateSafe, stateCopying}, []string{h.a.running.panels[0].state.Text, h.a.running.panels[1].state.Text})
				require.NotContains(t, h.a.banner.text(), "card A001", "A001's failure is settled by its verdict")
				require.Contains(t, h.a.banner.text(), "card A002 FAILED")
			})
			shot(t, h, "gui-retry-"+variant+".png")
		})
	}
}

// showRun draws run in the running view at 1280x900 in theme mode (drawn
// once first in the theme it was built in: see showScene).
func showRun(h *harness, run *jobRun, mode string) {
	h.locked(func() {
		h.a.win.Resize(fyne.NewSize(1280, 900))
		h.a.running.bind(run)
		h.a.selectTab(h.a.running.content)
		h.a.win.Canvas().Capture()
		h.a.SetTheme(mode)
	})
}

// shot captures the window as docs/name (a small paletted PNG): written
// with -shots, else compared with the docs' file.
func shot(t *testing.T, h *harness, name string) {
	var img image.Image
	h.locked(func() { img = h.a.win.Canvas().Capture() })
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	require.NoError(t, enc.Encode(&buf, paletted(img)))
	path := filepath.Join("..", "docs", name)
	if *writeShots {
		require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
		t.Logf("wrote %s (%d bytes)", path, buf.Len())
		return
	}
	old, err := os.ReadFile(path)
	require.NoError(t, err, "go test -run TestScreenshots ./ui/ -args -shots writes it")
	require.True(t, bytes.Equal(old, buf.Bytes()), "%s is not the view as drawn now: go test -run TestScreenshots ./ui/ -args -shots writes it", path)
}

// paletted is img in its 256 most frequent colours (each other colour
// drawn as the nearest of them: the anti-aliased edges of text), so that
// a screenshot of flat colours stays small.
func paletted(img image.Image) *image.Paletted {
	b := img.Bounds()
	count := map[color.NRGBA]int{}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			count[color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)]++
		}
	}
	cols := make([]color.NRGBA, 0, len(count))
	for c := range count {
		cols = append(cols, c)
	}
	key := func(c color.NRGBA) uint32 { return uint32(c.R)<<24 | uint32(c.G)<<16 | uint32(c.B)<<8 | uint32(c.A) }
	slices.SortFunc(cols, func(a, b color.NRGBA) int {
		return cmp.Or(cmp.Compare(count[b], count[a]), cmp.Compare(key(a), key(b)))
	})
	pal := make(color.Palette, 0, 256)
	for _, c := range cols[:min(256, len(cols))] {
		pal = append(pal, c)
	}
	out := image.NewPaletted(b, pal)
	index := map[color.NRGBA]uint8{}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
			i, ok := index[c]
			if !ok {
				i = uint8(pal.Index(c))
				index[c] = i
			}
			out.SetColorIndex(x, y, i)
		}
	}
	return out
}
