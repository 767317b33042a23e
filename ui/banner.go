package ui

import (
	"fmt"
	"image/color"
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
// until dismissed; the newest messages first.
type banner struct {
	a       *App
	box     *fyne.Container
	label   *widget.Label
	dismiss *widget.Button
	items   []string
}

// bannerShown is how many messages the banner lists (the others are
// counted).
const bannerShown = 3

func newBanner(a *App) *banner {
	b := &banner{a: a}
	b.label = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	b.label.Wrapping = fyne.TextWrapWord
	b.label.Importance = widget.DangerImportance
	b.dismiss = widget.NewButtonWithIcon("Dismiss", theme.CancelIcon(), b.clear)
	bg := canvas.NewRectangle(color.NRGBA{R: 0xe5, G: 0x39, B: 0x35, A: 0x30})
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
func (b *banner) add(msg string) {
	msg = strings.TrimSpace(msg)
	if msg == "" {
		return
	}
	if len(b.items) > 0 && b.items[len(b.items)-1] == msg {
		return
	}
	b.items = append(b.items, msg)
	b.render()
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
		lines = append(lines, b.items[i])
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
