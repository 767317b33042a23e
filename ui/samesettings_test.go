package ui

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/assembly"
	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/offload"
)

// recordedSettings are the settings a job's row in the catalog records,
// without what names the job and its run (id, name, state, host, tool,
// times, uuid).
func recordedSettings(t *testing.T, cat *catalog.Catalog, id int64) (catalog.Job, []int) {
	t.Helper()
	j, err := cat.Job(id)
	require.NoError(t, err)
	out := *j
	out.ID, out.Name, out.State, out.Host, out.ToolVersion, out.PID = 0, "", "", "", "", 0
	out.Started, out.Finished, out.Error, out.Station, out.UUID, out.Active = time.Time{}, time.Time{}, "", "", "", false
	ds, err := cat.Dests(id)
	require.NoError(t, err)
	var hops []int
	for _, d := range ds {
		hops = append(hops, d.Hop)
	}
	return out, hops
}

// A job started from the Offload form and a job dit offload would make
// with the same settings (an assembly.Spec bound to its flags, checked
// with FlagNames) record the same settings in the catalog: both front
// ends go through assembly.Spec.Settings.
func TestFormJobAndCLIJobRecordTheSameSettings(t *testing.T) {
	raceCoveredElsewhere(t)
	dir := t.TempDir()
	guiCard := genCards(t, filepath.Join(dir, "gui"), 60_000)[0].Path
	cliCard := genCards(t, filepath.Join(dir, "cli"), 60_000)[0].Path
	d1, d2 := mkdir(t, filepath.Join(dir, "d1")), mkdir(t, filepath.Join(dir, "d2"))
	e1, e2 := mkdir(t, filepath.Join(dir, "e1")), mkdir(t, filepath.Join(dir, "e2"))
	h := newHarness(t, nil)

	// The GUI leg: the form, filled and chosen as a person would.
	var guiSet assembly.Settings
	rcloneConf := filepath.Join(dir, "rclone.conf")
	h.locked(func() {
		h.a.Prepare(Preparation{Name: "gui", Cards: []string{guiCard}, Dests: []string{d1}, Then: []string{d2}, ThenParallel: 2})
	})
	h.eventually("the card scanned", func() bool {
		v := h.a.offload
		return len(v.cards) == 1 && !v.cards[0].Scanning && len(v.dests) == 2 && !v.dests[1].Loading
	})
	h.locked(func() {
		v := h.a.offload
		for _, c := range v.hashes {
			c.SetChecked(c.Text == "md5" || c.Text == "sha1")
		}
		v.verify.SetSelected(verifySourceText)
		v.verifyAll.SetChecked(true)
		v.mhl.SetSelected("ASC MHL and MHL v1.1")
		// The job details, as a DIT fills them in.
		c := v.creator
		c.author.SetText("Jane Doe")
		c.email.SetText("jane@example.com")
		c.phone.SetText("+49 30 1234")
		c.role.SetText("DIT")
		c.location.SetText("Stage 5")
		c.comment.SetText("day 1")
		v.layout.SetText("{job}/{date}_{card}")
		v.onConflict.SetSelected(conflictText(offload.ConflictRename))
		v.ignore.SetText("*.RMD\n\nCACHE/\n")
		v.hidden.SetChecked(true)
		v.blockSize.SetText("1MiB")
		v.ale.SetChecked(true)
		v.noDirHashes.SetChecked(true)
		v.readRate.SetText("200MB/s")
		v.limits.SetText("1.5GB/s")
		v.checkpoint.SetText("1MiB")
		v.driveHealth.SetSelected(driveChecks[2].text)
		v.cloudBw.SetText("20MB/s")
		v.rcloneConfig.SetText(rcloneConf)
		v.proxyWorkers.SetSelected("2")
		s, msg := v.jobSettings()
		require.Empty(t, msg)
		require.Equal(t, []string{d1}, s.Dests)
		require.Equal(t, []string{d2}, s.Then)
		guiSet = s.Settings
		v.start()
	})
	h.waitJob()
	var guiID int64
	h.locked(func() { guiID = h.a.running.run.job.ID() })

	// The CLI leg: dit offload -d e1 --then e2 --then-parallel 2 --hash
	// md5,sha1 --verify source+dest --verify-hashes all --mhl both
	// --author-name "Jane Doe" ... --layout {job}/{date}_{card}
	// --on-conflict rename --ignore '*.RMD' --ignore CACHE/
	// --include-hidden --block-size 1MiB --ale --no-directory-hashes
	// --throttle 200MB/s --limit 1.5GB/s --checkpoint-every 1MiB
	// --drive-health off --cloud-bwlimit 20MB/s --rclone-config ...
	// --proxy-workers 2.
	spec := assembly.Spec{Name: "cli", Dests: []string{e1}, Then: []string{e2}, ThenParallel: 2, Hashes: "md5,sha1",
		Verify: "source+dest", VerifyHashes: "all", MHL: "both", Layout: "{job}/{date}_{card}", OnConflict: "rename",
		Ignore: []string{"*.RMD", "CACHE/"}, SpecPace: assembly.SpecPace{BlockSize: "1MiB", Throttle: "200MB/s", Limits: []string{"1.5GB/s"}, Checkpoint: "1MiB"},
		DriveHealth: "off", SpecRemote: assembly.SpecRemote{RemoteBwLimit: "20MB/s", RcloneConfig: rcloneConf},
		SpecProxies: assembly.SpecProxies{ProxyWorkers: 2},
		SpecFlags:   assembly.SpecFlags{IncludeHidden: true, ALE: true, NoDirectoryHashes: true},
		Creator: assembly.Creator{Author: "Jane Doe", Email: "jane@example.com", Phone: "+49 30 1234", Role: "DIT",
			Location: "Stage 5", Comment: "day 1"}}
	set, err := spec.Settings(assembly.FlagNames, []string{cliCard})
	require.NoError(t, err)
	// What the catalog does not record (the creator info, the editorial
	// lists, the rates and sizes, the drives' check) is the same in both
	// jobs' settings.
	require.Equal(t, set.Sealing, guiSet.Sealing)
	require.Equal(t, set.Copying, guiSet.Copying)
	require.Equal(t, set.Proxying, guiSet.Proxying)
	require.Equal(t, set.Sched, guiSet.Sched)
	require.Equal(t, set.Drives, guiSet.Drives)
	require.Equal(t, set.Rclone, guiSet.Rclone)
	set.Catalog, set.ToolVersion = h.cat, "dit test"
	ctx := context.Background()
	prep, err := assembly.Prepare(ctx, set)
	require.NoError(t, err)
	job, err := prep.Open(ctx)
	require.NoError(t, err)
	require.NoError(t, job.Start())
	sum, err := job.Run(ctx)
	require.NoError(t, err)
	require.Empty(t, job.Finish(ctx, sum, nil))

	gui, guiHops := recordedSettings(t, h.cat, guiID)
	cli, cliHops := recordedSettings(t, h.cat, job.ID())
	require.Equal(t, cli, gui)
	require.Equal(t, cliHops, guiHops)
	// What was chosen, recorded (not two equal defaults).
	require.Equal(t, "md5,sha1", gui.Hashes)
	require.Equal(t, "source+dest", gui.VerifyMode)
	require.Equal(t, "both", gui.MHL)
	require.Equal(t, 2, gui.ThenParallel)
	require.Equal(t, []int{1, 2}, guiHops)
	require.Equal(t, "{job}/{date}_{card}", gui.Layout)
	require.Equal(t, "rename", gui.OnConflict)
	require.True(t, gui.IncludeHidden)
	require.Equal(t, []string{"*.RMD", "CACHE/"}, gui.Ignore)
	require.Equal(t, 1<<20, guiSet.BlockSize)
	require.True(t, guiSet.ALE)
	require.Equal(t, 200e6, guiSet.Throttle)
	require.Equal(t, int64(1<<20), guiSet.CheckpointEvery)
	require.Equal(t, assembly.DrivesOff, guiSet.Drives)
	require.Equal(t, 2, guiSet.ProxyWorkers)
	require.Equal(t, rcloneConf, gui.RcloneConfig)
	require.Equal(t, int64(20e6), gui.CloudBwLimit)
	// The creator info the form took is in the GUI job's sealed hash list.
	require.Contains(t, string(ascmhlOf(t, d1)), "Jane Doe")
}

// ascmhlOf is the first ASC MHL manifest under dir.
func ascmhlOf(t *testing.T, dir string) []byte {
	t.Helper()
	var found string
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && found == "" && !d.IsDir() && strings.HasSuffix(p, ".mhl") && filepath.Base(filepath.Dir(p)) == "ascmhl" {
			found = p
		}
		return err
	}))
	require.NotEmpty(t, found, "no ASC MHL manifest under %s", dir)
	b, err := os.ReadFile(found)
	require.NoError(t, err)
	return b
}

// A form the engine refuses is refused in the form's words: the field
// named by its label, not by a flag.
func TestFormRefusalNamesTheFormsField(t *testing.T) {
	viewLogicOnly(t)
	dir := t.TempDir()
	card := genCards(t, dir, 20_000)[0].Path
	d1, d2 := mkdir(t, filepath.Join(dir, "d1")), mkdir(t, filepath.Join(dir, "d2"))
	h := newHarness(t, nil)
	h.locked(func() { h.a.Prepare(Preparation{Cards: []string{card}, Dests: []string{d1}, Then: []string{d2}}) })
	h.eventually("the card scanned", func() bool { v := h.a.offload; return len(v.cards) == 1 && !v.cards[0].Scanning })
	h.locked(func() {
		v := h.a.offload
		v.verify.SetSelected(verifyNoneText)
		_, msg := v.jobSettings()
		require.Equal(t, "Cannot start: Verify: a cascade (then) needs read-back (dest): a card is free only once its first copy is verified", msg)

		v.verify.SetSelected(verifyDestText)
		for _, c := range v.hashes {
			c.SetChecked(c.Text == "xxh3")
		}
		v.mhl.SetSelected("MHL v1.1")
		_, msg = v.jobSettings()
		require.Equal(t, "Cannot start: Hash lists: MHL v1.1 needs md5, sha1 or xxh64 in Hashes (or none)", msg)

		for _, c := range v.hashes {
			c.SetChecked(false)
		}
		_, msg = v.jobSettings()
		require.Equal(t, noHash, msg)
	})
}
