package ui

import (
	"context"
	"errors"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/dit-org/dit/internal/assembly"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/units"
)

// Cloud destinations and proxies in the Offload view. What a cloud
// destination is and whether its remote is there, and which proxy
// presets exist, are internal/assembly's (and internal/cloud's) to say:
// the view only asks.

// proxiesOff is the proxies choice that makes none.
const proxiesOff = "Off"

// proxiesFirstDest is what "Proxies to" says when no destination is
// checked: the job's first destination (the assembly's default).
const proxiesFirstDest = "Nothing checked: the first destination."

// newCloudRow is the entry for a cloud destination (rclone remote:path)
// and its Add button.
func (v *offloadView) newCloudRow() fyne.CanvasObject {
	v.cloud = widget.NewEntry()
	v.cloud.SetPlaceHolder("rclone remote:path, e.g. s3backup:rushes/show")
	add := widget.NewButtonWithIcon("Add cloud destination", theme.UploadIcon(), func() { v.addCloudDest(v.cloud.Text) })
	v.cloud.OnSubmitted = v.addCloudDest
	return container.NewBorder(nil, nil, nil, add, v.cloud)
}

// cloudName is what was typed as the destination dit records:
// rclone:REMOTE:PATH ("rclone:" may be left out).
func cloudName(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || assembly.IsRemoteDest(s) {
		return s
	}
	return "rclone:" + s
}

// addCloudDest adds a cloud destination once rclone says its remote is
// there (UI goroutine; checked in the background). One that is not is
// refused with the reason: the remotes rclone has, or how to install it.
func (v *offloadView) addCloudDest(text string) {
	name := cloudName(text)
	if name == "" {
		v.say("Type a cloud destination as rclone remote:path (a remote of rclone's configuration, see rclone listremotes), then Add cloud destination.")
		return
	}
	for _, d := range v.dests {
		if d.Path == name {
			return
		}
	}
	v.say("")
	it := &destItem{Path: name, Loading: true, Free: -1, Cloud: true}
	v.dests = append(v.dests, it)
	v.renderDests()
	rc := v.a.cfg.Rclone
	v.a.goBG(func() {
		err := assembly.CheckRemoteDest(context.Background(), rc, name)
		free := int64(-1)
		if err == nil {
			free, _ = assembly.RemoteFree(context.Background(), rc, name) // none: no figure
		}
		v.a.do(func() {
			it.Loading, it.Free = false, free
			if err != nil {
				if i := slices.Index(v.dests, it); i >= 0 {
					v.dests = slices.Delete(v.dests, i, i+1)
				}
				v.say(err.Error())
			} else if v.cloud.Text == text {
				v.cloud.SetText("")
			}
			v.renderDests()
			v.replan()
		})
	})
}

// cloudInfo is a cloud destination's line in its row: no folder on this
// machine, and the free space its storage reports (S3 reports none).
func cloudInfo(d *destItem) string {
	if d.Loading {
		return "cloud (rclone): checking the remote..."
	}
	if d.Free >= 0 {
		return "cloud (rclone): uploaded and verified by the storage's checksum or a read-back; " + units.FormatBytes(d.Free) + " free"
	}
	return "cloud (rclone): uploaded and verified by the storage's checksum or a read-back; no free space figure"
}

// refusalText is the engine's refusal of the form, as shown beside
// Start: a refusal of the cloud rule in the form's words (the engine's
// names the flags), any other as the engine says it.
func refusalText(err error) string {
	var cr *offload.RemoteRefusal
	if errors.As(err, &cr) {
		switch cr.Reason {
		case offload.RemoteBesideThen:
			return "Cannot start: a cloud destination and destinations set to \"" + destThenText +
				"\" in one job. Set the folders to \"" + destFirstText + "\" (the cloud copy is then uploaded from the first copy), or make the shuttles in another job."
		case offload.RemoteNoReadBack:
			return "Cannot start: a cloud destination with \"" + verifyNoneText + "\": a cloud copy counts only once the storage's checksum " +
				"(or a read-back) matches the card. Choose \"" + verifyDestText + "\"."
		}
	}
	return "Cannot start: " + err.Error()
}

// renderCloudRule checks the form's Spec as Start would
// (assembly.Spec.Settings): a refusal of the engine's rule on cloud
// destinations is said beside Start, which stays off until it is fixed
// (others are said when Start is pressed); and says where each cloud
// destination's copy comes from (assembly.RemoteRoutes) under the
// destinations (UI goroutine).
func (v *offloadView) renderCloudRule() {
	if v.refusal == nil || v.verify == nil {
		return
	}
	first, then := v.runDests()
	msg := ""
	if sp, why := v.spec(); why == "" {
		var cr *offload.RemoteRefusal
		if _, err := sp.Settings(formNames, nil); errors.As(err, &cr) {
			msg = refusalText(err)
		}
	}
	setLabel(v.refusal, msg)
	routes := ""
	if msg == "" {
		routes = strings.Join(assembly.RemoteRoutes(first, then), "\n")
	}
	setLabel(v.cloudL, routes)
	v.autoChanged()
}

// refused: the engine would refuse the form's cloud destinations.
func (v *offloadView) refused() bool { return v.refusal != nil && v.refusal.Text != "" }

// setLabel shows text in l, or hides l when text is "".
func setLabel(l *widget.Label, text string) {
	if l.Text != text {
		l.SetText(text)
	}
	if text == "" {
		l.Hide()
	} else {
		l.Show()
	}
}

// newProxiesForm is the proxies choice: off or a preset, burn-in, and
// the destinations they go to (none checked: the first).
func (v *offloadView) newProxiesForm() fyne.CanvasObject {
	v.proxyPreset = widget.NewSelect(append([]string{proxiesOff}, assembly.ProxyPresetList()...), func(string) { v.proxyChanged() })
	v.proxyPreset.SetSelected(proxiesOff)
	v.proxyBurnin = widget.NewCheck("Burn in timecode and clip name", nil)
	v.proxyTo = widget.NewCheckGroup(nil, func([]string) { v.proxyToNote() })
	v.proxyToL = widget.NewLabel(proxiesFirstDest)
	v.proxyToL.Importance = widget.LowImportance
	v.proxyToBox = container.NewVBox(widget.NewLabel("Proxies to:"), v.proxyTo, v.proxyToL)
	v.proxyChanged()
	return container.NewVBox(container.NewHBox(v.proxyPreset, v.proxyBurnin), v.proxyToBox)
}

// proxyToNote says where proxies go when no destination is checked.
func (v *offloadView) proxyToNote() {
	if len(v.proxyTo.Selected) == 0 {
		v.proxyToL.Show()
	} else {
		v.proxyToL.Hide()
	}
}

// proxyChanged shows the proxies' options only with a preset chosen.
func (v *offloadView) proxyChanged() {
	if v.proxyToBox == nil {
		return
	}
	if v.proxyPreset.Selected == proxiesOff {
		v.proxyBurnin.Disable()
		v.proxyToBox.Hide()
	} else {
		v.proxyBurnin.Enable()
		v.proxyToBox.Show()
	}
	v.relayout()
}

// renderProxyTo offers the destinations (folders, arrays and cloud
// ones: a proxy for the cloud is made on this machine, uploaded and
// verified there like the footage), keeping what is checked.
func (v *offloadView) renderProxyTo() {
	if v.proxyTo == nil {
		return
	}
	var opts []string
	for _, d := range v.dests {
		opts = append(opts, d.Path)
	}
	var sel []string
	for _, s := range v.proxyTo.Selected {
		if slices.Contains(opts, s) {
			sel = append(sel, s)
		}
	}
	v.proxyTo.Options = opts
	v.proxyTo.Selected = sel
	v.proxyTo.Refresh()
	v.proxyToNote()
}

// proxySettings are the proxies choice as the job's settings:
// Settings.Proxies ("" none) and ProxiesTo (none: the first destination).
func (v *offloadView) proxySettings() (string, []string) {
	if v.proxyPreset == nil || v.proxyPreset.Selected == proxiesOff {
		return "", nil
	}
	return assembly.ProxySpec(v.proxyPreset.Selected, v.proxyBurnin.Checked), slices.Clone(v.proxyTo.Selected)
}

// addAnyDest adds a destination as written: a cloud one (rclone:...)
// checked with rclone, else a folder.
func (v *offloadView) addAnyDest(d string) {
	if assembly.IsRemoteDest(d) {
		v.addCloudDest(d)
	} else {
		v.addDest(d)
	}
}

// prepareProxies sets the proxies choice (Prepare).
func (v *offloadView) prepareProxies(preset string, burnin bool, to []string) {
	if preset == "" {
		return
	}
	v.proxyPreset.SetSelected(preset)
	v.proxyBurnin.SetChecked(burnin)
	v.proxyTo.SetSelected(to)
}
