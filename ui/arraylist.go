package ui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/dit-org/dit/internal/assembly"
	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/devices"
	"github.com/dit-org/dit/raid"
	"github.com/dit-org/dit/raid/mountplace"
)

// knownArray is a dit array the Arrays tab lists: one the catalog's jobs
// wrote to (a destination that is a blade, or the folder a blade of it
// was last seen at), or one on a volume mounted now.
type knownArray struct {
	UUID, Label string
	// Blades are its blade folders found here now (the first is the one
	// it is opened by).
	Blades []string
	// OnVolume: a blade was found on a volume mounted now (not only
	// through a job).
	OnVolume bool
	// Jobs are the jobs that wrote to it, newest first.
	Jobs []*catalog.Job
	// St is the array as read now (nil, with Err, when it cannot be).
	St  *arrayStatus
	Err string
	// Place says whether its files open in other programs now (dit
	// array mount: raid/mountplace).
	Place *mountplace.Place
}

// findArrays lists the arrays the catalog's jobs wrote to and those on
// the volumes vols, each read (I/O: off the UI goroutine). An array none
// of whose blades is here now is not listed: the catalog records a
// destination by its folder only, so a folder that is gone cannot be told
// from a plain one.
func findArrays(cat *catalog.Catalog, vols []devices.Volume) ([]*knownArray, error) {
	jobs, err := cat.Jobs()
	if err != nil {
		return nil, err
	}
	byUUID := map[string]*knownArray{}
	byDir := map[string]*knownArray{} // blade folders here and last-seen folders
	add := func(dir string) *knownArray {
		dir = filepath.Clean(dir)
		if k := byDir[dir]; k != nil && slices.Contains(k.Blades, dir) {
			return k
		}
		if !raid.IsBlade(dir) {
			return nil
		}
		uuid, label, err := raid.ArrayIdentity(dir)
		if err != nil {
			return nil
		}
		k := byUUID[uuid]
		if k == nil {
			k = &knownArray{UUID: uuid, Label: label}
			byUUID[uuid] = k
		}
		k.Blades = append(k.Blades, dir)
		byDir[dir] = k
		if hints, err := raid.BladeHints(dir); err == nil {
			for _, h := range hints {
				if h != "" && byDir[filepath.Clean(h)] == nil {
					byDir[filepath.Clean(h)] = k
				}
			}
		}
		return k
	}
	type written struct {
		job  *catalog.Job
		dirs []string
	}
	var ws []written
	for _, j := range jobs {
		ds, err := cat.Dests(j.ID)
		if err != nil {
			return nil, err
		}
		w := written{job: j}
		for _, d := range ds {
			if !assembly.IsCloudDest(d.Path) {
				w.dirs = append(w.dirs, filepath.Clean(d.Path))
				add(d.Path)
			}
		}
		ws = append(ws, w)
	}
	for _, v := range vols {
		for _, dir := range bladesOnVolume(v.Mount) {
			if k := add(dir); k != nil {
				k.OnVolume = true
			}
		}
	}
	for _, w := range ws { // newest first
		for _, dir := range w.dirs {
			if k := byDir[dir]; k != nil && !slices.Contains(k.Jobs, w.job) {
				k.Jobs = append(k.Jobs, w.job)
			}
		}
	}
	res := mountplace.NewResolver()
	var out []*knownArray
	for _, k := range byUUID {
		k.St, err = loadArrayStatus(k.Blades[0])
		if err != nil {
			k.Err = err.Error()
		}
		k.Place = res.PlaceOf(k.Blades[0])
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Label != out[j].Label {
			return out[i].Label < out[j].Label
		}
		return out[i].UUID < out[j].UUID
	})
	return out, nil
}

// bladesOnVolume are the blade folders at a volume's root and in the
// folders right under it (a drive given whole to a blade, or a blade
// folder on it).
func bladesOnVolume(mount string) []string {
	if mount == "" {
		return nil
	}
	var out []string
	if raid.IsBlade(mount) {
		out = append(out, mount)
	}
	entries, err := os.ReadDir(mount)
	if err != nil {
		return out
	}
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			if p := filepath.Join(mount, e.Name()); raid.IsBlade(p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// name is the array as the list names it: its label, or its UUID's
// first digits.
func (k *knownArray) name() string {
	if k.Label != "" {
		return fmt.Sprintf("%q", k.Label)
	}
	if len(k.UUID) >= 8 {
		return "array " + k.UUID[:8]
	}
	return "array " + k.UUID
}

// headText is the array's first line: its name, level and health.
func (k *knownArray) headText() (string, widget.Importance) {
	if k.St == nil {
		return k.name() + ": cannot be read: " + k.Err, widget.DangerImportance
	}
	imp := widget.SuccessImportance
	if len(k.St.missing()) > 0 || (k.St.Health != nil && !k.St.Health.Healthy()) {
		imp = widget.DangerImportance
	}
	return fmt.Sprintf("%s, %s: %s", k.name(), k.St.levelText(), firstLine(k.St.health())), imp
}

// detailText is where its blades are, which jobs wrote to it, and
// whether its files open in other programs now.
func (k *knownArray) detailText() string {
	var parts []string
	if k.St != nil {
		var here []string
		for _, m := range k.St.Members {
			if m.Dir != "" {
				here = append(here, m.Dir)
			}
		}
		parts = append(parts, fmt.Sprintf("%d of %d blades here (%s)", len(here), len(k.St.Members), strings.Join(here, ", ")))
	} else {
		parts = append(parts, "blade "+strings.Join(k.Blades, ", "))
	}
	switch n := len(k.Jobs); {
	case n == 0 && k.OnVolume:
		parts = append(parts, "on a volume mounted now; no job of this catalog wrote to it")
	case n > 0:
		j := k.Jobs[0]
		last := fmt.Sprintf("job %d %q", j.ID, j.Name)
		if !j.Started.IsZero() {
			last += " of " + j.Started.Local().Format("2006-01-02 15:04")
		}
		parts = append(parts, fmt.Sprintf("written by %s, the last %s", plural(n, "job"), last))
	}
	if k.Place != nil {
		if k.Place.Mounted {
			parts = append(parts, "its files open at "+k.Place.Dir)
		} else {
			parts = append(parts, "not mounted (its files open in other programs once it is: "+k.Place.MountCommand()+")")
		}
	}
	return strings.Join(parts, "; ")
}

// arrayList is the Arrays tab's list of the arrays known here, each with
// an Open button that shows it below (its blades, drive health, scrub,
// rebuild).
type arrayList struct {
	v     *arrayView
	box   *fyne.Container
	open  *pathField // an array by a blade folder's path
	note  *widget.Label
	items []*knownArray
	// opens are the list's Open buttons, by array UUID (tests).
	opens map[string]*widget.Button
	// seq counts the looks (UI goroutine): only the latest is shown.
	seq int
}

func newArrayList(v *arrayView) *arrayList {
	l := &arrayList{v: v, box: container.NewVBox(), note: widget.NewLabel("Arrays are listed when this tab is shown.")}
	l.note.Wrapping = fyne.TextWrapWord
	return l
}

// reload finds the arrays again (UI goroutine; read in the background;
// a look that ends after a later one is not shown).
func (l *arrayList) reload() {
	v := l.v
	l.seq++
	seq := l.seq
	v.a.bg.Add(1) // it reads the catalog: Close waits for it
	v.goOp(func() {
		defer v.a.bg.Done()
		ctx := context.Background()
		vols, _ := v.a.cfg.Discover(ctx)
		ks, err := findArrays(v.a.cfg.Catalog, vols)
		v.a.do(func() {
			if seq == l.seq {
				l.show(ks, err)
			}
		})
	})
}

// show lists the arrays found (UI goroutine).
func (l *arrayList) show(ks []*knownArray, err error) {
	l.items, l.opens = ks, map[string]*widget.Button{}
	l.box.RemoveAll()
	switch {
	case err != nil:
		l.note.SetText("The catalog cannot be read: " + err.Error())
		l.note.Importance = widget.DangerImportance
	case len(ks) == 0:
		l.note.SetText("No dit array here: none of the jobs' destinations, and none of the volumes mounted now, is a blade of one. Open one by a blade folder below (dit array create makes one).")
		l.note.Importance = widget.MediumImportance
	default:
		l.note.SetText(fmt.Sprintf("%s written to by the jobs of this catalog or on the volumes mounted now:", plural(len(ks), "array")))
		l.note.Importance = widget.MediumImportance
	}
	l.note.Refresh()
	for _, k := range ks {
		k := k
		head, imp := k.headText()
		hl := widget.NewLabelWithStyle(head, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
		hl.Wrapping = fyne.TextWrapWord
		hl.Importance = imp
		dl := widget.NewLabel(k.detailText())
		dl.Wrapping = fyne.TextWrapWord
		open := widget.NewButtonWithIcon("Open", theme.StorageIcon(), func() { l.v.openArray(k.Blades[0]) })
		l.opens[k.UUID] = open
		l.box.Add(container.NewBorder(nil, nil, container.NewVBox(open), nil, container.NewVBox(hl, dl)))
	}
	l.box.Refresh()
}
