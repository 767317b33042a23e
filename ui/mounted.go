package ui

import (
	"os"
	"os/user"
	"path/filepath"
	"runtime"
	"sort"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/dit-org/dit/internal/assembly"
	"github.com/dit-org/dit/internal/watch"
)

// mountedCards is the Offload view's list of the camera cards among the
// mounted volumes (the volumes Auto-offload watches, recognised as
// dit watch does: watch.Recognize), each with an Add button: one click
// puts it in the form. Fyne's folder dialog (v2.7) has a fixed sidebar
// (Home, Computer, the XDG folders) that cannot list mounted volumes;
// this list is where they are.
type mountedCards struct {
	v    *offloadView
	box  *fyne.Container
	rows *fyne.Container
	note *widget.Label
	seq  int
	// found: what the last look saw (UI goroutine).
	found []foundCard
}

// foundCard is a camera card mounted at Path, recognised by Why.
type foundCard struct {
	Path, Label, Why string
}

func newMountedCards(v *offloadView) *mountedCards {
	m := &mountedCards{v: v, rows: container.NewVBox(), note: widget.NewLabel("")}
	m.note.Wrapping = fyne.TextWrapWord
	m.note.Importance = widget.LowImportance
	m.note.Hide()
	look := widget.NewButtonWithIcon("Look again", theme.ViewRefreshIcon(), m.refresh)
	head := container.NewBorder(nil, nil, widget.NewLabelWithStyle("Camera cards mounted", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), look)
	m.box = container.NewVBox(head, m.rows, m.note)
	return m
}

// say shows s under the list ("" hides the note).
func (m *mountedCards) say(s string) {
	m.note.SetText(s)
	if s == "" {
		m.note.Hide()
	} else {
		m.note.Show()
	}
}

// refresh looks at the mounted volumes again (in the background).
func (m *mountedCards) refresh() {
	a := m.v.a
	src := a.cfg.Volumes
	if src == nil {
		src = watch.System()
	}
	var dests []string
	for _, d := range m.v.dests {
		dests = append(dests, d.Path)
	}
	m.seq++
	seq := m.seq
	m.say("Looking at the mounted volumes...")
	a.goBG(func() {
		found, err := findCards(src, dests)
		a.do(func() {
			if seq != m.seq {
				return // a newer look is under way
			}
			if err != nil {
				m.found = nil
				m.say("Cannot list the mounted volumes: " + err.Error())
			} else {
				m.found = found
				m.say("")
			}
			m.render()
		})
	})
}

// findCards lists the camera cards among src's volumes, leaving out the
// form's destinations (and what holds them or is inside them).
func findCards(src watch.Source, dests []string) ([]foundCard, error) {
	vols, err := src.List()
	if err != nil {
		return nil, err
	}
	p := &watch.Preset{Spec: assembly.Spec{Dests: dests}}
	var out []foundCard
	for _, vol := range vols {
		if ok, why := watch.Recognize(vol.Path, p); ok {
			label := vol.Label
			if label == "" {
				label = filepath.Base(vol.Path)
			}
			out = append(out, foundCard{Path: vol.Path, Label: label, Why: why})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Label < out[j].Label })
	return out, nil
}

// render shows the cards found, each with Add (Added once in the form).
func (m *mountedCards) render() {
	m.rows.RemoveAll()
	if m.seq > 0 && len(m.found) == 0 && m.note.Text == "" {
		m.say("No camera card among the mounted volumes.")
	}
	for _, c := range m.found {
		c := c
		name := widget.NewLabelWithStyle(c.Label, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
		info := widget.NewLabel(c.Path + ": " + c.Why)
		info.Truncation = fyne.TextTruncateEllipsis
		add := widget.NewButtonWithIcon("Add", theme.ContentAddIcon(), func() { m.v.addCard(c.Path) })
		if m.v.hasCard(c.Path) {
			add.SetText("Added")
			add.Disable()
		}
		m.rows.Add(container.NewBorder(nil, nil, name, add, info))
	}
	m.rows.Refresh()
}

// hasCard reports whether the card at p is in the form.
func (v *offloadView) hasCard(p string) bool {
	p = filepath.Clean(p)
	for _, c := range v.cards {
		if c.Path == p {
			return true
		}
	}
	return false
}

// LookForCards lists the camera cards mounted now in the Offload view
// (cmd/dit-gui at launch; the view's "Look again" button).
func (a *App) LookForCards() {
	a.locked(a.offload.mounted.refresh)
}

// volumesRoot is where mounted volumes are on this system: the folder
// dialog opens there (its sidebar cannot list them); "" when none is.
func volumesRoot() string {
	var cands []string
	if runtime.GOOS == "darwin" {
		cands = append(cands, "/Volumes")
	}
	if u, err := user.Current(); err == nil {
		cands = append(cands, filepath.Join("/media", u.Username), filepath.Join("/run/media", u.Username))
	}
	cands = append(cands, "/media", "/mnt")
	for _, c := range cands {
		if fi, err := os.Stat(c); err == nil && fi.IsDir() {
			if ents, err := os.ReadDir(c); err == nil && len(ents) > 0 {
				return c
			}
		}
	}
	return ""
}

// startAt sets a folder dialog's first location to the mounted volumes.
func startAt(d interface{ SetLocation(fyne.ListableURI) }, dir string) {
	if dir == "" {
		return
	}
	if l, err := storage.ListerForURI(storage.NewFileURI(dir)); err == nil {
		d.SetLocation(l)
	}
}
