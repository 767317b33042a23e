package ui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/dit-org/dit/internal/assembly"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/plan"
	"github.com/dit-org/dit/internal/source"
	"github.com/dit-org/dit/internal/units"
	"github.com/dit-org/dit/internal/watch"
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
	Free    int64 // bytes that still fit; -1 unknown
	Array   *arrayStatus
	Err     string
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

// Verify choices, in words.
const (
	verifyDestText   = "Read back every copy"
	verifySourceText = "Read back every copy and re-read the card"
	verifyNoneText   = "No read-back (never safe to format)"
)

// verifyLimitNote says what "read back every copy" cannot catch, as the
// README and dit offload --help do.
func verifyLimitNote() *widget.Label {
	l := widget.NewLabel(offload.VerifyLimit)
	l.Wrapping = fyne.TextWrapWord
	l.Importance = widget.LowImportance
	return l
}

var verifyModes = map[string]offload.VerifyMode{
	verifyDestText: offload.VerifyDest, verifySourceText: offload.VerifySourceDest, verifyNoneText: offload.VerifyNone,
}

// MHL choices, in words, and their seal.ParseFormat names.
var mhlChoices = []string{"ASC MHL", "MHL v1.1", "ASC MHL and MHL v1.1", "None"}
var mhlNames = map[string]string{"ASC MHL": "asc", "MHL v1.1": "v1", "ASC MHL and MHL v1.1": "both", "None": "none"}

// Simulation speeds.
var scaleChoices = []string{"1/1", "1/10", "1/100", "1/1000"}
var scales = map[string]float64{"1/1": 1, "1/10": 0.1, "1/100": 0.01, "1/1000": 0.001}

// offloadView is where a job is set up: cards, destinations, hash and
// verify settings, a topology preset, the plan, and Start.
type offloadView struct {
	a       *App
	content fyne.CanvasObject

	cards []*cardItem
	dests []*destItem

	cardBox, destBox *fyne.Container
	name             *widget.Entry
	hashes           []*widget.Check
	verify           *widget.RadioGroup
	verifyAll        *widget.Check
	mhl              *widget.Select
	degraded         *widget.Check
	simulate         *widget.Check
	scale            *widget.Select
	presetLabel      *widget.Label
	planBox          *fyne.Container
	status           *widget.Label
	startBtn         *widget.Button
	thenPar          *widget.Select // second run: cards at once
	cascadeL         *widget.Label  // what a cascade does, or why it cannot start
	mounted          *mountedCards  // the camera cards mounted now (mounted.go)

	preset   *plan.Topology
	planSeq  int
	lastPlan planOutput
	lastSeq  int  // the request lastPlan answers
	noCPU    bool // tests
	busy     bool // a job is being prepared or runs

	presetPending bool    // a preset is being read: plan after it
	autoStart     bool    // start as soon as the plan is made (Prepare)
	throttle      float64 // Prepare.Throttle
	scales        map[string]float64
	ready         bool // built: callbacks may replan

	leftScroll, planScroll *container.Scroll
}

func newOffloadView(a *App) *offloadView {
	v := &offloadView{a: a, scales: map[string]float64{}}
	for k, x := range scales {
		v.scales[k] = x
	}
	v.cardBox = container.NewVBox()
	v.destBox = container.NewVBox()
	v.name = widget.NewEntry()
	v.name.SetPlaceHolder("date and time, e.g. 2026-11-22_093000")
	hashGrid := container.NewGridWithColumns(4)
	for _, h := range []string{"xxh64", "md5", "sha1", "xxh3", "xxh128", "c4", "blake3"} {
		c := widget.NewCheck(h, func(bool) { v.replan() })
		c.Checked = h == "xxh64" || h == "md5"
		v.hashes = append(v.hashes, c)
		hashGrid.Add(c)
	}
	v.verify = widget.NewRadioGroup([]string{verifyDestText, verifySourceText, verifyNoneText}, func(string) { v.replan() })
	v.verify.SetSelected(verifyDestText)
	v.verify.Required = true
	v.verifyAll = widget.NewCheck("Recompute every hash on read-back (else the fastest)", func(bool) { v.replan() })
	v.mhl = widget.NewSelect(mhlChoices, nil)
	v.mhl.SetSelected("ASC MHL")
	v.degraded = widget.NewCheck("Allow a degraded array (RAID 4 with one blade missing)", nil)
	v.simulate = widget.NewCheck("Simulate the plan's hardware (no readers needed)", func(bool) { v.replan() })
	v.scale = widget.NewSelect(scaleChoices, func(string) { v.replan() })
	v.scale.SetSelected("1/1")
	v.presetLabel = widget.NewLabel("No preset: the plan uses the volumes this machine reports.")
	v.presetLabel.Wrapping = fyne.TextWrapWord
	v.planBox = container.NewVBox(widget.NewLabel("Add cards and destinations to see the plan."))
	v.status = widget.NewLabel("")
	v.status.Wrapping = fyne.TextWrapWord
	v.status.Importance = widget.DangerImportance
	v.status.Hide()
	v.startBtn = widget.NewButtonWithIcon("Start offload (Ctrl+Enter)", theme.MediaPlayIcon(), v.start)
	v.startBtn.Importance = widget.HighImportance

	addCard := widget.NewButtonWithIcon("Add card folder...", theme.FolderOpenIcon(), func() {
		a.cfg.ChooseFolder("Card folder", v.addCard)
	})
	detect := widget.NewButtonWithIcon("Detect cards", theme.SearchIcon(), v.detectCards)
	v.mounted = newMountedCards(v)
	v.thenPar = widget.NewSelect(thenParChoices, func(string) { v.replan() })
	v.thenPar.SetSelected("1")
	v.cascadeL = widget.NewLabel("")
	v.cascadeL.Wrapping = fyne.TextWrapWord
	v.cascadeL.Hide()
	addDest := widget.NewButtonWithIcon("Add destination...", theme.FolderOpenIcon(), func() {
		a.cfg.ChooseFolder("Destination folder (or a blade of a dit array)", v.addDest)
	})
	loadPreset := widget.NewButtonWithIcon("Load preset...", theme.FileIcon(), func() {
		a.cfg.OpenFile("Topology preset (YAML)", func(r io.ReadCloser, path string) {
			r.Close()
			v.loadPreset(path)
		})
	})
	savePreset := widget.NewButtonWithIcon("Save preset...", theme.DocumentSaveIcon(), v.savePreset)
	clearPreset := widget.NewButton("Clear preset", func() {
		v.preset = nil
		v.presetLabel.SetText("No preset: the plan uses the volumes this machine reports.")
		v.replan()
	})

	left := container.NewVBox(
		heading("Cards"), v.cardBox, container.NewHBox(addCard, detect), v.mounted.box,
		widget.NewSeparator(),
		heading("Destinations"), v.destBox,
		container.NewHBox(addDest, widget.NewLabel("Second run: cards at once"), v.thenPar), v.cascadeL,
		widget.NewSeparator(),
		heading("Settings"),
		widget.NewForm(
			widget.NewFormItem("Job name", v.name),
			widget.NewFormItem("Hashes", hashGrid),
			widget.NewFormItem("Verify", container.NewVBox(v.verify, v.verifyAll, verifyLimitNote())),
			widget.NewFormItem("Hash lists", v.mhl),
			widget.NewFormItem("Arrays", v.degraded),
		),
		widget.NewSeparator(),
		heading("Topology preset"), v.presetLabel,
		container.NewHBox(loadPreset, savePreset, clearPreset),
		container.NewHBox(v.simulate, widget.NewLabel("speed"), v.scale),
	)
	right := container.NewVBox(v.planBox)
	v.leftScroll = container.NewScroll(container.NewPadded(left))
	v.planScroll = container.NewScroll(container.NewPadded(right))
	split := container.NewHSplit(v.leftScroll, v.planScroll)
	split.Offset = 0.5
	v.content = container.NewBorder(nil, container.NewVBox(v.status, v.startBtn), nil, nil, split)
	v.renderCards()
	v.renderDests()
	v.ready = true
	return v
}

// dropped takes folders dragged onto the window (UI goroutine): a folder
// that looks like a camera card (watch.Recognize: camera folders or media
// files) is added as a card, any other folder as a destination, each
// checked as one added by hand; what cannot be added is said.
func (v *offloadView) dropped(paths []string) {
	var problems []string
	for _, p := range paths {
		fi, err := os.Stat(p)
		switch {
		case err != nil:
			problems = append(problems, err.Error())
			continue
		case !fi.IsDir():
			problems = append(problems, fmt.Sprintf("%s is not a folder: drop a card or a destination folder", p))
			continue
		}
		v.say("")
		if ok, _ := watch.Recognize(p, nil); ok {
			v.addCard(p)
		} else {
			v.addDest(p)
		}
		if v.status.Text != "" {
			problems = append(problems, v.status.Text)
		}
	}
	v.say(strings.Join(problems, "\n"))
}

// Preference keys of the form, remembered at each start (remember) and
// restored at launch (restore): a DIT's destinations and settings rarely
// change from one card to the next.
const (
	prefDests     = "form.dests"
	prefThen      = "form.then"
	prefHashes    = "form.hashes"
	prefVerify    = "form.verify"
	prefVerifyAll = "form.verifyAll"
	prefMHL       = "form.mhl"
)

// remember keeps the form's destinations (each with its run) and
// settings in the app's preferences (UI goroutine).
func (v *offloadView) remember() {
	p := v.a.fa.Preferences()
	var dests, then, hashes []string
	for _, d := range v.dests {
		if d.Then {
			then = append(then, d.Path)
		} else {
			dests = append(dests, d.Path)
		}
	}
	for _, c := range v.hashes {
		if c.Checked {
			hashes = append(hashes, c.Text)
		}
	}
	p.SetStringList(prefDests, dests)
	p.SetStringList(prefThen, then)
	p.SetStringList(prefHashes, hashes)
	p.SetString(prefVerify, v.verify.Selected)
	p.SetBool(prefVerifyAll, v.verifyAll.Checked)
	p.SetString(prefMHL, v.mhl.Selected)
}

// restore fills the form with what remember kept: the settings, and the
// destinations that are still there (a shuttle not mounted is left out).
func (v *offloadView) restore() {
	p := v.a.fa.Preferences()
	if hashes := p.StringList(prefHashes); len(hashes) > 0 {
		for _, c := range v.hashes {
			c.SetChecked(slices.Contains(hashes, c.Text))
		}
	}
	if s := p.String(prefVerify); slices.Contains(v.verify.Options, s) {
		v.verify.SetSelected(s)
	}
	v.verifyAll.SetChecked(p.Bool(prefVerifyAll))
	if s := p.String(prefMHL); slices.Contains(v.mhl.Options, s) {
		v.mhl.SetSelected(s)
	}
	for _, run := range []struct {
		key  string
		then bool
	}{{prefDests, false}, {prefThen, true}} {
		for _, d := range p.StringList(run.key) {
			if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
				continue
			}
			v.addDest(d)
			if len(v.dests) > 0 && v.dests[len(v.dests)-1].Path == filepath.Clean(d) {
				v.dests[len(v.dests)-1].Then = run.then
			}
		}
	}
}

func heading(s string) *widget.Label {
	l := widget.NewLabelWithStyle(s, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	l.SizeName = theme.SizeNameSubHeadingText
	return l
}

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
			it.Label, it.Files, it.Bytes, it.Prior = sc.Label, len(sc.Files), sc.Bytes, prior
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
	free, ferr := freeSpace(path)
	var st *arrayStatus
	var aerr error
	if raid.IsBlade(path) {
		st, aerr = loadArrayStatus(path)
		if aerr == nil {
			free = int64(min(st.Free, 1<<62))
		}
	}
	v.a.do(func() {
		it.Loading = false
		it.Free, it.Array = free, st
		switch {
		case aerr != nil:
			it.Err = aerr.Error()
		case ferr != nil:
			it.Err = ferr.Error()
		}
		v.renderDests()
		v.replan()
	})
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
		dests = append(dests, d.Path)
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
		row := container.NewVBox(container.NewBorder(nil, nil, container.NewHBox(title, infoL), remove, path))
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

// say shows a message in words above Start (an empty one hides it).
func (v *offloadView) say(msg string) {
	v.status.SetText(msg)
	if msg == "" {
		v.status.Hide()
	} else {
		v.status.Show()
	}
}

// relayout lays the scrolled columns out again after rows changed.
func (v *offloadView) relayout() {
	if v.leftScroll != nil {
		v.leftScroll.Refresh()
		v.planScroll.Refresh()
	}
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
		run := widget.NewRadioGroup([]string{destFirstText, destThenText}, nil)
		run.Horizontal, run.Required = true, true
		if d.Then {
			run.SetSelected(destThenText)
		} else {
			run.SetSelected(destFirstText)
		}
		run.OnChanged = func(s string) { v.setDestRun(i, s == destThenText) }
		row := container.NewBorder(nil, nil, nil, remove, container.NewVBox(path, infoL, run))
		if d.Array != nil {
			blades := container.NewVBox()
			for _, m := range d.Array.Members {
				blades.Add(widget.NewLabel("    " + m.text()))
			}
			row = container.NewBorder(nil, blades, nil, remove, container.NewVBox(path, infoL, run))
		}
		v.destBox.Add(row)
	}
	v.renderCascade()
	v.relayout()
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

// settings reads the hash and verify choices.
func (v *offloadView) settings() (algos []hashing.Algo, mode offload.VerifyMode, valgos []hashing.Algo, err error) {
	var names []string
	for _, c := range v.hashes {
		if c.Checked {
			names = append(names, c.Text)
		}
	}
	if len(names) == 0 {
		return nil, "", nil, errors.New("choose at least one hash")
	}
	algos, err = hashing.ParseList(strings.Join(names, ","))
	if err != nil {
		return nil, "", nil, err
	}
	mode = verifyModes[v.verify.Selected]
	if mode == "" {
		mode = offload.VerifyDest
	}
	valgos = []hashing.Algo{hashing.Fastest(algos)}
	if v.verifyAll.Checked {
		valgos = algos
	}
	return algos, mode, valgos, nil
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

// replan makes a new plan in the background; a newer request supersedes
// an older one (UI goroutine).
func (v *offloadView) replan() {
	if !v.ready {
		return
	}
	v.planSeq++
	seq := v.planSeq
	cards := v.included()
	// The first-run destinations, then the second run's: the engine's
	// order (Options.Dests, then Options.Then).
	var dests []destItem
	for _, then := range []bool{false, true} {
		for _, d := range v.dests {
			if d.Then == then {
				dests = append(dests, *d)
			}
		}
	}
	if len(cards) == 0 || len(dests) == 0 {
		v.lastPlan = planOutput{}
		v.planBox.Objects = []fyne.CanvasObject{widget.NewLabel("Add cards and destinations to see the plan.")}
		v.relayout()
		return
	}
	for _, c := range v.cards {
		if c.Scanning {
			return // planned again when the scan is done
		}
	}
	for _, d := range dests {
		if d.Loading {
			return
		}
	}
	if v.presetPending {
		return
	}
	algos, mode, valgos, err := v.settings()
	if err != nil {
		v.planBox.Objects = []fyne.CanvasObject{widget.NewLabel("No plan: " + err.Error())}
		v.relayout()
		return
	}
	if first, then := v.runDests(); len(then) > 0 && len(first) == 0 {
		v.planBox.Objects = []fyne.CanvasObject{widget.NewLabel("No plan: " + noFirstCopy)}
		v.planBox.Objects[0].(*widget.Label).Wrapping = fyne.TextWrapWord
		v.relayout()
		return
	}
	in := planInput{cards: cards, dests: dests, preset: v.preset, algos: algos, verify: mode != offload.VerifyNone,
		valgos: valgos, discover: v.a.cfg.Discover, cat: v.a.cfg.Catalog, noCPU: v.noCPU, thenParallel: v.thenParallel()}
	sim := v.simText()
	v.a.goBG(func() {
		out := computePlan(context.Background(), in)
		v.a.do(func() {
			if seq != v.planSeq {
				return
			}
			v.lastPlan, v.lastSeq = out, seq
			v.planBox.Objects = []fyne.CanvasObject{planPanel(out, sim)}
			v.relayout()
			if v.autoStart {
				v.autoStart = false
				v.start()
			}
		})
	})
}

func (v *offloadView) simText() string {
	if !v.simulate.Checked {
		return ""
	}
	return simText(v.scales[v.scale.Selected])
}

// loadPreset reads a topology file (UI goroutine; the file is read in the
// background).
func (v *offloadView) loadPreset(path string) {
	v.presetPending = true
	go func() {
		t, err := plan.LoadTopology(path)
		v.a.do(func() {
			v.presetPending = false
			if err != nil {
				v.autoStart = false
				v.say(err.Error())
				return
			}
			v.preset = t
			v.presetLabel.SetText(fmt.Sprintf("Preset %s: %d buses, %d sources, %d destinations.", path, len(t.Buses), len(t.Sources), len(t.Destinations)))
			v.say("")
			v.replan()
		})
	}()
}

// savePreset writes the topology of the current plan as a preset.
func (v *offloadView) savePreset() {
	t := v.lastPlan.topo
	if t == nil {
		v.say("Nothing to save yet: add cards and destinations so that a plan is made.")
		return
	}
	v.a.cfg.SaveFile("dit-topology.yaml", func(w io.WriteCloser, path string) {
		go func() {
			err := t.Encode(w)
			if cerr := w.Close(); err == nil {
				err = cerr
			}
			v.a.do(func() {
				if err != nil {
					v.say("Saving the preset: " + err.Error())
					return
				}
				v.say("")
				v.presetLabel.SetText("Saved the preset to " + path)
			})
		}()
	})
}

// start checks the settings and starts the job in the background (UI
// goroutine; also Ctrl+Enter).
func (v *offloadView) start() {
	if v.busy || v.a.running.active() {
		v.say("A job is already running: wait for it to finish, or cancel it.")
		return
	}
	if v.a.auto.running() {
		v.say("Auto-offload is on: cards are offloaded as they are mounted. Turn it off (Running job tab) to start a job by hand.")
		return
	}
	s, msg := v.jobSettings()
	if msg != "" {
		v.say(msg)
		return
	}
	if v.preset != nil || v.simulate.Checked {
		if v.lastPlan.topo == nil || v.lastPlan.err != "" || v.lastSeq != v.planSeq || len(v.lastPlan.topo.Sources) != len(s.Cards) {
			v.say("The plan is not ready: wait for it, or fix what it says (or clear the preset).")
			return
		}
		s.Topology = v.lastPlan.topo
		s.Simulate = v.simulate.Checked
		s.Scale = v.scales[v.scale.Selected]
	}
	v.say("")
	v.remember()
	v.busy = true
	v.startBtn.Disable()
	v.a.goBG(func() { v.a.runJob(s) })
}

// jobSettings reads the job the view sets up (UI goroutine): the cards,
// the destinations of each run (Dests, and a cascade's Then), hashes,
// verify and hash lists; or, in words, why it cannot start.
func (v *offloadView) jobSettings() (jobSettings, string) {
	cards := v.included()
	for _, c := range v.cards {
		if c.Scanning {
			return jobSettings{}, "Wait until every card is scanned."
		}
	}
	if len(cards) == 0 {
		return jobSettings{}, "Add at least one card (cards offloaded before are left out unless \"Copy it again\" is checked)."
	}
	s, msg := v.formSettings()
	if msg != "" {
		return s, msg
	}
	for _, c := range cards {
		s.Cards = append(s.Cards, c.Path)
		if c.Again {
			s.Again = append(s.Again, c.Path)
		}
	}
	return s, ""
}

// formSettings reads the view's settings without the cards (UI
// goroutine): what an auto-offload watches with when it takes the
// form's settings.
func (v *offloadView) formSettings() (jobSettings, string) {
	if len(v.dests) == 0 {
		return jobSettings{}, "Add at least one destination."
	}
	first, then := v.runDests()
	if len(then) > 0 && len(first) == 0 {
		return jobSettings{}, noFirstCopy
	}
	algos, mode, _, err := v.settings()
	if err != nil {
		return jobSettings{}, err.Error()
	}
	if len(then) > 0 && mode == offload.VerifyNone {
		return jobSettings{}, "A cascade needs read-back: a card is free only once its first copy is verified. Choose \"" + verifyDestText + "\"."
	}
	parseErr, hashErr := assembly.CheckMHL(mhlNames[v.mhl.Selected], algos)
	if parseErr != nil {
		return jobSettings{}, parseErr.Error()
	}
	if hashErr != nil {
		return jobSettings{}, "Hash lists: " + hashErr.Error() + " (or choose None)"
	}
	s := jobSettings{Name: strings.TrimSpace(v.name.Text), Hashes: algos, Verify: mode, VerifyAll: v.verifyAll.Checked,
		MHL: mhlNames[v.mhl.Selected], AllowDegraded: v.degraded.Checked, Throttle: v.throttle,
		Dests: first, Then: then}
	if len(then) > 0 {
		s.ThenParallel = v.thenParallel()
	}
	return s, ""
}

// autoChanged enables Start only while auto-offload is off (UI
// goroutine).
func (v *offloadView) autoChanged() {
	if v.a.auto != nil && v.a.auto.running() || v.busy {
		v.startBtn.Disable()
	} else {
		v.startBtn.Enable()
	}
	// Bright only when there is a card to start with (it still says why
	// not when pressed).
	imp := widget.MediumImportance
	if len(v.included()) > 0 {
		imp = widget.HighImportance
	}
	if v.startBtn.Importance != imp {
		v.startBtn.Importance = imp
		v.startBtn.Refresh()
	}
}

// jobDone re-enables Start (UI goroutine).
func (v *offloadView) jobDone(err error) {
	v.busy = false
	v.autoChanged()
	if err != nil {
		v.say(err.Error())
	}
}

// Preparation fills the Offload view, as a person would: what dit-gui
// --demo and the UI tests use.
type Preparation struct {
	Name  string
	Cards []string // card folders
	Dests []string // destination folders (or blades of dit arrays)
	// Then are a cascade's second-run destinations (filled from each
	// card's first copy on Dests[0]); ThenParallel how many cards the
	// second run copies at once (0: 1).
	Then         []string
	ThenParallel int
	// Preset is a topology file (empty: the volumes the machine reports).
	Preset string
	// Simulate plays the preset's hardware at Scale of its field rates
	// (0 or 1: field rates).
	Simulate bool
	Scale    float64
	// Throttle caps each card's read rate in bytes/s (0: none).
	Throttle float64
	// Start starts the job as soon as the cards are scanned and the plan
	// is made.
	Start bool
}

// Prepare fills the Offload view with p (call on the UI goroutine, before
// ShowAndRun or from a fyne.Do).
func (a *App) Prepare(p Preparation) {
	v := a.offload
	v.name.SetText(p.Name)
	v.throttle = p.Throttle
	v.simulate.SetChecked(p.Simulate)
	v.scale.SetSelected("1/1")
	for _, s := range scaleChoices {
		if p.Scale > 0 && v.scales[s] == p.Scale {
			v.scale.SetSelected(s)
		}
	}
	if p.Scale > 0 && v.scales[v.scale.Selected] != p.Scale {
		label := fmt.Sprintf("1/%g", 1/p.Scale)
		v.scales[label] = p.Scale
		v.scale.Options = append(v.scale.Options, label)
		v.scale.SetSelected(label)
	}
	v.autoStart = p.Start
	if p.Preset != "" {
		v.loadPreset(p.Preset)
	}
	for _, c := range p.Cards {
		v.addCard(c)
	}
	if p.ThenParallel > 0 {
		n := strconv.Itoa(p.ThenParallel)
		if !slices.Contains(v.thenPar.Options, n) {
			v.thenPar.Options = append(v.thenPar.Options, n)
		}
		v.thenPar.SetSelected(n)
	}
	for _, d := range p.Dests {
		v.addDest(d)
	}
	for _, d := range p.Then {
		v.addDest(d)
		if it := v.dests[len(v.dests)-1]; filepath.Clean(d) == it.Path {
			it.Then = true
		}
	}
	v.renderDests()
}
