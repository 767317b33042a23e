package ui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/assembly"
	"github.com/dit-org/dit/internal/cloud"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/plan"
	"github.com/dit-org/dit/internal/testcards"
	"github.com/dit-org/dit/internal/testneeds"
	"github.com/dit-org/dit/internal/watch"
)

// localRemote is an rclone whose only remote, "shuttle", is a folder of
// this machine (an alias of a temp folder, returned) defined by
// environment variables (no S3 server, no user configuration): a test's
// cloud destination.
func localRemote(t *testing.T) (*cloud.Rclone, string) {
	t.Helper()
	testneeds.Tool(t, "rclone", "Debian: apt-get install rclone")
	dir := t.TempDir()
	conf := filepath.Join(dir, "rclone.conf")
	require.NoError(t, os.WriteFile(conf, nil, 0o600))
	root := mkdir(t, filepath.Join(dir, "bucket"))
	return &cloud.Rclone{Config: conf, Tries: 1,
		Env: []string{"RCLONE_CONFIG_SHUTTLE_TYPE=alias", "RCLONE_CONFIG_SHUTTLE_REMOTE=" + root}}, root
}

// addCloud types s into the cloud entry, taps Add and waits for rclone's
// answer.
func addCloud(h *harness, s string) {
	h.t.Helper()
	h.locked(func() {
		test.Type(h.a.offload.cloud, s)
		test.Tap(buttonIn(h.a.offload.content, "Add cloud destination"))
	})
	h.eventually("rclone's answer on "+s, func() bool {
		for _, d := range h.a.offload.dests {
			if d.Loading {
				return false
			}
		}
		return true
	})
}

// An unknown remote is refused naming it and the remotes rclone has; no
// rclone at all, saying how to install it.
func TestCloudDestBadRemoteShowsTheError(t *testing.T) {
	rc, _ := localRemote(t)
	h := newHarness(t, func(c *Config) { c.Rclone = rc })
	addCloud(h, "nosuch:rushes/show")
	h.locked(func() {
		v := h.a.offload
		require.Empty(t, v.dests)
		require.True(t, v.status.Visible())
		require.Contains(t, v.status.Text, "cloud destination rclone:nosuch:rushes/show")
		require.Contains(t, v.status.Text, `no remote "nosuch" (it has shuttle)`)
		require.Contains(t, v.status.Text, "rclone config")
		require.Equal(t, "nosuch:rushes/show", v.cloud.Text, "the value stays to be fixed")
	})

	// No folder named, or one that is not there: refused in the words
	// of the job's own check.
	for _, c := range []struct{ typed, msg string }{
		{"shuttle:", "cloud destination rclone:shuttle: names no folder: write rclone:shuttle:BUCKET/FOLDER"},
		{"shuttle:rushes/show", `cloud destination rclone:shuttle:rushes/show: the folder rushes/show does not exist on the remote "shuttle": ` +
			"create it with rclone mkdir shuttle:rushes/show, or check the name"},
	} {
		h.locked(func() { h.a.offload.cloud.SetText("") })
		addCloud(h, c.typed)
		h.locked(func() {
			v := h.a.offload
			require.Empty(t, v.dests, c.typed)
			require.Contains(t, v.status.Text, c.msg)
			require.Contains(t, assembly.CheckRemoteDest(context.Background(), rc, "rclone:"+c.typed).Error(), c.msg, "the job's check says the same")
		})
	}

	h2 := newHarness(t, func(c *Config) { c.Rclone = &cloud.Rclone{Bin: "no-such-rclone-here"} })
	addCloud(h2, "rclone:s3backup:rushes")
	h2.locked(func() {
		require.Empty(t, h2.a.offload.dests)
		require.Contains(t, h2.a.offload.status.Text, "rclone is not installed: install it (Debian: apt-get install rclone)")
	})
}

// A good cloud destination and the proxies choice go into the job's
// assembly.Settings, and into the preset an auto-offload watches.
func TestCloudDestAndProxiesReachTheSettings(t *testing.T) {
	rc, root := localRemote(t)
	mkdir(t, filepath.Join(root, "cloud", "day01")) // dit creates no destination folder
	dir := t.TempDir()
	cards := genCards(t, dir, 200_000)
	raid, shuttle := mkdir(t, filepath.Join(dir, "raid")), mkdir(t, filepath.Join(dir, "shuttle"))
	h := newHarness(t, func(c *Config) { c.Rclone = rc })
	h.locked(func() {
		v := h.a.offload
		v.addCard(cards[0].Path)
		v.addDest(raid)
		v.addDest(shuttle)
	})
	addCloud(h, "shuttle:cloud/day01")
	h.eventually("the card scanned", func() bool { return !h.a.offload.cards[0].Scanning })
	h.eventually("the plan", func() bool { v := h.a.offload; return v.lastPlan.res != nil && v.lastSeq == v.planSeq })
	h.locked(func() { require.NotContains(t, texts(h.a.offload.planBox), "No plan") })
	var s jobSettings
	h.locked(func() {
		v := h.a.offload
		require.Len(t, v.dests, 3)
		d := v.dests[2]
		require.Equal(t, "rclone:shuttle:cloud/day01", d.Path)
		require.True(t, d.Cloud)
		require.Empty(t, v.cloud.Text, "the entry is cleared once added")
		require.False(t, v.status.Visible(), v.status.Text)
		rows := texts(v.destBox)
		require.Contains(t, rows, "rclone:shuttle:cloud/day01")
		require.Contains(t, rows, "cloud (rclone): uploaded and verified")
		require.Len(t, buttonsIn(v.destBox.Objects[2], ""), 1, "a cloud row: Remove only (no speed test of a folder)")
		require.Equal(t, []string{raid, shuttle, "rclone:shuttle:cloud/day01"}, v.proxyTo.Options, "proxies go to folders and the cloud")

		v.proxyPreset.SetSelected("h264")
		v.proxyBurnin.SetChecked(true)
		v.proxyTo.SetSelected([]string{shuttle, "rclone:shuttle:cloud/day01"})
		var msg string
		s, msg = v.jobSettings()
		require.Empty(t, msg)
	})
	require.Equal(t, []string{raid, shuttle, "rclone:shuttle:cloud/day01"}, s.Dests)
	require.Equal(t, "h264,burnin", s.Proxies)
	require.Equal(t, []string{shuttle, "rclone:shuttle:cloud/day01"}, s.ProxiesTo)
	set := h.a.assemblySettings(s, &jobRun{}, nil)
	require.Equal(t, s.Dests, set.Dests)
	require.Equal(t, "h264,burnin", set.Proxies)
	require.Equal(t, []string{shuttle, "rclone:shuttle:cloud/day01"}, set.ProxiesTo)
	require.Same(t, rc, set.Rclone)

	// Remembered for the next launch: the cloud destination (checked
	// again) and the proxies choice.
	var a2 *App
	h.locked(func() {
		h.a.offload.remember()
		a2 = New(h.a.fa, h.a.cfg)
	})
	t.Cleanup(a2.Close)
	h.eventually("the next launch's form", func() bool {
		var ok bool
		a2.locked(func() {
			v := a2.offload
			ok = len(v.dests) == 3 && !v.dests[2].Loading && v.dests[2].Cloud && v.proxyPreset.Selected == "h264" && v.proxyBurnin.Checked
		})
		return ok
	})

	// Off: no proxies.
	h.locked(func() {
		h.a.offload.proxyPreset.SetSelected(proxiesOff)
		require.True(t, h.a.offload.proxyBurnin.Disabled())
		s, _ = h.a.offload.jobSettings()
	})
	require.Empty(t, s.Proxies)
	require.Empty(t, s.ProxiesTo)

	// A watch preset keeps both.
	ps, err := presetSettings(&watch.Preset{File: "p.yaml", Spec: assembly.Spec{Dests: []string{raid, "rclone:shuttle:cloud/day01"}, Hashes: "xxh64,md5", SpecProxies: assembly.SpecProxies{Proxies: "prores-proxy", ProxiesTo: []string{raid}}}})
	require.NoError(t, err)
	require.Equal(t, []string{raid, "rclone:shuttle:cloud/day01"}, ps.Dests)
	require.Equal(t, "prores-proxy", ps.Proxies)
	require.Equal(t, []string{raid}, ps.ProxiesTo)
}

// The Offload tab with a cloud destination and proxies chosen: the
// markup and an image (testdata/offload-cloud-proxies.png).
func TestGoldenOffloadCloudAndProxies(t *testing.T) {
	renderOnly(t)
	skipRendersUnderRace(t)
	h := newHarness(t, nil)
	fillOffload(t, h)
	h.locked(func() {
		v := h.a.offload
		v.dests = append(v.dests, &destItem{Path: "rclone:s3backup:rushes/show", Free: -1, Cloud: true, Then: true})
		v.renderDests()
		// The plan with the upload (the preset's uplink unknown).
		var dests []destItem
		for _, d := range v.dests {
			dests = append(dests, *d)
		}
		topo, err := plan.ParseTopology("set.yaml", []byte(goldenTopology+`
  - {name: s3, path: "rclone:s3backup:rushes/show", run: 2}
upload_rate: 100MB/s
`))
		require.NoError(t, err)
		v.preset = topo
		out := computePlan(t.Context(), planInput{cards: v.included(), dests: dests, preset: topo,
			algos: []hashing.Algo{hashing.XXH64, hashing.MD5}, verify: true, valgos: []hashing.Algo{hashing.XXH64}, noCPU: true})
		require.Empty(t, out.err)
		v.lastPlan = out
		v.planBox.Objects = []fyne.CanvasObject{planPanel(out, "")}
		v.proxyPreset.SetSelected("prores-proxy")
		v.proxyBurnin.SetChecked(true)
		v.proxyTo.SetSelected([]string{"/Volumes/SHUTTLE"})
		// From the shuttle's row to the proxies in view.
		h.a.win.Resize(fyne.NewSize(1280, 1180))
	})
	h.locked(func() {
		v := h.a.offload
		v.leftScroll.ScrollToOffset(fyne.NewPos(0, v.destBox.Position().Y+v.destBox.Objects[2].Position().Y))
	})
	h.locked(func() {
		test.AssertImageMatches(t, "offload-cloud-proxies.png", h.a.win.Canvas().Capture())
		text := texts(h.a.offload.destBox)
		require.Contains(t, text, "rclone:s3backup:rushes/show")
		require.Contains(t, text, "no free space figure")
		// The uplink drawn once, its rate the preset's; the cloud
		// destination's line says it uploads through it in the second run.
		plan := texts(h.a.offload.planBox)
		require.Contains(t, plan, "Uplink, shared by every cloud destination: 0.100 GB/s, used by the second run (see Cascade)")
		require.Contains(t, plan, "s3 (second run): through the uplink")
		require.Equal(t, 1, strings.Count(plan, "0.100 GB/s"), "the uplink's rate is said once")
	})
}

// A job started from dit-gui with proxies, on a card of real clips: the
// History shows its proxies as dit job show counts them.
func TestGUIJobWithProxiesShowsTheCountInHistory(t *testing.T) {
	testneeds.EndToEnd(t, "ffmpeg")
	ffmpeg, err := testcards.FindFFmpeg()
	if err != nil {
		t.Skip("no proxies made: " + err.Error())
	}
	dir := t.TempDir()
	cards, err := testcards.Generate(context.Background(), testcards.Options{Out: filepath.Join(dir, "cards"), Cards: 1, Size: 2_000_000, Seed: 3, FFmpeg: ffmpeg})
	require.NoError(t, err)
	raid := mkdir(t, filepath.Join(dir, "raid"))
	h := newHarness(t, nil)
	h.locked(func() {
		h.a.Prepare(Preparation{Name: "prox", Cards: []string{cards[0].Path}, Dests: []string{raid}, Proxies: "h264", Start: true})
	})
	h.eventually("the job to end", func() bool {
		return h.a.running.run != nil && h.a.running.run.finished() && !h.a.offload.busy
	})
	require.Equal(t, []string{stateSafe}, h.panelStates())
	h.locked(func() { require.Regexp(t, `Proxies: [1-9][0-9]* made`, texts(h.a.running.content)) })
	// The engine's live model counted the card's proxies, each done once.
	var snap offload.Progress
	h.locked(func() { snap = h.a.running.run.job.Snapshot() })
	require.Len(t, snap.Cards, 1)
	require.Positive(t, snap.Cards[0].Proxies)
	require.Equal(t, snap.Cards[0].Proxies, snap.Cards[0].ProxiesMade)
	h.locked(func() { h.a.selectTab(h.a.history.content) })
	h.eventually("the job in History", func() bool { return len(h.a.history.rows) == 1 })
	h.locked(func() { h.a.history.list.Select(0) })
	h.eventually("the job's detail", func() bool { return h.a.history.open != nil })
	var text string
	h.locked(func() { text = texts(h.a.history.detail) })
	require.Regexp(t, `Proxies: [1-9][0-9]* made`, text)
	require.NotContains(t, text, "failed\nProxies")
	files, err := filepath.Glob(filepath.Join(raid, "*", "*", "*", "*.mp4"))
	require.NoError(t, err)
	t.Logf("proxies: %v; %s", files, text)
}

// A cascade to a folder and a cloud destination started from dit-gui:
// the card is free once the folder copy is verified, safe to format once
// the upload is verified; the cloud destination's row reads as the
// others.
func TestGUIJobToACloudDestination(t *testing.T) {
	rc, root := localRemote(t)
	mkdir(t, filepath.Join(root, "rushes")) // the bucket
	dir := t.TempDir()
	cards := genCards(t, dir, 300_000)
	raid := mkdir(t, filepath.Join(dir, "raid"))
	h := newHarness(t, func(c *Config) { c.Rclone = rc })
	h.locked(func() { h.a.Prepare(Preparation{Name: "up", Cards: []string{cards[0].Path}, Dests: []string{raid}}) })
	addCloud(h, "shuttle:rushes")
	h.eventually("the card scanned", func() bool { return len(h.a.offload.cards) == 1 && !h.a.offload.cards[0].Scanning })
	h.locked(func() {
		require.Len(t, h.a.offload.dests, 2, h.a.offload.status.Text)
		h.a.offload.setDestRun(1, true)
		h.a.offload.start()
	})
	h.eventually("the job to end", func() bool {
		return h.a.running.run != nil && h.a.running.run.finished() && !h.a.offload.busy
	})
	require.Equal(t, []string{stateSafe}, h.panelStates())
	var text string
	h.locked(func() { text = texts(h.a.running.content) })
	require.Contains(t, text, "rclone:shuttle:rushes")
	require.Regexp(t, `Uploaded [0-9.]+ kB of [0-9.]+ kB\nChecked [0-9.]+ kB of [0-9.]+ kB\n`, text)
	// History: the upload's MHL folder button is off (no folder here).
	h.locked(func() { h.a.selectTab(h.a.history.content) })
	h.eventually("the job in History", func() bool { return len(h.a.history.rows) == 1 })
	h.locked(func() { h.a.history.list.Select(0) })
	h.eventually("the job's detail", func() bool { return h.a.history.open != nil })
	h.locked(func() {
		mhl := buttonsIn(h.a.history.detail, "MHL folder")
		require.Len(t, mhl, 2)
		require.False(t, mhl[0].Disabled(), "the folder's")
		require.True(t, mhl[1].Disabled(), "the cloud destination's")
	})
	files, err := filepath.Glob(filepath.Join(root, "rushes", "up", "A001", "*", "*"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "the upload is in the remote's folder")
}
