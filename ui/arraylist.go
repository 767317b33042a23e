package ui

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

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

// knownArray is a dit array the Arrays tab lists: one the catalog saw
// (a job wrote to it, a speed test measured it: catalog.ArraysSeen), one
// a job's destination folder is a blade of now, or one on a volume
// mounted now.
type knownArray struct {
	UUID, Label string
	// Blades are its blade folders found here now (the first is the one
	// it is opened by); none when no blade of it is connected.
	Blades []string
	// OnVolume: a blade was found on a volume mounted now (not only
	// through a job).
	OnVolume bool
	// Jobs are the jobs that wrote to it, newest first.
	Jobs []*catalog.Job
	// Seen are the blade folders the catalog saw it at, the newest
	// first, each once (its newest sighting).
	Seen []catalog.ArraySeen
	// St is the array as read now (nil, with Err, when it cannot be;
	// nil without Err when no blade is here).
	St  *arrayStatus
	Err string
	// Place says whether its files open in other programs now (dit
	// array mount: raid/mountplace).
	Place *mountplace.Place
}

// here says whether a blade of the array is connected now (it can be
// opened).
func (k *knownArray) here() bool { return len(k.Blades) > 0 }

// arrayFinder gathers the arrays of findArrays: by UUID, and by the
// folders their blades are at now or were last seen at by a blade.
type arrayFinder struct {
	byUUID map[string]*knownArray
	byDir  map[string]*knownArray
}

// array is the entry of uuid (made when new).
func (f *arrayFinder) array(uuid string) *knownArray {
	k := f.byUUID[uuid]
	if k == nil {
		k = &knownArray{UUID: uuid}
		f.byUUID[uuid] = k
	}
	return k
}

// add lists the array dir is a blade of, if it is one now (I/O).
func (f *arrayFinder) add(dir string) *knownArray {
	dir = filepath.Clean(dir)
	if k := f.byDir[dir]; k != nil && slices.Contains(k.Blades, dir) {
		return k
	}
	if !raid.IsBlade(dir) {
		return nil
	}
	uuid, label, err := raid.ArrayIdentity(dir)
	if err != nil {
		return nil
	}
	k := f.array(uuid)
	if k.Label == "" {
		k.Label = label
	}
	k.Blades = append(k.Blades, dir)
	f.byDir[dir] = k
	if hints, err := raid.BladeHints(dir); err == nil {
		for _, h := range hints {
			if h != "" && f.byDir[filepath.Clean(h)] == nil {
				f.byDir[filepath.Clean(h)] = k
			}
		}
	}
	return k
}

// findArrays lists the arrays the catalog saw (catalog.ArraysSeen: the
// jobs that wrote to them, with the blade folders they were at, even
// when none of their blades is here now), those a job's destination
// folder is a blade of now, and those on the volumes vols, one entry per
// array UUID, each read when a blade of it is here (I/O: off the UI
// goroutine). A job's destination the catalog has no array for (a job
// recorded before copies had identities) counts for the array its
// folder is a blade of now, if any.
func findArrays(cat *catalog.Catalog, vols []devices.Volume) ([]*knownArray, error) {
	jobs, err := cat.Jobs()
	if err != nil {
		return nil, err
	}
	seen, err := cat.ArraysSeen()
	if err != nil {
		return nil, err
	}
	f := &arrayFinder{byUUID: map[string]*knownArray{}, byDir: map[string]*knownArray{}}
	byJob := map[int64]*catalog.Job{}
	for _, j := range jobs {
		byJob[j.ID] = j
	}
	// The catalog's: where each array was seen, and by which jobs.
	known := map[int64]map[string]bool{} // job -> destination folders whose array is known
	for _, s := range seen {
		k := f.array(s.UUID)
		if !slices.ContainsFunc(k.Seen, func(o catalog.ArraySeen) bool { return o.Path == s.Path }) {
			k.Seen = append(k.Seen, s)
		}
		if j := byJob[s.JobID]; j != nil {
			if known[j.ID] == nil {
				known[j.ID] = map[string]bool{}
			}
			known[j.ID][filepath.Clean(s.Path)] = true
			if !slices.Contains(k.Jobs, j) {
				k.Jobs = append(k.Jobs, j)
			}
		}
		f.add(s.Path)
	}
	// The jobs' other destinations: the blades there now.
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
			if dir := filepath.Clean(d.Path); !assembly.IsRemoteDest(d.Path) && !known[j.ID][dir] {
				w.dirs = append(w.dirs, dir)
				f.add(dir)
			}
		}
		ws = append(ws, w)
	}
	for _, v := range vols {
		for _, dir := range bladesOnVolume(v.Mount) {
			if k := f.add(dir); k != nil {
				k.OnVolume = true
			}
		}
	}
	for _, w := range ws {
		for _, dir := range w.dirs {
			if k := f.byDir[dir]; k != nil && !slices.Contains(k.Jobs, w.job) {
				k.Jobs = append(k.Jobs, w.job)
			}
		}
	}
	res := mountplace.NewResolver()
	var out []*knownArray
	for _, k := range f.byUUID {
		slices.SortStableFunc(k.Jobs, func(a, b *catalog.Job) int { return cmp.Compare(b.ID, a.ID) }) // newest first
		if k.here() {
			k.St, err = loadArrayStatus(k.Blades[0], k.Blades[1:]...)
			if err != nil {
				k.Err = err.Error()
			}
			k.Place = res.PlaceOf(k.Blades[0])
		}
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].before(out[j]) })
	return out, nil
}

// before orders the list: the arrays here first, by label; then those
// not here, the one seen last first.
func (k *knownArray) before(o *knownArray) bool {
	if k.here() != o.here() {
		return k.here()
	}
	if !k.here() && len(k.Seen) > 0 && len(o.Seen) > 0 && !k.Seen[0].T.Equal(o.Seen[0].T) {
		return k.Seen[0].T.After(o.Seen[0].T)
	}
	if k.Label != o.Label {
		return k.Label < o.Label
	}
	return k.UUID < o.UUID
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

// headText is the array's first line: its name, level and health; for
// one none of whose blades is here, where it was last seen and that no
// blade is connected (not an error: a shuttle's blades go to the lab).
func (k *knownArray) headText() (string, widget.Importance) {
	if !k.here() {
		name := k.name()
		if k.Label == "" && len(k.Seen) > 0 {
			name += ", last seen at " + k.Seen[0].Path
		}
		return name + ": no blade connected", widget.MediumImportance
	}
	if k.St == nil {
		return k.name() + ": cannot be read: " + k.Err, widget.DangerImportance
	}
	imp := widget.SuccessImportance
	if len(k.St.missing()) > 0 || (k.St.Health != nil && !k.St.Health.Healthy()) {
		imp = widget.DangerImportance
	}
	return fmt.Sprintf("%s, %s: %s", k.name(), k.St.levelText(), firstLine(k.St.health())), imp
}

// when is a time as the list says it (local).
func when(t time.Time) string { return t.Local().Format("2006-01-02 15:04") }

// detailText is where its blades are (or were seen, when none is here),
// which jobs wrote to it, and whether its files open in other programs
// now.
func (k *knownArray) detailText() string {
	var parts []string
	switch {
	case !k.here():
		var at []string
		for _, s := range k.Seen {
			at = append(at, s.Path+" on "+when(s.T))
		}
		parts = append(parts, "connect a blade to open it")
		if len(at) > 0 {
			parts = append(parts, "seen at "+strings.Join(at, ", "))
		}
	case k.St != nil:
		var here []string
		for _, m := range k.St.Members {
			if m.Dir != "" {
				here = append(here, m.Dir)
			}
		}
		parts = append(parts, fmt.Sprintf("%d of %d blades here (%s)", len(here), len(k.St.Members), strings.Join(here, ", ")))
	default:
		parts = append(parts, "blade "+strings.Join(k.Blades, ", "))
	}
	switch {
	case len(k.Jobs) > 0:
		parts = append(parts, jobsText(k.Jobs))
	case k.OnVolume:
		parts = append(parts, "on a volume mounted now; no job of this catalog wrote to it")
	case !k.here():
		parts = append(parts, "no job of this catalog wrote to it (a speed test measured it)")
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

// jobsNamed is how many of an array's jobs its line names (the newest).
const jobsNamed = 4

// jobsText names the jobs that wrote to an array, newest first (jobs
// is in that order).
func jobsText(jobs []*catalog.Job) string {
	var names []string
	for _, j := range jobs[:min(len(jobs), jobsNamed)] {
		s := fmt.Sprintf("job %d %q", j.ID, j.Name)
		if !j.Started.IsZero() {
			s += " of " + when(j.Started)
		}
		names = append(names, s)
	}
	if n := len(jobs) - jobsNamed; n > 0 {
		names = append(names, fmt.Sprintf("%d older", n))
	}
	if len(jobs) == 1 {
		return "written by " + names[0]
	}
	return fmt.Sprintf("written by %s, newest first: %s", plural(len(jobs), "job"), strings.Join(names, ", "))
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
		l.note.SetText(fmt.Sprintf("%s seen by this catalog (its jobs, its speed tests) or on the volumes mounted now:", plural(len(ks), "array")))
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
		open := widget.NewButtonWithIcon("Open", theme.StorageIcon(), func() {
			if k.here() {
				l.v.openBlades(k.Blades[0], k.Blades[1:])
			}
		})
		if !k.here() {
			open.Disable() // nothing to open it by: its line says so
		}
		l.opens[k.UUID] = open
		l.box.Add(container.NewBorder(nil, nil, container.NewVBox(open), nil, container.NewVBox(hl, dl)))
	}
	l.box.Refresh()
}
