package ui

import (
	"fmt"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2/dialog"

	"github.com/dit-org/dit/internal/assembly"
	"github.com/dit-org/dit/internal/watch"
)

// ejectInfo asks whether to eject a free card: it may leave the reader;
// it is safe to format only once the summary says so. dests are the
// job's (first-run) destinations.
func ejectInfo(c cardView, mv runView, dests []string) (title, msg string) {
	path := c.Path
	if path == "" {
		path = "(its path is not known)"
	}
	if len(mv.Dests) > 0 {
		dests = mv.Dests
	}
	title = "Eject " + c.Label + "?"
	var b strings.Builder
	if c.Cascade {
		fmt.Fprintf(&b, "%s is verified on the first-run destinations (%s)", c.Label, strings.Join(dests, ", "))
		if !c.FreeAt.IsZero() {
			fmt.Fprintf(&b, " since %s", c.FreeAt.Local().Format("15:04:05"))
		}
	} else {
		fmt.Fprintf(&b, "%s is verified on every destination (%s)", c.Label, strings.Join(dests, ", "))
	}
	fmt.Fprintf(&b, ".\n\nIt may be removed from the reader:\n%s\n\n", path)
	switch {
	case c.HaveSummary && c.Safe:
		fmt.Fprintf(&b, "The job's summary says it is safe to format.")
	case c.Cascade:
		fmt.Fprintf(&b, "Do NOT format it: its second run (to %s) is not verified yet.\nIt is safe to format only once it reads \"%s\".", strings.Join(mv.Then, ", "), stateSafe)
	default:
		fmt.Fprintf(&b, "It is safe to format only once it reads \"%s\" (the job's summary).", stateSafe)
	}
	b.WriteString("\n\nEject unmounts the card and powers its reader off (udisksctl on Linux, diskutil on macOS).\ndit never ejects a destination.")
	return title, b.String()
}

// showEject asks to eject a free card, then ejects it (UI goroutine).
func (v *runningView) showEject(c cardView) {
	if v.run == nil || !c.ejectable() {
		return
	}
	run := v.run
	m := run.modelOrNil()
	if m == nil {
		return
	}
	title, msg := ejectInfo(c, m.view(), run.dests)
	v.ejectMsg = msg
	d := dialog.NewConfirm(title, msg, func(ok bool) {
		if ok {
			v.ejectCard(run, c)
		}
	}, v.a.win)
	d.SetConfirmText("Eject")
	d.SetDismissText("Keep it mounted")
	d.Show()
}

// ejectCard ejects card c of run (UI goroutine; the eject runs in the
// background) through watch.Watcher.Eject: never a destination of the job
// or of the watched preset (watch.SafeToEject), with the app's Ejector;
// the result is recorded with the card in the catalog, said in the
// auto-offload log and shown on the card.
func (v *runningView) ejectCard(run *jobRun, c cardView) {
	a := v.a
	m := run.modelOrNil()
	m.setEject(c.Path, c.Label, ejectBusy, "")
	v.render()
	p := &watch.Preset{Spec: assembly.Spec{Dests: append([]string(nil), run.dests...), Then: append([]string(nil), run.then...)}}
	if w := a.auto.w; w != nil {
		p.Dests = append(p.Dests, w.Preset.Dests...)
		p.Then = append(p.Then, w.Preset.Then...)
	}
	src := a.auto.src
	if src == nil {
		src = a.cfg.Volumes
	}
	jobID := m.jobID
	a.goBG(func() {
		if src == nil {
			src = watch.System()
		}
		vol := findVolume(src, c.Path)
		w := &watch.Watcher{Preset: p, Ejector: a.cfg.Ejector, Catalog: a.cfg.Catalog, Say: a.auto.say}
		if err := w.Eject(vol, jobID, c.Label); err != nil {
			m.setEject(c.Path, c.Label, ejectFailed, err.Error())
		} else if c.Cascade && !(c.HaveSummary && c.Safe) {
			m.setEject(c.Path, c.Label, ejectDone, "the card may be removed (it is free, NOT safe to format until every copy is verified)")
		} else {
			m.setEject(c.Path, c.Label, ejectDone, "verified on every destination: the card may be removed")
		}
		a.do(v.render)
	})
}

// ejectResult shows an eject the watch made (UI goroutine).
func (v *runningView) ejectResult(path string, ok bool, msg string) {
	if v.run == nil {
		return
	}
	state := ejectDone
	if !ok {
		state = ejectFailed
	}
	if m := v.run.modelOrNil(); m != nil && m.setEject(filepath.Clean(path), "", state, msg) {
		v.render()
	}
}

// findVolume is the mounted volume at path (its device, to eject it), or
// just its path when src does not list it.
func findVolume(src watch.Source, path string) watch.Volume {
	path = filepath.Clean(path)
	if vols, err := src.List(); err == nil {
		for _, vol := range vols {
			if filepath.Clean(vol.Path) == path {
				return vol
			}
		}
	}
	return watch.Volume{Path: path, Label: filepath.Base(path)}
}
