package ui

import (
	"context"
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
	"github.com/dit-org/dit/internal/watch"
)

// offloadView is where a job is set up: cards, destinations, hash and
// verify settings, a topology preset, the plan, and Start.
type offloadView struct {
	a       *App
	content fyne.CanvasObject

	cards []*cardItem
	dests []*destItem

	cardBox, destBox *fyne.Container
	mounted          *mountedCards // the camera cards mounted now (mounted.go)
	status           *widget.Label
	startBtn         *widget.Button

	offloadForm      // the job's settings as the form holds them
	offloadDestNotes // what the form says of its destinations
	offloadProxies   // the proxies' settings
	offloadAdvanced  // the job details (formadvanced.go)
	offloadPace      // the job details' rates and checks (formpace.go)
	offloadPlan      // the plan shown beside the form
	offloadFlags     // what the form is doing

	leftScroll, planScroll *container.Scroll
}

// offloadForm are the form's fields of the job's settings.
type offloadForm struct {
	name        *widget.Entry
	hashes      []*widget.Check
	verify      *widget.RadioGroup
	verifyAll   *widget.Check
	mhl         *widget.Select
	degraded    *widget.Check
	simulate    *widget.Check
	scale       *widget.Select
	presetLabel *widget.Label
	thenPar     *widget.Select // second run: cards at once
	cloud       *widget.Entry  // a cloud destination, rclone remote:path (formcloud.go)
}

// offloadDestNotes are what the form says of its destinations.
type offloadDestNotes struct {
	cascadeL *widget.Label // what a cascade does, or why it cannot start
	cloudL   *widget.Label // where each cloud destination's copy comes from (formcloud.go)
	refusal  *widget.Label // why the engine would refuse the form, beside Start (formcloud.go)
}

// offloadProxies are the form's proxy settings.
type offloadProxies struct {
	proxyPreset *widget.Select // proxies: off or a preset
	proxyBurnin *widget.Check
	proxyTo     *widget.CheckGroup // the folder destinations proxies go to
	proxyToL    *widget.Label
	proxyToBox  *fyne.Container // "Proxies to", shown with a preset chosen
}

// offloadPlan is the plan beside the form and what it is made from.
type offloadPlan struct {
	planBox  *fyne.Container
	preset   *plan.Topology
	planSeq  int
	lastPlan planOutput
	lastSeq  int     // the request lastPlan answers
	noCPU    bool    // tests
	throttle float64 // Prepare.Throttle
	scales   map[string]float64
}

// offloadFlags are what the form is doing.
type offloadFlags struct {
	busy          bool // a job is being prepared or runs
	presetPending bool // a preset is being read: plan after it
	autoStart     bool // start as soon as the plan is made (Prepare)
	ephemeral     bool // a demo's form: never remembered (Prepare)
	ready         bool // built: callbacks may replan
}

// formHashes are the engine's hashes (hashing.All) in the order the
// form offers them: dit's defaults and the common ones first.
var formHashes = []hashing.Algo{hashing.XXH64, hashing.MD5, hashing.SHA1, hashing.XXH3, hashing.XXH128, hashing.C4, hashing.BLAKE3}

func newOffloadView(a *App) *offloadView {
	v := &offloadView{a: a, offloadPlan: offloadPlan{scales: map[string]float64{}}}
	for k, x := range scales {
		v.scales[k] = x
	}
	v.cardBox = container.NewVBox()
	v.destBox = container.NewVBox()
	v.name = widget.NewEntry()
	v.name.SetPlaceHolder("date and time, e.g. 2026-11-22_093000")
	hashGrid := container.NewGridWithColumns(4)
	defaults, _ := hashing.ParseList(assembly.DefaultHashes)
	for _, h := range formHashes {
		c := widget.NewCheck(h.String(), func(bool) { v.replan() })
		c.Checked = slices.Contains(defaults, h)
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
	v.cloudL = widget.NewLabel("")
	v.cloudL.Wrapping = fyne.TextWrapWord
	v.cloudL.Hide()
	v.refusal = widget.NewLabel("")
	v.refusal.Wrapping = fyne.TextWrapWord
	v.refusal.Importance = widget.DangerImportance
	v.refusal.Hide()
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

	// A folder's path typed or pasted (Enter adds it): no dialog to walk.
	cardPath := a.newPathField("Or type a card's path", "Add this card", "", "", v.addCard)
	destPath := a.newPathField("Or type a destination's path", "Add this destination", "", "", v.addDest)
	left := container.NewVBox(
		heading("Cards"), v.cardBox, container.NewHBox(addCard, detect), cardPath.box, v.mounted.box,
		widget.NewSeparator(),
		heading("Destinations"), v.destBox,
		container.NewHBox(addDest, widget.NewLabel("Second run: cards at once"), v.thenPar), destPath.box, v.newCloudRow(), v.cascadeL, v.cloudL,
		widget.NewSeparator(),
		heading("Settings"),
		widget.NewForm(
			widget.NewFormItem("Job name", v.name),
			widget.NewFormItem("Hashes", hashGrid),
			widget.NewFormItem("Verify", container.NewVBox(v.verify, v.verifyAll, verifyLimitNote())),
			widget.NewFormItem("Hash lists", v.mhl),
			widget.NewFormItem("Arrays", v.degraded),
			widget.NewFormItem("Proxies", v.newProxiesForm()),
		),
		v.newAdvancedForm(),
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
	v.content = container.NewBorder(nil, container.NewVBox(v.status, v.refusal, v.startBtn), nil, nil, split)
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

func heading(s string) *widget.Label {
	l := widget.NewLabelWithStyle(s, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	l.SizeName = theme.SizeNameSubHeadingText
	return l
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

// replan makes a new plan in the background; a newer request supersedes
// an older one (UI goroutine).
func (v *offloadView) replan() {
	if !v.ready {
		return
	}
	v.renderCloudRule()
	v.planSeq++
	seq := v.planSeq
	cards := v.included()
	// The first-run destinations, then the second run's: the engine's
	// order (Options.Dests, then Options.Then), a cloud destination
	// beside a first-run folder in the second run (assembly.DestRuns).
	var dests []destItem
	first, then := assembly.DestRuns(v.runDests())
	for run, paths := range [][]string{first, then} {
		for _, p := range paths {
			for _, d := range v.dests {
				if d.Path == p {
					it := *d
					it.Then = run == 1
					dests = append(dests, it)
				}
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
	if !v.ephemeral {
		v.remember()
	}
	v.busy = true
	v.startBtn.Disable()
	v.a.goBG(func() { v.a.runJob(s) })
}

// autoChanged enables Start only while auto-offload is off, no job runs
// and the engine would take the form's destinations (UI goroutine).
func (v *offloadView) autoChanged() {
	if v.a.auto != nil && v.a.auto.running() || v.busy || v.refused() {
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
	// Proxies is the proxies preset ("" none; assembly.ProxyPresetList),
	// ProxiesBurnin burns the timecode and clip name in, ProxiesTo are
	// the destinations they go to (none: the first).
	Proxies       string
	ProxiesBurnin bool
	ProxiesTo     []string
	// Ephemeral: a demo. The form it fills replaces the remembered one
	// and is not remembered for the next launch.
	Ephemeral bool
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
	v.ephemeral = p.Ephemeral
	if len(p.Dests)+len(p.Then) > 0 {
		// The prepared destinations are the job's, not the remembered
		// form's ones besides them.
		v.dests = nil
		v.renderDests()
	}
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
		v.addAnyDest(d)
	}
	for _, d := range p.Then {
		v.addAnyDest(d)
		if it := v.dests[len(v.dests)-1]; filepath.Clean(d) == it.Path || d == it.Path {
			it.Then = true
		}
	}
	v.renderDests()
	v.prepareProxies(p.Proxies, p.ProxiesBurnin, p.ProxiesTo)
}
