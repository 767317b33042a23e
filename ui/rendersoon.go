package ui

import (
	"sync"
	"sync/atomic"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
)

// renderQueue coalesces the running view's renders asked for by engine
// events: at most one render is pending at a time, and it draws the
// model as it is when it runs, so a burst of events (a loaded cart's
// cards and destinations all reporting at once) gives one render, and
// the last event's state is always drawn (a request made while a render
// runs is drawn by the next one). The engine's goroutines never wait for
// a render: asking is an atomic swap.
type renderQueue struct {
	pending atomic.Bool
	wg      sync.WaitGroup // the render in flight, if any
}

// renderSoon asks for a render of the running view from any goroutine
// (see renderQueue).
func (a *App) renderSoon() {
	q := &a.renders
	if !q.pending.CompareAndSwap(false, true) {
		return // the pending render will draw this state too
	}
	q.wg.Add(1)
	go func() {
		defer q.wg.Done()
		// fyne.Do, not DoAndWait: the window's driver queues it (a
		// closing app's stopped loop never blocks a job's end); Fyne's
		// test driver runs it here, so the wait group covers it.
		fyne.Do(func() {
			a.mu.Lock()
			defer a.mu.Unlock()
			// Cleared before the model is read: an event from now on
			// asks for a render of its own.
			q.pending.Store(false)
			a.running.render()
		})
	}()
}

// waitRenders waits until every render asked for by renderSoon was run
// (with the test driver) or queued (with a window's driver); never on the
// UI goroutine.
func (a *App) waitRenders() { a.renders.wg.Wait() }

// setText sets a label's text, refreshing it only when the text changed:
// a render redraws only what moved (a label's refresh lays its text out
// again, the running view's costliest part).
func setText(l *widget.Label, s string) {
	if l.Text != s {
		l.SetText(s)
	}
}

// setImportance sets a label's colour, refreshing it only when it
// changed.
func setImportance(l *widget.Label, imp widget.Importance) {
	if l.Importance != imp {
		l.Importance = imp
		l.Refresh()
	}
}

// relayout lays the containers of o out again, top-down, at their sizes
// (the objects' minimum sizes may have changed: a line shown, a text
// wrapped) without refreshing the widgets in them: a widget whose size
// changes lays itself out. Fyne's drivers grow a scroll's content to its
// new minimum on their own (the GL driver's EnsureMinSize); the test
// driver does not, so the content is resized here.
func relayout(s *container.Scroll) {
	c := s.Content
	if c == nil {
		return
	}
	min, sz := c.MinSize(), s.Size()
	c.Resize(fyne.NewSize(max(min.Width, sz.Width), max(min.Height, sz.Height)))
	layoutTree(c)
}

func layoutTree(o fyne.CanvasObject) {
	if t, ok := o.(*container.ThemeOverride); ok {
		if t.Content != nil {
			t.Content.Resize(t.Size())
			layoutTree(t.Content)
		}
		return
	}
	c, ok := o.(*fyne.Container)
	if !ok || !c.Visible() {
		return
	}
	if c.Layout != nil {
		c.Layout.Layout(c.Objects, c.Size())
	}
	for _, k := range c.Objects {
		layoutTree(k)
	}
}
