package ui

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"github.com/dit-org/dit/internal/assembly"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/plan"
)

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
	prefProxies   = "form.proxies"
	prefProxyBurn = "form.proxiesBurnin"
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
	p.SetString(prefProxies, v.proxyPreset.Selected)
	p.SetBool(prefProxyBurn, v.proxyBurnin.Checked)
	v.rememberAdvanced(p)
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
	if s := p.String(prefProxies); slices.Contains(v.proxyPreset.Options, s) {
		v.proxyPreset.SetSelected(s)
		v.proxyBurnin.SetChecked(p.Bool(prefProxyBurn))
	}
	if s := p.String(prefMHL); slices.Contains(v.mhl.Options, s) {
		v.mhl.SetSelected(s)
	}
	v.restoreAdvanced(p)
	for _, run := range []struct {
		key  string
		then bool
	}{{prefDests, false}, {prefThen, true}} {
		for _, d := range p.StringList(run.key) {
			if fi, err := os.Stat(d); !assembly.IsRemoteDest(d) && (err != nil || !fi.IsDir()) {
				continue
			}
			v.addAnyDest(d)
			if len(v.dests) > 0 && (v.dests[len(v.dests)-1].Path == filepath.Clean(d) || v.dests[len(v.dests)-1].Path == d) {
				v.dests[len(v.dests)-1].Then = run.then
			}
		}
	}
}

// noHash is why a form with no hash checked cannot start (an empty
// Spec.Hashes is dit's default, not none).
const noHash = "Choose at least one hash."

// formNames names a Spec's fields (assembly.Namer) as the Offload form
// labels them, so that a refusal of the engine's rules is said in the
// form's words.
func formNames(key string) string {
	switch key {
	case "name":
		return "Job name"
	case "destinations":
		return "Destinations"
	case "then":
		return "Destinations \"" + destThenText + "\""
	case "then_parallel":
		return "Second run: cards at once"
	case "hashes":
		return "Hashes"
	case "verify", "verify_hashes":
		return "Verify"
	case "mhl":
		return "Hash lists"
	case "allow_degraded":
		return "Arrays"
	case "proxies":
		return "Proxies"
	case "proxies_to":
		return "Proxies to"
	case "layout":
		return "Folder layout"
	case "on_conflict":
		return "On conflict"
	case "ignore":
		return "Ignore"
	case "include_hidden":
		return "Hidden files"
	case "block_size":
		return "Block size"
	case "ale":
		return "Editorial lists"
	case "no_directory_hashes":
		return "Folder hashes"
	case "author":
		return "Creator name"
	case "author_email", "author_phone", "author_role":
		return "Creator " + strings.TrimPrefix(key, "author_")
	case "location", "comment":
		return "Creator " + key
	case "throttle":
		return "Read rate"
	case "limit":
		return "Write limits"
	case "checkpoint_every":
		return "Checkpoints"
	case "drive_health":
		return "Drive health"
	case "cloud_bwlimit":
		return "Upload limit"
	case "rclone_config":
		return "rclone config"
	case "proxy_workers":
		return "ffmpeg at once"
	}
	return strings.ReplaceAll(key, "_", " ")
}

// spec is the form's settings as the job's assembly.Spec, values as
// chosen (UI goroutine); or why not, in words (noHash).
func (v *offloadView) spec() (assembly.Spec, string) {
	var names []string
	for _, c := range v.hashes {
		if c.Checked {
			names = append(names, c.Text)
		}
	}
	if len(names) == 0 {
		return assembly.Spec{}, noHash
	}
	first, then := v.runDests()
	sp := assembly.Spec{Name: strings.TrimSpace(v.name.Text), Dests: first, Then: then, Hashes: strings.Join(names, ","),
		Verify: string(verifyModes[v.verify.Selected]), MHL: mhlNames[v.mhl.Selected]}
	if v.verifyAll.Checked {
		sp.VerifyHashes = "all"
	}
	if len(then) > 0 {
		sp.ThenParallel = v.thenParallel()
	}
	sp.AllowDegraded = v.degraded.Checked
	sp.Proxies, sp.ProxiesTo = v.proxySettings()
	v.advancedSpec(&sp)
	return sp, ""
}

// settings reads the hash and verify choices, for the plan.
func (v *offloadView) settings() (algos []hashing.Algo, mode offload.VerifyMode, valgos []hashing.Algo, err error) {
	sp, msg := v.spec()
	if msg != "" {
		return nil, "", nil, errors.New(msg)
	}
	algos, err = hashing.ParseList(sp.Hashes)
	if err != nil {
		return nil, "", nil, err
	}
	mode = cmp.Or(offload.VerifyMode(sp.Verify), offload.VerifyDest)
	valgos = []hashing.Algo{hashing.Fastest(algos)}
	if v.verifyAll.Checked {
		valgos = algos
	}
	return algos, mode, valgos, nil
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

// jobSettings reads the job the view sets up (UI goroutine): the cards,
// and the form's settings (formSettings); or, in words, why it cannot
// start.
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
	var paths []string
	for _, c := range cards {
		paths = append(paths, c.Path)
	}
	s, msg := v.settingsOf(paths)
	if msg != "" {
		return s, msg
	}
	for _, c := range cards {
		if c.Again {
			s.AgainCards = append(s.AgainCards, c.Path)
		}
	}
	return s, ""
}

// formSettings reads the view's settings without the cards (UI
// goroutine): what an auto-offload watches with when it takes the
// form's settings.
func (v *offloadView) formSettings() (jobSettings, string) { return v.settingsOf(nil) }

// settingsOf are the job settings of the form's Spec with these cards
// (assembly.Spec.Settings, named by the form's labels), and what the app
// adds (Prepare's throttle); or, in words, why the job cannot start.
func (v *offloadView) settingsOf(cards []string) (jobSettings, string) {
	if len(v.dests) == 0 {
		return jobSettings{}, "Add at least one destination."
	}
	if first, then := v.runDests(); len(then) > 0 && len(first) == 0 {
		return jobSettings{}, noFirstCopy
	}
	sp, msg := v.spec()
	if msg != "" {
		return jobSettings{}, msg
	}
	set, err := sp.Settings(formNames, cards)
	if err != nil {
		return jobSettings{}, refusalText(err)
	}
	if v.throttle > 0 { // Prepare's, else the form's
		set.Throttle = v.throttle
	}
	return jobSettings{Settings: set}, ""
}
