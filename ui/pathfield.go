package ui

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// pathField asks for a folder by its path, typed (or pasted) into an
// entry, or chosen in the folder dialog: Fyne's folder dialog has no field
// to type a path into, and walking it to a blade folder or a card takes
// long. Enter in the entry does what its button does.
type pathField struct {
	entry  *widget.Entry
	use    *widget.Button
	choose *widget.Button
	box    fyne.CanvasObject
	done   func(string)
	// onErr shows why a typed path cannot be used (nil: a.showError).
	onErr func(error)
}

// newPathField builds a path field: placeholder in the empty entry, use
// the button that takes the typed path, choose the button that opens the
// folder dialog (titled title; "" leaves it out), done called with the
// folder on the UI goroutine.
func (a *App) newPathField(placeholder, use, choose, title string, done func(string)) *pathField {
	f := &pathField{entry: widget.NewEntry(), done: done}
	f.entry.SetPlaceHolder(placeholder)
	f.entry.OnSubmitted = func(string) { f.submit() }
	f.use = widget.NewButtonWithIcon(use, theme.ConfirmIcon(), f.submit)
	right := container.NewHBox(f.use)
	if choose != "" {
		f.choose = widget.NewButtonWithIcon(choose, theme.FolderOpenIcon(), func() { a.cfg.ChooseFolder(title, done) })
		right.Add(f.choose)
	}
	f.onErr = a.showError
	f.box = container.NewBorder(nil, nil, nil, right, f.entry)
	return f
}

// askFolder asks for a folder in a dialog titled title: its path typed or
// pasted (use is the button that takes it), or chosen in the folder
// dialog; done gets it on the UI goroutine.
func (a *App) askFolder(title, placeholder, use string, done func(string)) {
	var d dialog.Dialog
	f := a.newPathField(placeholder, use, "Choose folder...", title, func(p string) {
		d.Hide()
		done(p)
	})
	box := container.NewGridWrap(fyne.NewSize(720, f.box.MinSize().Height), f.box)
	d = dialog.NewCustom(title, "Cancel", box, a.win)
	d.Show()
	a.win.Canvas().Focus(f.entry)
}

// submit hands the typed path on (UI goroutine), or says why it cannot.
func (f *pathField) submit() {
	p, err := typedPath(f.entry.Text)
	if err != nil {
		f.onErr(err)
		return
	}
	f.done(p)
}

// typedPath is the folder a person typed or pasted: spaces around it and
// the quotes a shell or a file manager adds taken off, "~" the home
// folder, a file:// URL its path, made absolute and cleaned. Whether the
// folder is there is said by what uses it (off the UI goroutine).
func typedPath(s string) (string, error) {
	p := strings.TrimSpace(s)
	if len(p) >= 2 && (p[0] == '\'' || p[0] == '"') && p[len(p)-1] == p[0] {
		p = p[1 : len(p)-1]
	}
	if strings.HasPrefix(p, "file://") {
		u, err := url.Parse(p)
		if err != nil {
			return "", fmt.Errorf("%q is not a folder's path: %w", s, err)
		}
		p = filepath.FromSlash(u.Path)
	}
	if p == "" {
		return "", errors.New("type a folder's path first (or choose it in the folder dialog)")
	}
	if p == "~" || strings.HasPrefix(p, "~"+string(filepath.Separator)) || strings.HasPrefix(p, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("%s: no home folder to start from: %w", p, err)
		}
		p = filepath.Join(home, p[1:])
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("%s: %w", p, err)
	}
	return abs, nil
}
