package ui

import (
	"path/filepath"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/cloud"
	"github.com/dit-org/dit/internal/cloud/s3test"
	"github.com/dit-org/dit/internal/units"
)

// The form's cloud destinations are checked with the engine's rule as
// they change, not when Start is pressed: a cloud destination beside a
// second-run folder, or with no read-back, is refused beside Start in
// the engine's words, and Start is off until it is fixed.
func TestCloudRefusalBeforeStart(t *testing.T) {
	dir := t.TempDir()
	cards := genCards(t, dir, 50_000)
	raid, shuttle := mkdir(t, filepath.Join(dir, "raid")), mkdir(t, filepath.Join(dir, "shuttle"))
	h := newHarness(t, nil)
	h.locked(func() {
		v := h.a.offload
		v.addCard(cards[0].Path)
		v.addDest(raid)
		v.addDest(shuttle)
		v.dests = append(v.dests, &destItem{Path: "rclone:s3backup:rushes/show", Free: -1, Cloud: true})
		v.renderDests()
	})
	h.eventually("the card scanned", func() bool { return len(h.a.offload.cards) == 1 && !h.a.offload.cards[0].Scanning })
	h.locked(func() {
		v := h.a.offload
		require.False(t, v.refusal.Visible(), v.refusal.Text)
		require.False(t, v.startBtn.Disabled())

		v.setDestRun(1, true) // the shuttle to the second run, beside the cloud one
		require.True(t, v.refusal.Visible())
		require.Equal(t, "Cannot start: a cloud destination and destinations set to \"Then, from the first copy\" in one job. "+
			"Set the folders to \"First copy (card is read)\" (the cloud copy is then uploaded from the first copy), or make the shuttles in another job.", v.refusal.Text)
		require.NotContains(t, v.refusal.Text, "--", "the form's words, not the flags")
		require.True(t, v.startBtn.Disabled())
		_, msg := v.jobSettings()
		require.Equal(t, v.refusal.Text, msg, "Ctrl+Enter says it too")
		require.False(t, v.cloudL.Visible(), "no route told for a form that cannot start")

		v.setDestRun(1, false) // fixed
		require.False(t, v.refusal.Visible())
		require.False(t, v.startBtn.Disabled())
		require.Contains(t, v.cloudL.Text, "rclone:s3backup:rushes/show is uploaded from "+raid+"'s verified copy once the card is free")
	})
	// The plan plans the upload where the engine runs it: the second run.
	h.eventually("the plan", func() bool { v := h.a.offload; return v.lastPlan.topo != nil && v.lastSeq == v.planSeq })
	h.locked(func() {
		v := h.a.offload
		runs := map[string]int{}
		for _, d := range v.lastPlan.topo.Destinations {
			runs[d.Path] = d.Run
		}
		require.Equal(t, 2, runs["rclone:s3backup:rushes/show"], "%+v", v.lastPlan.topo.Destinations)
		require.Less(t, runs[shuttle], 2)
		require.Contains(t, texts(v.planBox), "First copy on raid, then rclone:s3backup:rushes/show (second run: 1 card at once).")

		v.verify.SetSelected(verifyNoneText)
		require.Equal(t, "Cannot start: a cloud destination with \"No read-back (never safe to format)\": a cloud copy counts only once the storage's checksum "+
			"(or a read-back) matches the card. Choose \"Read back every copy\".", v.refusal.Text)
		require.True(t, v.startBtn.Disabled())
		test.Tap(v.startBtn)
		require.Nil(t, h.a.running.run, "a disabled Start starts nothing")

		v.verify.SetSelected(verifyDestText)
		require.False(t, v.refusal.Visible())
		require.False(t, v.startBtn.Disabled())

		// Without the cloud destination the rule has nothing to say.
		v.verify.SetSelected(verifyNoneText)
		v.removeDest(2)
		require.False(t, v.refusal.Visible())
		require.False(t, v.startBtn.Disabled())
	})
}

// A cloud destination given as a first copy beside a folder is uploaded
// from the folder's verified copy in a second run: the form says so, in
// the assembly's words, under the destinations; an image of it is
// testdata/offload-cloud-route.png.
func TestCloudRouteSaidOnTheForm(t *testing.T) {
	h := newHarness(t, nil)
	fillOffload(t, h)
	h.locked(func() {
		v := h.a.offload
		v.dests = append(v.dests, &destItem{Path: "rclone:s3backup:rushes/show", Free: -1, Cloud: true})
		v.renderDests()
		require.True(t, v.cloudL.Visible())
		require.Equal(t, "rclone:s3backup:rushes/show is uploaded from /Volumes/Blade1's verified copy once the card is free "+
			"(a second run: the card is not read for it); the card is safe to format only when the cloud copy is verified too.", v.cloudL.Text)
		h.a.win.Resize(fyne.NewSize(1280, 1000))
	})
	h.locked(func() {
		v := h.a.offload
		v.leftScroll.ScrollToOffset(fyne.NewPos(0, v.destBox.Position().Y+v.destBox.Objects[1].Position().Y))
	})
	if !raceDetector { // pixels, drawn on one goroutine: make test's first stage (see skipRendersUnderRace)
		h.locked(func() { test.AssertImageMatches(t, "offload-cloud-route.png", h.a.win.Canvas().Capture()) })
	}

	// Given to the second run by hand, it is a cascade the form already
	// describes: no second line.
	h.locked(func() {
		v := h.a.offload
		v.setDestRun(2, true)
		require.False(t, v.cloudL.Visible())
		require.Contains(t, v.cascadeL.Text, "to rclone:s3backup:rushes/show")
	})
}

// A job whose cloud destination was given as a first copy beside a
// folder runs as the form said: a cascade. The running view shows the
// card free after the folder's copy, then its second run (the upload),
// and safe to format once the upload verified; History tells the second
// run's destination.
func TestGUIJobCloudBesideFolderIsACascade(t *testing.T) {
	rc, root := localRemote(t)
	mkdir(t, filepath.Join(root, "rushes"))
	dir := t.TempDir()
	cards := genCards(t, dir, 300_000)
	raid := mkdir(t, filepath.Join(dir, "raid"))
	h := newHarness(t, func(c *Config) { c.Rclone = rc })
	h.locked(func() { h.a.Prepare(Preparation{Name: "up", Cards: []string{cards[0].Path}, Dests: []string{raid}}) })
	addCloud(h, "shuttle:rushes")
	h.eventually("the card scanned", func() bool { return len(h.a.offload.cards) == 1 && !h.a.offload.cards[0].Scanning })
	var freed bool
	h.locked(func() {
		v := h.a.offload
		require.Len(t, v.dests, 2, v.status.Text)
		require.False(t, v.dests[1].Then, "left as a first copy")
		require.Positive(t, v.dests[1].Free, "a local remote reports its disk's free space")
		require.Contains(t, texts(v.destBox), "read-back; "+units.FormatBytes(v.dests[1].Free)+" free")
		require.Contains(t, v.cloudL.Text, "rclone:shuttle:rushes is uploaded from "+raid+"'s verified copy")
		v.start()
	})
	h.eventually("the job to end", func() bool {
		r := h.a.running.run
		if r == nil {
			return false
		}
		if m := r.modelOrNil(); m != nil && !freed {
			for _, c := range m.view().Cards {
				freed = freed || c.Free
			}
		}
		return r.finished() && !h.a.offload.busy
	})
	require.Equal(t, []string{stateSafe}, h.panelStates())
	var text string
	h.locked(func() { text = texts(h.a.running.content) })
	require.True(t, freed, "the card was free before the job ended")
	require.Contains(t, text, "1st run: from the card to "+raid+"\n")
	require.Contains(t, text, "2nd run: from the first copy on "+raid+" to rclone:shuttle:rushes\n")
	require.Regexp(t, `Card free at [0-9:]+; both runs verified at [0-9:]+: safe to format.`, text)
	require.Contains(t, text, "1 safe to format (second run verified on rclone:shuttle:rushes too)")

	h.locked(func() { h.a.selectTab(h.a.history.content) })
	h.eventually("the job in History", func() bool { return len(h.a.history.rows) == 1 })
	h.locked(func() { h.a.history.list.Select(0) })
	h.eventually("the job's detail", func() bool { return h.a.history.open != nil })
	h.locked(func() { text = texts(h.a.history.detail) })
	require.Contains(t, text, "Cascade: first run to "+raid+"; second run (from the first copy on "+raid+") to rclone:shuttle:rushes\n")
	require.Contains(t, text, "rclone:shuttle:rushes/up/A001: 13 verified, 0 copied, 0 failed, 0 skipped")
	require.NotContains(t, text, "(2nd run)", "History names the runs, not the engine's labels")
}

// A job to S3 (the real moto server), whose storage reports no free
// space: the job goes on, and the running view says so before the start
// as a note (the assembly's, as dit offload prints it).
func TestGUIJobToS3SaysFreeSpaceUnknown(t *testing.T) {
	srv := s3test.Start(t, "ditgui", "shots")
	dir := t.TempDir()
	cards := genCards(t, dir, 100_000)
	raid := mkdir(t, filepath.Join(dir, "raid"))
	h := newHarness(t, func(c *Config) { c.Rclone = &cloud.Rclone{Env: srv.Env, Tries: 1} })
	h.locked(func() { h.a.Prepare(Preparation{Name: "s3", Cards: []string{cards[0].Path}, Dests: []string{raid}}) })
	addCloud(h, "ditgui:shots/day01")
	h.eventually("the card scanned", func() bool { return len(h.a.offload.cards) == 1 && !h.a.offload.cards[0].Scanning })
	h.locked(func() {
		require.Len(t, h.a.offload.dests, 2, h.a.offload.status.Text)
		require.Equal(t, int64(-1), h.a.offload.dests[1].Free)
		require.Contains(t, texts(h.a.offload.destBox), "read-back; no free space figure")
		h.a.offload.start()
	})
	h.eventually("the job to end", func() bool {
		r := h.a.running.run
		return r != nil && r.finished() && !h.a.offload.busy
	})
	require.Equal(t, []string{stateSafe}, h.panelStates())
	var text string
	h.locked(func() { text = texts(h.a.running.content) })
	require.Contains(t, text, "Before the start:\nNote: free space of ditgui: unknown (the storage does not report it)\n")
}
