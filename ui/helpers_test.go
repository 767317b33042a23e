package ui

// UI tests drive the real views with Fyne's test driver (no display, no
// cgo). They must not use t.Parallel(): the current Fyne app is global.

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/devices"
	"github.com/dit-org/dit/internal/testcards"
	"github.com/dit-org/dit/internal/watch"
)

func TestMain(m *testing.M) {
	// Golden markup shows local times: make them the same everywhere.
	time.Local = time.UTC
	os.Exit(m.Run())
}

// harness is an App on a fresh catalog with the desktop replaced: folder
// and file dialogs answer from the test, OpenURL is recorded.
type harness struct {
	t    *testing.T
	a    *App
	cat  *catalog.Catalog
	dir  string
	mu   sync.Mutex
	urls []string
	// saved maps a file name offered by the save dialog to the path the
	// test saved it at.
	saved map[string]string
	// ejector is the app's Ejector (never the system's in tests); notes
	// gets every desktop notification.
	ejector *fakeEjector
	notes   chan *fyne.Notification
}

// fakeEjector records the volumes it is asked to eject and sends them on
// ch; it fails with err when set.
type fakeEjector struct {
	mu  sync.Mutex
	got []watch.Volume
	ch  chan watch.Volume
	err error
}

func (f *fakeEjector) Eject(_ context.Context, v watch.Volume) error {
	f.mu.Lock()
	f.got = append(f.got, v)
	err := f.err
	f.mu.Unlock()
	f.ch <- v
	return err
}

func newHarness(t *testing.T, mod func(*Config)) *harness {
	t.Helper()
	fa := test.NewTempApp(t)
	dir := t.TempDir()
	cat, err := catalog.Open(filepath.Join(dir, "catalog.db"))
	require.NoError(t, err)
	t.Cleanup(func() { cat.Close() })
	h := &harness{t: t, cat: cat, dir: dir, saved: map[string]string{},
		ejector: &fakeEjector{ch: make(chan watch.Volume, 16)}, notes: make(chan *fyne.Notification, 256)}
	cfg := Config{Catalog: cat, Version: "test", Ejector: h.ejector, NotifyConfig: "none",
		SendNotification: func(n *fyne.Notification) {
			select {
			case h.notes <- n:
			default:
			}
		},
		Discover: func(context.Context) ([]devices.Volume, error) { return nil, nil },
		OpenURL: func(u *url.URL) error {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.urls = append(h.urls, u.Path)
			return nil
		},
		SaveFile: func(name string, done func(io.WriteCloser, string)) {
			p := filepath.Join(dir, "saved", name)
			require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
			f, err := os.Create(p)
			require.NoError(t, err)
			h.mu.Lock()
			h.saved[name] = p
			h.mu.Unlock()
			done(f, p)
		},
		ChooseFolder: func(string, func(string)) { t.Error("unexpected folder dialog") },
		OpenFile:     func(string, func(io.ReadCloser, string)) { t.Error("unexpected file dialog") },
	}
	if mod != nil {
		mod(&cfg)
	}
	h.a = New(fa, cfg)
	t.Cleanup(func() {
		// Before the catalog closes: cancel and wait for a job left
		// running, and for the Arrays view's work.
		h.a.Close()
		h.a.arrays.ops.Wait()
	})
	h.a.offload.noCPU = true
	// Under the UI lock: the History's first read may be laying widgets
	// out from its goroutine.
	h.a.locked(func() { h.a.win.Resize(fyne.NewSize(1280, 860)) })
	h.a.bg.Wait() // the first read of the History
	return h
}

// locked runs f with the UI lock held (no goroutine updates widgets
// meanwhile).
func (h *harness) locked(f func()) { h.a.locked(f) }

// Tests wait on events, never on a wall-clock budget: a busy machine
// makes them slower, not failed. A wait has no deadline of its own (the
// test binary's -timeout bounds it, and then prints every goroutine);
// one that takes longer than slowWait says what it is waiting for, on
// stderr (shown by go test when -timeout stops the test) and in the log.
const slowWait = 30 * time.Second

// stillWaiting says what a long wait is waiting for.
func stillWaiting(t testing.TB, what string, since time.Time) {
	t.Helper()
	msg := fmt.Sprintf("%s: still waiting for %s after %s", t.Name(), what, time.Since(since).Round(time.Second))
	fmt.Fprintln(os.Stderr, msg)
	t.Log(msg)
}

// await returns the first value from ch (or the zero value once ch is
// closed): the event the code under test signals.
func await[T any](t testing.TB, what string, ch <-chan T) T {
	t.Helper()
	start := time.Now()
	tick := time.NewTicker(slowWait)
	defer tick.Stop()
	for {
		select {
		case v := <-ch:
			return v
		case <-tick.C:
			stillWaiting(t, what, start)
		}
	}
}

// waitGroup waits until wg's count is zero.
func waitGroup(t testing.TB, what string, wg *sync.WaitGroup) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	await(t, what, done)
}

// eventually polls cond (run with the UI lock held) until it holds, for
// states the app signals no event of; it has no deadline of its own.
func (h *harness) eventually(what string, cond func() bool) {
	h.t.Helper()
	start, said := time.Now(), time.Now()
	for {
		var ok bool
		h.locked(func() { ok = cond() })
		if ok {
			return
		}
		if time.Since(said) >= slowWait {
			said = time.Now()
			stillWaiting(h.t, what, start)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// arrayOps waits until the Arrays view's background work has ended (an
// opening, a scrub or a rebuild: each ends by showing the array read
// again).
func (h *harness) arrayOps(what string) {
	h.t.Helper()
	waitGroup(h.t, what, &h.a.arrays.ops)
}

// cards generates two small cards (A001, A002) under dir/cards.
func genCards(t *testing.T, dir string, size int64) []testcards.Card {
	t.Helper()
	cards, err := testcards.Generate(context.Background(), testcards.Options{Out: filepath.Join(dir, "cards"), Cards: 2, Size: size, Seed: 7})
	require.NoError(t, err)
	return cards
}

func mkdir(t *testing.T, p string) string {
	t.Helper()
	require.NoError(t, os.MkdirAll(p, 0o755))
	return p
}

// buttonIn finds the first button whose text starts with prefix in o.
func buttonIn(o fyne.CanvasObject, prefix string) *widget.Button {
	var found *widget.Button
	walk(o, func(o fyne.CanvasObject) {
		if b, ok := o.(*widget.Button); ok && found == nil && strings.HasPrefix(b.Text, prefix) {
			found = b
		}
	})
	return found
}

// buttonsIn finds every button whose text starts with prefix in o.
func buttonsIn(o fyne.CanvasObject, prefix string) []*widget.Button {
	var found []*widget.Button
	walk(o, func(o fyne.CanvasObject) {
		if b, ok := o.(*widget.Button); ok && strings.HasPrefix(b.Text, prefix) {
			found = append(found, b)
		}
	})
	return found
}

// texts collects the text of every label in o.
func texts(o fyne.CanvasObject) string {
	var b strings.Builder
	walk(o, func(o fyne.CanvasObject) {
		if l, ok := o.(*widget.Label); ok && l.Visible() {
			b.WriteString(l.Text)
			b.WriteByte('\n')
		}
	})
	return b.String()
}

// walk visits o and everything in it (containers and the objects widgets
// are built from).
func walk(o fyne.CanvasObject, f func(fyne.CanvasObject)) {
	if o == nil {
		return
	}
	f(o)
	switch x := o.(type) {
	case *fyne.Container:
		for _, c := range x.Objects {
			walk(c, f)
		}
	case fyne.Widget:
		if _, ok := o.(*widget.Label); ok {
			return
		}
		for _, c := range test.WidgetRenderer(x).Objects() {
			walk(c, f)
		}
	}
}

// renderOnly skips a test of what a view draws (goldens, themes,
// contrast) under the race detector: it starts no goroutine of dit's (the
// views are drawn under the app's lock), so the race stage would only pay
// the detector's cost on Fyne's painting; make test's first stage runs it.
func renderOnly(t *testing.T) {
	t.Helper()
	if raceDetector {
		t.Skip("rendering only, no concurrency of dit's: the first stage of make test runs it without the race detector")
	}
}
