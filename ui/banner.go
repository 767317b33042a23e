package ui

import (
	"fmt"
	"image/color"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// banner is the strip across the top of the window that says when
// something needs the DIT: a card failed, a card was removed while it
// was copied, an eject failed, a notification did not go out. It stays
// until dismissed, the newest messages first; what it said of a card's
// verdict follows the engine's: a later verdict of the card replaces it
// (settle, addCard).
type banner struct {
	a       *App
	box     *fyne.Container
	label   *widget.Label
	dismiss *widget.Button
	items   []bannerItem
}

// bannerItem is one message; a card's verdict notice (a failure, a card
// removed while it was copied) names its job and card.
type bannerItem struct {
	text string
	job  int64
	card string
	// kind is what a verdict notice says ("failed", "removed"): the card
	// (or the job, card "") is not safe; "" for other messages. A later
	// notice of its kind replaces it, a later verdict that is not bad
	// drops it.
	kind string
}

// The kinds of verdict notice.
const (
	noticeFailed  = "failed"
	noticeRemoved = "removed"
)

// bannerShown is how many messages the banner lists (the others are
// counted).
const bannerShown = 3

func newBanner(a *App) *banner {
	b := &banner{a: a}
	b.label = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	b.label.Wrapping = fyne.TextWrapWord
	b.label.Importance = widget.DangerImportance
	b.dismiss = widget.NewButtonWithIcon("Dismiss", theme.CancelIcon(), b.clear)
	bg := canvas.NewRectangle(color.NRGBA{R: 0xe5, G: 0x39, B: 0x35, A: 0x14}) // a light tint: the red text on it reads at 4.5:1 and more
	bg.StrokeColor = color.NRGBA{R: 0xe5, G: 0x39, B: 0x35, A: 0xff}
	bg.StrokeWidth = 1
	icon := widget.NewIcon(theme.WarningIcon())
	b.box = container.NewStack(bg, container.NewPadded(
		container.NewBorder(nil, nil, icon, container.NewCenter(b.dismiss), b.label)))
	b.box.Hide()
	return b
}

// add shows msg on the banner (UI goroutine); the same message twice in a
// row is shown once.
func (b *banner) add(msg string) { b.put(bannerItem{text: msg}) }

// addCard shows msg, a notice of kind that card of job is not safe
// (card "": the job), in place of the banner's earlier notice of that
// kind of the card (UI goroutine).
func (b *banner) addCard(job int64, card, kind, msg string) {
	b.drop(func(it bannerItem) bool { return it.kind == kind && it.job == job && it.card == card })
	b.put(bannerItem{text: msg, job: job, card: card, kind: kind})
}

// settle drops what the banner said of the verdict of card of job: the
// engine gave the card a verdict that is not bad since (UI goroutine).
func (b *banner) settle(job int64, card string) {
	if b.drop(func(it bannerItem) bool { return it.kind != "" && it.job == job && it.card == card }) {
		b.render()
	}
}

// settleJob drops every verdict notice of job: it ended with no card
// failed or interrupted (UI goroutine).
func (b *banner) settleJob(job int64) {
	if b.drop(func(it bannerItem) bool { return it.kind != "" && it.job == job }) {
		b.render()
	}
}

func (b *banner) put(it bannerItem) {
	it.text = strings.TrimSpace(it.text)
	if it.text == "" {
		return
	}
	if n := len(b.items); n > 0 && b.items[n-1].text == it.text {
		return
	}
	b.items = append(b.items, it)
	b.render()
}

// drop removes the items gone says; it reports whether any was.
func (b *banner) drop(gone func(bannerItem) bool) bool {
	n := len(b.items)
	b.items = slices.DeleteFunc(b.items, gone)
	return len(b.items) != n
}

// clear dismisses the banner (UI goroutine).
func (b *banner) clear() {
	b.items = nil
	b.render()
}

func (b *banner) render() {
	if len(b.items) == 0 {
		b.label.SetText("")
		b.box.Hide()
		return
	}
	var lines []string
	for i := len(b.items) - 1; i >= 0 && len(lines) < bannerShown; i-- {
		lines = append(lines, b.items[i].text)
	}
	if n := len(b.items) - len(lines); n > 0 {
		lines = append(lines, fmt.Sprintf("... and %d more (the auto-offload log and the job's panels say more)", n))
	}
	b.label.SetText(strings.Join(lines, "\n"))
	b.box.Show()
	b.box.Refresh()
}

// text is what the banner says ("" when hidden).
func (b *banner) text() string {
	if !b.box.Visible() {
		return ""
	}
	return b.label.Text
}
