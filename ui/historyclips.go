package ui

import (
	"bytes"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/dit-org/dit/internal/units"
	"github.com/dit-org/dit/reports/jobreport"
)

// clipColumns are the History's clip columns, as the reports' clip list.
var clipColumns = []string{"Clip", "TC in", "TC out", "FPS", "Resolution", "Codec"}

// orUnknown is s, or jobreport.Unknown when nothing tells it.
func orUnknown(s string) string {
	if s == "" {
		return jobreport.Unknown
	}
	return s
}

// clipCells are a clip's cells under clipColumns: its thumbnail
// (thumbWidth wide, 16:9) or "no thumbnail", its name and what else is
// known of it; then its timecodes, rate, resolution and codec.
func clipCells(k *jobreport.Clip) []fyne.CanvasObject {
	size := fyne.NewSize(thumbWidth, thumbWidth*9/16)
	var thumb fyne.CanvasObject
	if b := k.JPEG(); len(b) > 0 {
		img := canvas.NewImageFromReader(bytes.NewReader(b), k.Name+".jpg")
		img.FillMode = canvas.ImageFillContain
		img.ScaleMode = canvas.ImageScaleSmooth
		img.SetMinSize(size)
		thumb = img
	} else {
		l := widget.NewLabel("no thumbnail")
		l.Alignment = fyne.TextAlignCenter
		l.SizeName = theme.SizeNameCaptionText
		bg := canvas.NewRectangle(theme.Color(theme.ColorNameInputBackground))
		bg.SetMinSize(size)
		thumb = container.NewStack(bg, container.NewCenter(l))
	}
	name := widget.NewLabelWithStyle(k.Name, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	info := widget.NewLabel(clipText(k))
	info.SizeName = theme.SizeNameCaptionText
	info.Wrapping = fyne.TextWrapWord
	if !k.Verified {
		info.Importance = widget.DangerImportance
	}
	cell := func(s string, mono bool) fyne.CanvasObject {
		return widget.NewLabelWithStyle(s, fyne.TextAlignLeading, fyne.TextStyle{Monospace: mono && s != jobreport.Unknown})
	}
	codec := widget.NewLabel(orUnknown(k.Codec))
	codec.Wrapping = fyne.TextWrapWord
	return []fyne.CanvasObject{
		container.NewVBox(container.NewHBox(thumb), name, info),
		cell(orUnknown(k.TCStart), true), cell(orUnknown(k.TCEnd), true),
		cell(orUnknown(k.FPS), false), cell(orUnknown(k.Resolution), false), codec,
	}
}

// clipText is what a clip's columns leave out: its type, length (as an
// editor reads it: HH:MM:SS:FF, or "length unknown"), files and size,
// whether it is verified, why it has no thumbnail.
func clipText(k *jobreport.Clip) string {
	var parts []string
	add := func(s string) {
		if s != "" {
			parts = append(parts, s)
		}
	}
	add(k.Type)
	if d := k.Duration(); d != jobreport.Unknown {
		add(d)
	} else {
		add("length unknown")
	}
	add(plural(k.Files, "file") + ", " + units.FormatBytes(k.Bytes))
	if !k.Verified {
		add("NOT verified")
	}
	if len(k.JPEG()) == 0 && k.ThumbnailNote != "" {
		add("no thumbnail: " + k.ThumbnailNote)
	}
	return strings.Join(parts, ", ")
}
