package ui

import (
	"fmt"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/dit-org/dit/internal/assembly"
	"github.com/dit-org/dit/internal/offload"
)

// The Offload form's "Job details": the settings a DIT sets once for a
// shoot rather than for each card (the ASC MHL creator info, where the
// cards land, what happens to a file already there, what is left on the
// card, the editorial lists), folded away under the common ones. Each is
// a field of assembly.Spec, checked by Spec.Settings as the CLI's flags
// are.

// offloadAdvanced are the form's "Job details" fields.
type offloadAdvanced struct {
	layout      *widget.Entry
	onConflict  *widget.Select
	ignore      *widget.Entry // one pattern a line
	hidden      *widget.Check
	blockSize   *widget.Entry
	ale         *widget.Check
	noDirHashes *widget.Check
	creator     creatorEntries
	advNote     *widget.Label // why the engine refuses a job detail
	advAcc      *widget.Accordion
	advSet      *widget.Label // which details are set, under the folded section
	advBox      *fyne.Container
}

// creatorEntries are the ASC MHL creator info (assembly.Creator).
type creatorEntries struct {
	author, email, phone, role, location, comment *widget.Entry
}

// conflictModes are the engine's on-conflict policies, the default
// first, each with what it does.
var conflictModes = []struct {
	mode offload.Conflict
	does string
}{
	{offload.ConflictFail, "the file fails on that destination"},
	{offload.ConflictSkip, "left alone, recorded as skipped (not safe to format)"},
	{offload.ConflictRename, "the copy is written as \"name (2).ext\""},
}

// conflictText is a policy as the form offers it.
func conflictText(c offload.Conflict) string {
	for _, m := range conflictModes {
		if m.mode == c {
			return fmt.Sprintf("%s: %s", m.mode, m.does)
		}
	}
	return string(c)
}

// conflictOf is the policy an option of the form stands for.
func conflictOf(text string) offload.Conflict {
	for _, m := range conflictModes {
		if conflictText(m.mode) == text {
			return m.mode
		}
	}
	return ""
}

// Preference keys of the job details (remember, restore).
const (
	prefLayout      = "form.layout"
	prefOnConflict  = "form.onConflict"
	prefIgnore      = "form.ignore"
	prefHidden      = "form.includeHidden"
	prefBlockSize   = "form.blockSize"
	prefALE         = "form.ale"
	prefNoDirHashes = "form.noDirectoryHashes"
	prefCreator     = "form.creator." // + the Spec's key
)

// advUnset is what the section says under its title when no detail
// is set (the details set are named instead).
const advUnset = "Creator info, folder layout, on conflict, ignore, hidden files, ALE, rates, drive check, rclone: the defaults."

// newAdvancedForm is the "Job details" section, folded.
func (v *offloadView) newAdvancedForm() fyne.CanvasObject {
	entry := func(placeholder string) *widget.Entry {
		e := widget.NewEntry()
		e.SetPlaceHolder(placeholder)
		e.OnChanged = func(string) { v.checkAdvanced() }
		return e
	}
	check := func(text string) *widget.Check { return widget.NewCheck(text, func(bool) { v.checkAdvanced() }) }
	c := &v.creator
	c.author, c.role = entry("Name, e.g. Jane Doe"), entry("Role, e.g. DIT")
	c.email, c.phone = entry("Email, e.g. jane@example.com"), entry("Phone")
	c.location, c.comment = entry("Location, e.g. Stage 5"), entry("Comment")
	v.layout = entry(offload.DefaultLayout)
	var opts []string
	for _, m := range conflictModes {
		opts = append(opts, conflictText(m.mode))
	}
	v.onConflict = widget.NewSelect(opts, func(string) { v.checkAdvanced() })
	v.onConflict.SetSelected(opts[0])
	v.ignore = widget.NewMultiLineEntry()
	v.ignore.SetPlaceHolder("Files left on the card, one pattern a line: *.RMD, CACHE/, /PROXY")
	v.ignore.SetMinRowsVisible(2)
	v.ignore.OnChanged = func(string) { v.checkAdvanced() }
	v.hidden = check("Also copy hidden files (.DS_Store, ._*, Thumbs.db, ...)")
	v.blockSize = entry(assembly.DefaultBlockSize)
	v.ale = check("ALE, CMX 3600 EDL and FCPXML with the reports")
	v.noDirHashes = check("None: ASC MHL lists the card's folders without hashes")
	v.advNote = widget.NewLabel("")
	v.advNote.Wrapping = fyne.TextWrapWord
	v.advNote.Importance = widget.DangerImportance
	v.advNote.Hide()
	layoutNote := widget.NewLabel("{job} {card} {date} {time} {host}")
	layoutNote.Importance = widget.LowImportance
	form := widget.NewForm(append([]*widget.FormItem{
		widget.NewFormItem("Creator", container.NewGridWithColumns(2, c.author, c.role, c.email, c.phone, c.location, c.comment)),
		widget.NewFormItem(formNames("layout"), container.NewBorder(nil, nil, nil, layoutNote, v.layout)),
		widget.NewFormItem(formNames("on_conflict"), v.onConflict),
		widget.NewFormItem(formNames("ignore"), v.ignore),
		widget.NewFormItem(formNames("include_hidden"), v.hidden),
		widget.NewFormItem(formNames("ale"), v.ale),
		widget.NewFormItem(formNames("no_directory_hashes"), v.noDirHashes),
		widget.NewFormItem(formNames("block_size"), container.NewGridWithColumns(2, v.blockSize)),
	}, v.paceFormItems()...)...)
	v.advSet = widget.NewLabel(advUnset)
	v.advSet.Wrapping = fyne.TextWrapWord
	v.advSet.Importance = widget.LowImportance
	v.advAcc = widget.NewAccordion(widget.NewAccordionItem("Job details", container.NewVBox(form, v.advNote)))
	v.advBox = container.NewVBox(v.advAcc, v.advSet)
	return v.advBox
}

// advancedSpec puts the job details into sp (values as typed).
func (v *offloadView) advancedSpec(sp *assembly.Spec) {
	if v.layout == nil {
		return
	}
	sp.Layout = strings.TrimSpace(v.layout.Text)
	if c := conflictOf(v.onConflict.Selected); c != offload.ConflictFail {
		sp.OnConflict = string(c)
	}
	sp.Ignore = lines(v.ignore.Text)
	sp.IncludeHidden = v.hidden.Checked
	sp.BlockSize = strings.TrimSpace(v.blockSize.Text)
	sp.ALE, sp.NoDirectoryHashes = v.ale.Checked, v.noDirHashes.Checked
	c := v.creator
	sp.Creator = assembly.Creator{Author: c.author.Text, Email: c.email.Text, Phone: c.phone.Text, Role: c.role.Text,
		Location: c.location.Text, Comment: c.comment.Text}
	v.paceSpec(sp)
}

// checkAdvanced says beside the job details why the engine refuses one
// (a Spec of the details alone, so that the refusal is theirs), and
// names the details set under the section, folded or not (UI
// goroutine).
func (v *offloadView) checkAdvanced() {
	if v.advSet == nil {
		return
	}
	var sp assembly.Spec
	v.advancedSpec(&sp)
	msg := ""
	if _, err := sp.Settings(formNames, nil); err != nil {
		msg = err.Error()
	}
	setLabel(v.advNote, msg)
	set := []string{}
	if sp.Creator != (assembly.Creator{}) {
		set = append(set, "Creator")
	}
	for _, f := range []struct {
		key string
		on  bool
	}{{"layout", sp.Layout != ""}, {"on_conflict", sp.OnConflict != ""},
		{"ignore", len(sp.Ignore) > 0}, {"include_hidden", sp.IncludeHidden}, {"ale", sp.ALE}, {"no_directory_hashes", sp.NoDirectoryHashes},
		{"block_size", sp.BlockSize != ""}} {
		if f.on {
			set = append(set, formNames(f.key))
		}
	}
	set = append(set, paceSet(sp)...)
	text := advUnset
	if len(set) > 0 {
		text = "Set: " + strings.Join(set, ", ") + "."
	}
	if v.advSet.Text != text {
		v.advSet.SetText(text)
	}
	v.relayout()
}

// creatorPrefs are the creator entries by their Spec key (remember,
// restore).
func (v *offloadView) creatorPrefs() map[string]*widget.Entry {
	c := v.creator
	return map[string]*widget.Entry{"author": c.author, "author_email": c.email, "author_phone": c.phone,
		"author_role": c.role, "location": c.location, "comment": c.comment}
}

// rememberAdvanced keeps the job details in the app's preferences.
func (v *offloadView) rememberAdvanced(p fyne.Preferences) {
	p.SetString(prefLayout, v.layout.Text)
	p.SetString(prefOnConflict, string(conflictOf(v.onConflict.Selected)))
	p.SetStringList(prefIgnore, lines(v.ignore.Text))
	p.SetBool(prefHidden, v.hidden.Checked)
	p.SetString(prefBlockSize, v.blockSize.Text)
	p.SetBool(prefALE, v.ale.Checked)
	p.SetBool(prefNoDirHashes, v.noDirHashes.Checked)
	for key, e := range v.creatorPrefs() {
		p.SetString(prefCreator+key, e.Text)
	}
	v.rememberPace(p)
}

// restoreAdvanced fills the job details with what rememberAdvanced kept.
func (v *offloadView) restoreAdvanced(p fyne.Preferences) {
	v.layout.SetText(p.String(prefLayout))
	if c := offload.Conflict(p.String(prefOnConflict)); slices.Contains(v.onConflict.Options, conflictText(c)) {
		v.onConflict.SetSelected(conflictText(c))
	}
	v.ignore.SetText(strings.Join(p.StringList(prefIgnore), "\n"))
	v.hidden.SetChecked(p.Bool(prefHidden))
	v.blockSize.SetText(p.String(prefBlockSize))
	v.ale.SetChecked(p.Bool(prefALE))
	v.noDirHashes.SetChecked(p.Bool(prefNoDirHashes))
	for key, e := range v.creatorPrefs() {
		e.SetText(p.String(prefCreator + key))
	}
	v.restorePace(p)
	v.checkAdvanced()
}
