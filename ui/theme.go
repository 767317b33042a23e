package ui

import (
	"image/color"
	"math"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// Theme modes the window can be switched between.
const (
	ThemeSystem = "System"
	ThemeLight  = "Light"
	ThemeDark   = "Dark"
)

// setTheme is Fyne's default theme, a little larger so the cart's laptop
// reads from arm's length, in a forced light or dark variant (or the
// system's).
type setTheme struct {
	mode string
}

var _ fyne.Theme = setTheme{}

// NewTheme returns dit's theme in mode ThemeSystem, ThemeLight or
// ThemeDark.
func NewTheme(mode string) fyne.Theme { return setTheme{mode: mode} }

func (t setTheme) Color(n fyne.ThemeColorName, v fyne.ThemeVariant) color.Color {
	switch t.mode {
	case ThemeLight:
		v = theme.VariantLight
	case ThemeDark:
		v = theme.VariantDark
	}
	if c, ok := stateColors[v][n]; ok {
		return c
	}
	return theme.DefaultTheme().Color(n, v)
}

// stateColors are the verdict colours (safe, warning, failed), the
// primary blue ("card free", links, the Start button) and the hints'
// grey, per variant, chosen so that text in them reads at 4.5:1 or more
// on the variant's background (WCAG AA): Fyne's own green is 1.5:1 on
// white, its orange 2.2:1, its blue 4.0:1 on the dark background. The
// dark theme's blue is light, so a button's text on it is dark.
// TestStateColoursContrast computes them, TestStateColoursContrastRendered
// measures them on rendered pixels.
var stateColors = map[fyne.ThemeVariant]map[fyne.ThemeColorName]color.Color{
	theme.VariantLight: {
		theme.ColorNameSuccess:     color.NRGBA{R: 0x1e, G: 0x7b, B: 0x34, A: 0xff}, // green
		theme.ColorNameWarning:     color.NRGBA{R: 0xa8, G: 0x50, B: 0x00, A: 0xff}, // orange
		theme.ColorNameError:       color.NRGBA{R: 0xc6, G: 0x28, B: 0x28, A: 0xff}, // red
		theme.ColorNamePlaceHolder: color.NRGBA{R: 0x66, G: 0x66, B: 0x66, A: 0xff}, // hint grey
		theme.ColorNameDisabled:    color.NRGBA{R: 0x6b, G: 0x6b, B: 0x6b, A: 0xff}, // a low-importance label's grey
		theme.ColorNamePrimary:     color.NRGBA{R: 0x25, G: 0x63, B: 0xeb, A: 0xff}, // blue; white text on it 5.2:1
		// A selected row (History's list): light enough for the state
		// colours on it (a failed job's red) to read at 4.5:1.
		theme.ColorNameSelection: color.NRGBA{R: 0x25, G: 0x63, B: 0xeb, A: 0x1c},
	},
	theme.VariantDark: {
		theme.ColorNameSuccess:     color.NRGBA{R: 0x5d, G: 0xd3, B: 0x6f, A: 0xff},
		theme.ColorNameWarning:     color.NRGBA{R: 0xff, G: 0xa7, B: 0x26, A: 0xff},
		theme.ColorNameError:       color.NRGBA{R: 0xff, G: 0x6b, B: 0x6b, A: 0xff},
		theme.ColorNamePlaceHolder: color.NRGBA{R: 0xa0, G: 0xa0, B: 0xa0, A: 0xff},
		theme.ColorNameDisabled:    color.NRGBA{R: 0x9a, G: 0x9a, B: 0x9a, A: 0xff},
		theme.ColorNamePrimary:     color.NRGBA{R: 0x4d, G: 0x8d, B: 0xff, A: 0xff},
		theme.ColorNameSelection:   color.NRGBA{R: 0x4d, G: 0x8d, B: 0xff, A: 0x30},
		// Text on the primary blue (a high-importance button's).
		theme.ColorNameForegroundOnPrimary: color.NRGBA{R: 0x10, G: 0x10, B: 0x10, A: 0xff},
	},
}

// contrast is the WCAG contrast ratio of two colours (1 to 21).
func contrast(a, b color.Color) float64 {
	la, lb := luminance(a), luminance(b)
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

// luminance is a colour's WCAG relative luminance.
func luminance(c color.Color) float64 {
	r, g, b, _ := color.NRGBAModel.Convert(c).RGBA()
	lin := func(v uint32) float64 {
		s := float64(v>>8) / 255
		if s <= 0.03928 {
			return s / 12.92
		}
		return math.Pow((s+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(r) + 0.7152*lin(g) + 0.0722*lin(b)
}

func (t setTheme) Font(s fyne.TextStyle) fyne.Resource { return theme.DefaultTheme().Font(s) }

func (t setTheme) Icon(n fyne.ThemeIconName) fyne.Resource { return theme.DefaultTheme().Icon(n) }

func (t setTheme) Size(n fyne.ThemeSizeName) float32 {
	switch n {
	case theme.SizeNameText:
		return 15
	case theme.SizeNameCaptionText:
		return 12
	case theme.SizeNameHeadingText:
		return 26
	case theme.SizeNameSubHeadingText:
		return 19
	case sizeNameVerdict:
		return 24
	}
	return theme.DefaultTheme().Size(n)
}

// bigFigure is the text size of the rate and ETA figures.
const bigFigure = 36

// sizeNameVerdict is the size of a card's verdict or phase on its tile:
// big enough to read at arm's length (24 px).
const sizeNameVerdict fyne.ThemeSizeName = "ditVerdict"

// compactTheme is the app's theme as set now (read at each call, so a
// theme switch is followed) with tighter padding: the running view's
// tiles and header, so that every card of a job of up to 8 shows at once
// on a 1280x800 screen.
type compactTheme struct{}

func (compactTheme) cur() fyne.Theme { return fyne.CurrentApp().Settings().Theme() }

func (t compactTheme) Color(n fyne.ThemeColorName, v fyne.ThemeVariant) color.Color {
	return t.cur().Color(n, v)
}

func (t compactTheme) Font(s fyne.TextStyle) fyne.Resource { return t.cur().Font(s) }

func (t compactTheme) Icon(n fyne.ThemeIconName) fyne.Resource { return t.cur().Icon(n) }

func (t compactTheme) Size(n fyne.ThemeSizeName) float32 {
	switch n {
	case theme.SizeNamePadding:
		return 2
	case theme.SizeNameInnerPadding:
		return 3
	case theme.SizeNameLineSpacing:
		return 2
	case theme.SizeNameText:
		return 14
	case sizeNameVerdict:
		return 24
	}
	return t.cur().Size(n)
}

// tintTheme is a theme whose primary colour (a progress bar's fill) is
// another of its colours: a card's bar in its verdict's colour.
type tintTheme struct {
	fyne.Theme
	primary fyne.ThemeColorName
}

// Size: a bar's text size is small (a bar has no text: its figures are
// beside it), so the bar is thin.
func (t tintTheme) Size(n fyne.ThemeSizeName) float32 {
	if n == theme.SizeNameText {
		return 6
	}
	return t.Theme.Size(n)
}

func (t tintTheme) Color(n fyne.ThemeColorName, v fyne.ThemeVariant) color.Color {
	if n == theme.ColorNamePrimary {
		n = t.primary
	}
	return t.Theme.Color(n, v)
}
