package ui

import (
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/dit-org/dit/internal/assembly"
)

// The rest of the job details: the rates and sizes of the copy, the
// drives' check, how rclone reaches the cloud destinations and how many
// ffmpeg make proxies at once (assembly.SpecPace, SpecRemote,
// DriveHealth, ProxyWorkers), in the folded "Job details" section.

// offloadPace are those fields.
type offloadPace struct {
	readRate     *widget.Entry // each card's read rate (throttle)
	limits       *widget.Entry // RATE or DEST=RATE, one a line
	checkpoint   *widget.Entry
	driveHealth  *widget.Select
	cloudBw      *widget.Entry
	rcloneConfig *widget.Entry
	proxyWorkers *widget.Select
}

// driveChecks are the drive-health choices and their Spec words
// (assembly does not export its list: Spec.Settings' drive_health).
var driveChecks = []struct{ text, spec string }{
	{"Warn of a drive reporting problems", ""},
	{"Refuse the job on such a drive", "refuse"},
	{"Off (no smartctl)", "off"},
}

// proxyWorkerChoices: how many ffmpeg make proxies at once.
var proxyWorkerChoices = []string{"1", "2", "3", "4"}

// Preference keys of these details.
const (
	prefThrottle     = "form.throttle"
	prefLimits       = "form.limits"
	prefCheckpoint   = "form.checkpointEvery"
	prefDriveHealth  = "form.driveHealth"
	prefCloudBw      = "form.cloudBwLimit"
	prefRcloneConfig = "form.rcloneConfig"
	prefProxyWorkers = "form.proxyWorkers"
)

// paceFormItems are these details' rows of the "Job details" form.
func (v *offloadView) paceFormItems() []*widget.FormItem {
	entry := func(placeholder string) *widget.Entry {
		e := widget.NewEntry()
		e.SetPlaceHolder(placeholder)
		e.OnChanged = func(string) { v.checkAdvanced() }
		return e
	}
	v.readRate = entry("no cap, e.g. 200MB/s")
	v.limits = widget.NewMultiLineEntry()
	v.limits.SetPlaceHolder("none; RATE or DEST=RATE a line, e.g. /Volumes/RAID=1.5GB/s")
	v.limits.SetMinRowsVisible(1)
	v.limits.OnChanged = func(string) { v.checkAdvanced() }
	v.checkpoint = entry("every " + assembly.DefaultCheckpoint + "; 0 never")
	var opts []string
	for _, d := range driveChecks {
		opts = append(opts, d.text)
	}
	v.driveHealth = widget.NewSelect(opts, func(string) { v.checkAdvanced() })
	v.driveHealth.SetSelected(opts[0])
	v.cloudBw = entry("cloud: no cap, e.g. 20MB/s")
	v.rcloneConfig = entry("rclone's own")
	v.proxyWorkers = widget.NewSelect(proxyWorkerChoices, func(string) { v.checkAdvanced() })
	v.proxyWorkers.SetSelected(proxyWorkerChoices[0])
	return []*widget.FormItem{
		widget.NewFormItem(formNames("throttle"), v.readRate),
		widget.NewFormItem(formNames("limit"), v.limits),
		widget.NewFormItem(formNames("checkpoint_every"), container.NewGridWithColumns(2, v.checkpoint)),
		widget.NewFormItem(formNames("drive_health"), v.driveHealth),
		widget.NewFormItem(formNames("cloud_bwlimit"), container.NewGridWithColumns(2, v.cloudBw)),
		widget.NewFormItem(formNames("rclone_config"), v.rcloneConfig),
		widget.NewFormItem(formNames("proxy_workers"), container.NewHBox(v.proxyWorkers)),
	}
}

// lines are the non-blank lines of text, trimmed.
func lines(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// paceSpec puts these details into sp (values as typed).
func (v *offloadView) paceSpec(sp *assembly.Spec) {
	if v.proxyWorkers == nil {
		return
	}
	sp.Throttle = strings.TrimSpace(v.readRate.Text)
	sp.Limits = lines(v.limits.Text)
	sp.Checkpoint = strings.TrimSpace(v.checkpoint.Text)
	for _, d := range driveChecks {
		if d.text == v.driveHealth.Selected {
			sp.DriveHealth = d.spec
		}
	}
	sp.RemoteBwLimit = strings.TrimSpace(v.cloudBw.Text)
	sp.RcloneConfig = strings.TrimSpace(v.rcloneConfig.Text)
	if i := slices.Index(proxyWorkerChoices, v.proxyWorkers.Selected); i > 0 {
		sp.ProxyWorkers = i + 1
	}
}

// paceSet are the form's names of these details that are set.
func paceSet(sp assembly.Spec) []string {
	var out []string
	for _, f := range []struct {
		key string
		on  bool
	}{{"throttle", sp.Throttle != ""}, {"limit", len(sp.Limits) > 0}, {"checkpoint_every", sp.Checkpoint != ""},
		{"drive_health", sp.DriveHealth != ""}, {"cloud_bwlimit", sp.RemoteBwLimit != ""}, {"rclone_config", sp.RcloneConfig != ""},
		{"proxy_workers", sp.ProxyWorkers > 1}} {
		if f.on {
			out = append(out, formNames(f.key))
		}
	}
	return out
}

// rememberPace keeps these details in the app's preferences.
func (v *offloadView) rememberPace(p fyne.Preferences) {
	p.SetString(prefThrottle, v.readRate.Text)
	p.SetStringList(prefLimits, lines(v.limits.Text))
	p.SetString(prefCheckpoint, v.checkpoint.Text)
	p.SetString(prefDriveHealth, v.driveHealth.Selected)
	p.SetString(prefCloudBw, v.cloudBw.Text)
	p.SetString(prefRcloneConfig, v.rcloneConfig.Text)
	p.SetString(prefProxyWorkers, v.proxyWorkers.Selected)
}

// restorePace fills these details with what rememberPace kept.
func (v *offloadView) restorePace(p fyne.Preferences) {
	v.readRate.SetText(p.String(prefThrottle))
	v.limits.SetText(strings.Join(p.StringList(prefLimits), "\n"))
	v.checkpoint.SetText(p.String(prefCheckpoint))
	if s := p.String(prefDriveHealth); slices.Index(v.driveHealth.Options, s) >= 0 {
		v.driveHealth.SetSelected(s)
	}
	v.cloudBw.SetText(p.String(prefCloudBw))
	v.rcloneConfig.SetText(p.String(prefRcloneConfig))
	if s := p.String(prefProxyWorkers); slices.Index(v.proxyWorkers.Options, s) >= 0 {
		v.proxyWorkers.SetSelected(s)
	}
}
