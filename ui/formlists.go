package ui

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/dit-org/dit/internal/devices"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/source"
	"github.com/dit-org/dit/internal/units"
	"github.com/dit-org/dit/raid"
)

// cardItem is a card folder chosen for the next job.
type cardItem struct {
	Path     string
	Label    string
	Scanning bool
	Files    int
	Bytes    int64
	Err      string
	// Prior is an earlier offload of exactly this content (nil: none).
	// Such a card is left out of the job unless Again is set.
	Prior *offload.Prior
	Again bool
}

// included reports whether the card goes into the job.
func (c cardItem) included() bool { return c.Err == "" && (c.Prior == nil || c.Again) }

// destItem is a destination folder: plain, or a blade of a dit array.
type destItem struct {
	Path    string
	Loading bool
	// Refreshing: its free space is read again (every Config.FreshEvery);
	// the last figure stays shown and the plan keeps using it meanwhile.
	Refreshing bool
	Free       int64 // bytes that still fit; -1 unknown
	Array      *arrayStatus
	Err        string
	// Cloud: an rclone:REMOTE:PATH destination (no folder here, no free
	// space figure).
	Cloud bool
	// Then puts the destination in a cascade's second run: filled from
	// each card's first copy once the card is free (else: the first
	// run, read from the card).
	Then bool
}

// The run a destination is in, in words.
const (
	destFirstText = "First copy (card is read)"
	destThenText  = "Then, from the first copy"
)

// thenParChoices: how many cards a cascade's second run copies at once.
var thenParChoices = []string{"1", "2", "3", "4", "6", "8"}

// noFirstCopy says why a cascade without a first-run destination cannot
// start.
const noFirstCopy = "A second-run destination (\"" + destThenText + "\") needs at least one first-run destination: " +
	"the second run copies each card's verified first copy, never the card. Set a destination to \"" + destFirstText + "\"."

// addCard adds a card folder and scans it in the background (UI goroutine).
func (v *offloadView) addCard(path string) {
	path = filepath.Clean(path)
	for _, c := range v.cards {
		if c.Path == path {
			return
		}
	}
	if err := v.overlaps(path, ""); err != nil {
		v.say(err.Error())
		return
	}
	it := &cardItem{Path: path, Label: filepath.Base(path), Scanning: true}
	v.cards = append(v.cards, it)
	v.renderCards()
	v.a.goBG(func() { v.scanCard(it, path) })
}

// rescan looks at every card again (after a job: a card offloaded and
// verified is then found by FindPrior and left out of the next job).
func (v *offloadView) rescan() {
	for _, c := range v.cards {
		if c.Scanning {
			continue
		}
		c := c
		c.Scanning, c.Err, c.Prior, c.Again = true, "", nil, false
		v.a.goBG(func() { v.scanCard(c, c.Path) })
	}
	v.renderCards()
	v.refreshDests()
}

// refreshDests reads each destination folder's free space (and a
// blade's array and drive health) again: after a job wrote to it, or a
// drive was resized or emptied, the form shows what is free now.
func (v *offloadView) refreshDests() {
	for _, d := range v.dests {
		if d.Cloud || d.Loading || d.Refreshing {
			continue
		}
		d.Refreshing = true
		v.a.goBG(func() { v.loadDest(d, d.Path) })
	}
}

func (v *offloadView) scanCard(it *cardItem, path string) {
	a := v.a
	sc, err := source.Scan(a.cfg.FS, path, source.Options{})
	var prior *offload.Prior
	if err == nil {
		priors, _, perr := offload.FindPrior(context.Background(), a.cfg.Catalog, a.cfg.FS, []string{path}, false, nil)
		if perr == nil && len(priors) == 1 {
			prior = priors[0]
		}
	}
	a.do(func() {
		it.Scanning = false
		if err != nil {
			it.Err = err.Error()
		} else {
			it.Label, it.Files, it.Bytes, it.Prior = sc.Label, sc.Files.Len(), sc.Bytes, prior
		}
		v.renderCards()
		v.replan()
	})
}

// addDest adds a destination folder and looks at it in the background:
// free space, and whether it is a blade of a dit array (its health).
func (v *offloadView) addDest(path string) {
	path = filepath.Clean(path)
	for _, d := range v.dests {
		if d.Path == path {
			return
		}
	}
	if err := v.overlaps("", path); err != nil {
		v.say(err.Error())
		return
	}
	it := &destItem{Path: path, Loading: true, Free: -1}
	v.dests = append(v.dests, it)
	v.renderDests()
	v.a.goBG(func() { v.loadDest(it, path) })
}

func (v *offloadView) loadDest(it *destItem, path string) {
	free, ferr := v.a.freeSpace(path)
	var st *arrayStatus
	var aerr error
	if raid.IsBlade(path) {
		st, aerr = loadArrayStatus(path)
		if aerr == nil {
			free = int64(min(st.Free, 1<<62))
			st.Members, st.DrivesRead = v.a.askDrives(st), true // st is not shown yet
		}
	}
	v.a.do(func() {
		// A periodic read that changed nothing leaves the plan alone.
		same := it.Refreshing && !it.Loading && it.Free == free && it.Array == nil && st == nil && aerr == nil && ferr == nil && it.Err == ""
		it.Loading, it.Refreshing, it.Err = false, false, ""
		it.Free, it.Array = free, st
		switch {
		case aerr != nil:
			it.Err = aerr.Error()
		case ferr != nil:
			it.Err = ferr.Error()
		}
		if same {
			return
		}
		v.renderDests()
		v.replan()
	})
}

// freeSpace is what the jobs' filesystem (Config.FS, the engine's) says
// an unprivileged writer can still put in dir; -1 when it cannot say.
func (a *App) freeSpace(dir string) (int64, error) {
	n, _, err := a.cfg.FS.Free(dir)
	if err != nil {
		return -1, err
	}
	return int64(min(n, 1<<62)), nil
}

// overlaps checks the form's cards and destinations with card (or dest)
// added, as a job checks them at its start (offload.Overlaps): a card
// inside a card, a card as or inside a destination, a destination inside a
// card are refused the moment they are added, with the reason.
func (v *offloadView) overlaps(card, dest string) error {
	var cards, dests []string
	for _, c := range v.cards {
		cards = append(cards, c.Path)
	}
	for _, d := range v.dests {
		if !d.Cloud {
			dests = append(dests, d.Path)
		}
	}
	if card != "" {
		cards = append(cards, card)
	}
	if dest != "" {
		dests = append(dests, dest)
	}
	return offload.Overlaps(cards, dests)
}

// detectCards adds the removable volumes the machine reports.
func (v *offloadView) detectCards() {
	a := v.a
	v.say("")
	go func() {
		vols, err := a.cfg.Discover(context.Background())
		a.do(func() {
			if err != nil {
				v.say("Cannot detect cards: " + err.Error())
				return
			}
			n := 0
			for _, vol := range vols {
				if vol.Removable && !vol.Internal && !v.isDest(vol.Mount) {
					v.addCard(vol.Mount)
					n++
				}
			}
			if n == 0 {
				v.say("No removable volume found: add card folders by hand.")
			}
		})
	}()
}

func (v *offloadView) isDest(p string) bool {
	for _, d := range v.dests {
		if d.Path == p {
			return true
		}
	}
	return false
}

func (v *offloadView) renderCards() {
	if v.mounted != nil {
		v.mounted.render() // a card added or removed: its Add button follows
	}
	v.cardBox.RemoveAll()
	if len(v.cards) == 0 {
		v.cardBox.Add(widget.NewLabel("No cards yet."))
	}
	for i, c := range v.cards {
		c := c
		title := widget.NewLabelWithStyle(c.Label, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
		var info string
		switch {
		case c.Scanning:
			info = "scanning..."
		case c.Err != "":
			info = c.Err
		default:
			info = fmt.Sprintf("%s, %s", plural(c.Files, "file"), units.FormatBytes(c.Bytes))
		}
		infoL := widget.NewLabel(info)
		if c.Err != "" {
			infoL.Importance = widget.DangerImportance
		}
		remove := widget.NewButtonWithIcon("", theme.DeleteIcon(), func() { v.removeCard(i) })
		path := widget.NewLabel(c.Path)
		path.Truncation = fyne.TextTruncateEllipsis
		speed := v.a.speedButton(func() speedTarget { return speedTarget{Path: c.Path, What: "card " + c.Label, ReadOnly: true} })
		row := container.NewVBox(container.NewBorder(nil, nil, container.NewHBox(title, infoL), container.NewHBox(speed, remove), path))
		if c.Prior != nil {
			msg := widget.NewLabel("Already offloaded: " + c.Prior.Message() + ". Left out of the job.")
			msg.Wrapping = fyne.TextWrapWord
			msg.Importance = widget.SuccessImportance
			again := widget.NewCheck("Copy it again", func(b bool) { c.Again = b; v.replan() })
			again.SetChecked(c.Again)
			row.Add(msg)
			row.Add(again)
		}
		v.cardBox.Add(row)
	}
	v.relayout()
	v.autoChanged()
}

func (v *offloadView) removeCard(i int) {
	if i < len(v.cards) {
		v.cards = append(v.cards[:i], v.cards[i+1:]...)
		v.renderCards()
		v.replan()
	}
}

func (v *offloadView) renderDests() {
	v.destBox.RemoveAll()
	if len(v.dests) == 0 {
		v.destBox.Add(widget.NewLabel("No destinations yet."))
	}
	for i, d := range v.dests {
		var info string
		imp := widget.MediumImportance
		switch {
		case d.Cloud:
			info = cloudInfo(d)
		case d.Loading:
			info = "looking..."
		case d.Err != "":
			info, imp = d.Err, widget.DangerImportance
		case d.Array != nil:
			info = fmt.Sprintf("dit array %q, %s: %s", d.Array.Label, d.Array.levelText(), d.Array.health())
			if d.Free >= 0 {
				info += ", " + units.FormatBytes(d.Free) + " free"
			}
			if len(d.Array.missing()) > 0 {
				imp = widget.WarningImportance
			} else {
				imp = widget.SuccessImportance
			}
		case d.Free >= 0:
			info = "folder, " + units.FormatBytes(d.Free) + " free"
		default:
			info = "folder"
		}
		path := widget.NewLabelWithStyle(d.Path, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
		path.Truncation = fyne.TextTruncateEllipsis
		infoL := widget.NewLabel(info)
		infoL.Importance = imp
		infoL.Wrapping = fyne.TextWrapWord
		remove := widget.NewButtonWithIcon("", theme.DeleteIcon(), func() { v.removeDest(i) })
		speed := v.a.speedButton(func() speedTarget { return destTarget(d) })
		buttons := container.NewHBox(speed, remove)
		if d.Cloud {
			buttons = container.NewHBox(remove) // no folder here to test
		}
		run := widget.NewRadioGroup([]string{destFirstText, destThenText}, nil)
		run.Horizontal, run.Required = true, true
		if d.Then {
			run.SetSelected(destThenText)
		} else {
			run.SetSelected(destFirstText)
		}
		run.OnChanged = func(s string) { v.setDestRun(i, s == destThenText) }
		row := container.NewBorder(nil, nil, nil, buttons, container.NewVBox(path, infoL, run))
		if d.Array != nil {
			blades := container.NewVBox()
			for _, m := range d.Array.Members {
				l := widget.NewLabel("    " + m.text())
				l.Wrapping = fyne.TextWrapWord
				if m.Drive.State() == devices.DriveWarning {
					l.Importance = widget.WarningImportance
				}
				blades.Add(l)
			}
			row = container.NewBorder(nil, blades, nil, buttons, container.NewVBox(path, infoL, run))
		}
		v.destBox.Add(row)
	}
	v.renderCascade()
	v.renderProxyTo()
	v.relayout()
}

// destTarget is a destination's speed test: a dit array's (each blade,
// then the whole array) when it is a blade of one, else the folder's.
func destTarget(d *destItem) speedTarget {
	if d.Array != nil {
		return arrayTarget(d.Path, d.Array)
	}
	return speedTarget{Path: d.Path, What: "destination " + d.Path}
}

// setDestRun puts destination i in the second run (then) or the first
// (UI goroutine).
func (v *offloadView) setDestRun(i int, then bool) {
	if i >= len(v.dests) || v.dests[i].Then == then {
		return
	}
	v.dests[i].Then = then
	v.renderCascade()
	v.relayout()
	v.replan()
}

// runDests splits the destinations by run, each in the order shown.
func (v *offloadView) runDests() (first, then []string) {
	for _, d := range v.dests {
		if d.Then {
			then = append(then, d.Path)
		} else {
			first = append(first, d.Path)
		}
	}
	return first, then
}

// renderCascade says what the cascade does, or why it cannot start.
func (v *offloadView) renderCascade() {
	if v.cascadeL == nil {
		return
	}
	first, then := v.runDests()
	defer v.renderCloudRule()
	if len(then) == 0 {
		v.thenPar.Disable()
		v.cascadeL.Hide()
		return
	}
	v.thenPar.Enable()
	if len(first) == 0 {
		v.cascadeL.SetText(noFirstCopy)
		v.cascadeL.Importance = widget.DangerImportance
	} else {
		v.cascadeL.SetText(fmt.Sprintf("Cascade: each card is copied to %s; once verified there it is free (it may leave the reader, NOT be formatted) "+
			"and its second run copies the first copy on %s to %s. A card is safe to format only once both runs verified it.",
			strings.Join(first, ", "), first[0], strings.Join(then, ", ")))
		v.cascadeL.Importance = widget.MediumImportance
	}
	v.cascadeL.Refresh()
	v.cascadeL.Show()
}

// thenParallel is the second run's cards at once.
func (v *offloadView) thenParallel() int {
	n, err := strconv.Atoi(v.thenPar.Selected)
	if err != nil || n < 1 {
		return 1
	}
	return n
}

func (v *offloadView) removeDest(i int) {
	if i < len(v.dests) {
		v.dests = append(v.dests[:i], v.dests[i+1:]...)
		v.renderDests()
		v.replan()
	}
}

// included lists the cards that go into the job.
func (v *offloadView) included() []cardItem {
	var out []cardItem
	for _, c := range v.cards {
		if c.included() {
			out = append(out, *c)
		}
	}
	return out
}
