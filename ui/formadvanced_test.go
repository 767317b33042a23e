package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/assembly"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload"
)

// A job detail the engine refuses is refused with the field named as
// the form labels it: beside the job details as it is typed, and above
// Start when pressed; the job does not start.
func TestFormJobDetailsRefusedNamingTheField(t *testing.T) {
	viewLogicOnly(t)
	dir := t.TempDir()
	card := genCards(t, dir, 20_000)[0].Path
	d1 := mkdir(t, filepath.Join(dir, "d1"))
	h := newHarness(t, nil)
	h.locked(func() { h.a.Prepare(Preparation{Cards: []string{card}, Dests: []string{d1}}) })
	h.eventually("the card scanned", func() bool { v := h.a.offload; return len(v.cards) == 1 && !v.cards[0].Scanning })
	h.locked(func() {
		v := h.a.offload
		for _, c := range []struct {
			set  func()
			want string // the refusal starts so
		}{
			{func() { v.layout.SetText("../{card}") }, "Folder layout: "},
			{func() { v.layout.SetText("{job}/{cam}/{card}") }, "Folder layout: "},
			{func() { v.layout.SetText("{job}") }, "Folder layout: "},
			{func() { v.blockSize.SetText("1GB") }, "Block size: \"1GB\": use 4KiB to 256MiB"},
			{func() { v.creator.email.SetText("jane@") }, "Creator email: "},
			{func() { v.creator.location.SetText("Stage\x015") }, "Creator location: holds characters an XML document cannot carry"},
			{func() { v.readRate.SetText("fast") }, "Read rate: \"fast\": a rate such as 200MB/s"},
			{func() { v.limits.SetText("/Volumes/RAID=quick") }, "Write limits: \"/Volumes/RAID=quick\""},
			{func() { v.checkpoint.SetText("often") }, "Checkpoints: \"often\""},
			{func() { v.cloudBw.SetText("lots") }, "Upload limit: \"lots\""},
		} {
			c.set()
			require.True(t, strings.HasPrefix(v.advNote.Text, c.want), "beside the details: %q", v.advNote.Text)
			require.True(t, v.advNote.Visible())
			_, msg := v.jobSettings()
			require.True(t, strings.HasPrefix(msg, "Cannot start: "+c.want), "on Start: %q", msg)
			require.NotContains(t, msg, "--", "named as the form calls it, not as a flag")
			v.start()
			require.Equal(t, "Cannot start: "+v.advNote.Text, v.status.Text)
			require.False(t, v.busy, "the job did not start")
			// Fixed: the note goes.
			v.layout.SetText("")
			v.blockSize.SetText("")
			v.creator.email.SetText("")
			v.creator.location.SetText("")
			v.readRate.SetText("")
			v.limits.SetText("")
			v.checkpoint.SetText("")
			v.cloudBw.SetText("")
			require.False(t, v.advNote.Visible())
			_, msg = v.jobSettings()
			require.Empty(t, msg)
		}
	})
	// An on-conflict the engine does not know (the form offers only the
	// engine's) is refused by the same rule, named as the form calls it.
	_, err := assembly.Spec{OnConflict: "clobber"}.Settings(formNames, nil)
	require.EqualError(t, err, `On conflict: "clobber": use fail, skip or rename`)
	_, err = assembly.Spec{Ignore: []string{"  "}}.Settings(formNames, nil)
	require.ErrorContains(t, err, "Ignore: ")
}

// The job details are remembered when a job starts and come back at the
// next launch (the same preferences, a new app); a remembered policy the
// engine no longer has leaves the default.
func TestFormJobDetailsRememberedAcrossLaunches(t *testing.T) {
	raceCoveredElsewhere(t)
	h := newHarness(t, nil)
	h.locked(func() {
		v := h.a.offload
		v.creator.author.SetText("Jane Doe")
		v.creator.email.SetText("jane@example.com")
		v.creator.phone.SetText("+49 30 1234")
		v.creator.role.SetText("DIT")
		v.creator.location.SetText("Stage 5")
		v.creator.comment.SetText("day 1")
		v.layout.SetText("{date}/{card}")
		v.onConflict.SetSelected(conflictText(offload.ConflictSkip))
		v.ignore.SetText("*.RMD\nCACHE/")
		v.hidden.SetChecked(true)
		v.blockSize.SetText("1MiB")
		v.ale.SetChecked(true)
		v.noDirHashes.SetChecked(true)
		v.readRate.SetText("200MB/s")
		v.limits.SetText("1.5GB/s\n/Volumes/SHUTTLE=400MB/s")
		v.checkpoint.SetText("0")
		v.driveHealth.SetSelected(driveChecks[1].text)
		v.cloudBw.SetText("20MB/s")
		v.rcloneConfig.SetText("/etc/rclone.conf")
		v.proxyWorkers.SetSelected("3")
		v.remember()
	})
	var want assembly.Spec
	h.locked(func() { h.a.offload.advancedSpec(&want) })
	require.Equal(t, "skip", want.OnConflict)
	require.Equal(t, "Jane Doe", want.Creator.Author)
	require.Equal(t, "refuse", want.DriveHealth)
	require.Equal(t, 3, want.ProxyWorkers)
	require.Equal(t, []string{"1.5GB/s", "/Volumes/SHUTTLE=400MB/s"}, want.Limits)
	h.a.bg.Wait()
	var a2 *App
	h.locked(func() { a2 = New(h.a.fa, h.a.cfg) })
	t.Cleanup(a2.Close)
	a2.locked(func() {
		var got assembly.Spec
		a2.offload.advancedSpec(&got)
		require.Equal(t, want, got)
		require.Equal(t, "Set: Creator, Folder layout, On conflict, Ignore, Hidden files, Editorial lists, Folder hashes, Block size, "+
			"Read rate, Write limits, Checkpoints, Drive health, Upload limit, rclone config, ffmpeg at once.", a2.offload.advSet.Text,
			"the folded section says which details are set")
	})

	h.a.fa.Preferences().SetString(prefOnConflict, "clobber")
	var a3 *App
	h.locked(func() { a3 = New(h.a.fa, h.a.cfg) })
	t.Cleanup(a3.Close)
	a3.locked(func() { require.Equal(t, conflictText(offload.ConflictFail), a3.offload.onConflict.Selected) })
}

// The Offload tab at 1280x800 with the job details open and filled, one
// refused: the image testdata/offload-job-details.png (scrolled to the
// section's end: the note of the refusal and what is set).
func TestGoldenOffloadJobDetails(t *testing.T) {
	renderOnly(t)
	skipRendersUnderRace(t)
	h := newHarness(t, nil)
	fillOffload(t, h)
	h.locked(func() {
		v := h.a.offload
		h.a.win.Resize(fyne.NewSize(1280, 800))
		v.advAcc.Open(0)
		v.creator.author.SetText("Jane Doe")
		v.creator.role.SetText("DIT")
		v.creator.email.SetText("jane@")
		v.creator.location.SetText("Stage 5, Babelsberg")
		v.layout.SetText("{job}/{date}_{card}")
		v.onConflict.SetSelected(conflictText(offload.ConflictRename))
		v.ignore.SetText("*.RMD\nCACHE/")
		v.ale.SetChecked(true)
	})
	h.locked(func() {
		v := h.a.offload
		// The section's end in view (with the topology preset's buttons
		// below it).
		v.leftScroll.ScrollToOffset(fyne.NewPos(0, v.advBox.Position().Y+v.advBox.Size().Height+180-v.leftScroll.Size().Height))
	})
	h.locked(func() {
		test.AssertImageMatches(t, "offload-job-details.png", h.a.win.Canvas().Capture())
		require.True(t, strings.HasPrefix(h.a.offload.advNote.Text, "Creator email: "))
	})
}

// The form offers every hash the engine has, each once, and checks
// dit's defaults at first; its on-conflict choices are the engine's
// policies, the default first.
func TestFormOffersTheEnginesValues(t *testing.T) {
	require.ElementsMatch(t, hashing.All, formHashes)
	h := newHarness(t, nil)
	h.locked(func() {
		v := h.a.offload
		var checked []string
		for _, c := range v.hashes {
			if c.Checked {
				checked = append(checked, c.Text)
			}
		}
		require.Equal(t, assembly.DefaultHashes, strings.Join(checked, ","))
		require.Equal(t, conflictText(offload.ConflictFail), v.onConflict.Selected)
		for _, o := range v.onConflict.Options {
			_, err := offload.ParseConflict(string(conflictOf(o)))
			require.NoError(t, err, o)
		}
		require.Len(t, v.onConflict.Options, len(conflictModes))
	})
}
