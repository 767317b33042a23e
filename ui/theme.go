package ui

import (
	"image/color"

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
	return theme.DefaultTheme().Color(n, v)
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
	}
	return theme.DefaultTheme().Size(n)
}

// bigFigure is the text size of the rate and ETA figures.
const bigFigure = 40

// tintTheme is a theme whose primary colour (a progress bar's fill) is
// another of its colours: a card's bar in its verdict's colour.
type tintTheme struct {
	fyne.Theme
	primary fyne.ThemeColorName
}

func (t tintTheme) Color(n fyne.ThemeColorName, v fyne.ThemeVariant) color.Color {
	if n == theme.ColorNamePrimary {
		n = t.primary
	}
	return t.Theme.Color(n, v)
}
