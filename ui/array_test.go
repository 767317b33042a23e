package ui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/devices"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/raid"
	"github.com/dit-org/dit/raid/mountplace"
)

// The Arrays view: a RAID 4 array that holds a card, scrubbed clean; a
// blade goes missing (degraded); it is rebuilt onto a new folder with its
// progress, and the array is healthy and scrubs clean again.
func TestArrayViewScrubAndRebuild(t *testing.T) {
	raceCoveredElsewhere(t)
	dir := t.TempDir()
	cards := genCards(t, dir, 1_500_000)
	var blades []string
	for _, b := range []string{"b1", "b2", "b3"} {
		blades = append(blades, mkdir(t, filepath.Join(dir, b)))
	}
	a, err := raid.Create(blades, raid.CreateOptions{Level: raid.RAID4, Label: "test-raid"})
	require.NoError(t, err)
	require.NoError(t, a.Close())
	newBlade := mkdir(t, filepath.Join(dir, "b2-new"))
	var asked []string
	h := newHarness(t, func(c *Config) {
		c.ChooseFolder = func(title string, done func(string)) {
			asked = append(asked, title)
			done(newBlade)
		}
	})
	// A card on the array, through the engine.
	job, err := offload.New(context.Background(), offload.Options{
		JobSpec: offload.JobSpec{Name: "arr", Cards: []string{cards[0].Path}, Dests: []string{blades[0]}}, Env: offload.Env{Catalog: h.cat}})
	require.NoError(t, err)
	sum, err := job.Run(context.Background())
	require.NoError(t, err)
	require.True(t, sum.Cards[0].SafeToFormat)

	v := h.a.arrays
	h.locked(func() { v.openArray(blades[0]) })
	h.arrayOps("the array read")
	h.locked(func() {
		require.NotNil(t, v.st, v.info.Text)
		require.Contains(t, v.info.Text, `"test-raid", RAID 4, 3 blades`)
		require.Contains(t, v.info.Text, "Health: healthy")
		require.Equal(t, []string{"active", "active", "active"}, memberStates(v.st))
		require.Contains(t, texts(v.members), "Blade 2 (parity)")
		test.Tap(v.scrubBtn)
	})
	h.arrayOps("the scrub")
	h.locked(func() { require.Contains(t, v.result.Text, "Scrub finished: clean.") })

	require.NoError(t, os.Rename(blades[1], blades[1]+"-pulled"))
	h.locked(func() { v.openArray(blades[0]) })
	h.arrayOps("the degraded array read")
	h.locked(func() {
		require.NotNil(t, v.st, v.info.Text)
		require.Contains(t, v.info.Text, "Health: DEGRADED (blade 1 missing)")
		require.Equal(t, "blade 1", v.roleSel.Selected)
		test.Tap(v.rebuild)
	})
	require.Equal(t, []string{"An empty folder for blade 1"}, asked)
	h.arrayOps("the rebuild and the array read again")
	h.locked(func() {
		require.Equal(t, "Rebuild of blade 1 onto "+newBlade+" finished: the blade is active.", v.result.Text)
		require.NotNil(t, v.st, v.info.Text)
		require.Contains(t, v.info.Text, "Health: healthy")
		require.Equal(t, newBlade, v.st.Members[1].Dir)
		test.Tap(v.scrubBtn)
	})
	h.arrayOps("the second scrub")
	h.locked(func() { require.Contains(t, v.result.Text, "Scrub finished: clean.") })
}

func memberStates(s *arrayStatus) []string {
	var out []string
	for _, m := range s.Members {
		out = append(out, m.State)
	}
	return out
}

// The Arrays view says what dit array status says: a scrub (the view's
// button) that finds stripes it cannot read leaves the array DAMAGED with
// the file named, all blades present; after the bytes are good again and
// a scrub finds nothing, healthy.
func TestArrayViewShowsDamageAScrubFound(t *testing.T) {
	raceCoveredElsewhere(t)
	dir := t.TempDir()
	var blades []string
	for _, b := range []string{"b1", "b2", "b3"} {
		blades = append(blades, mkdir(t, filepath.Join(dir, b)))
	}
	a, err := raid.Create(blades, raid.CreateOptions{Level: raid.RAID4, StripeUnit: 64 << 10, Label: "test-raid"})
	require.NoError(t, err)
	w, err := a.Create(raid.FileSpec{Path: "A001/C001.mov"})
	require.NoError(t, err)
	_, err = w.Write(make([]byte, 300_000))
	require.NoError(t, err)
	_, err = w.Commit()
	require.NoError(t, err)
	require.NoError(t, a.Close())
	flip := func() { // stripe 0 of both data blades
		for _, b := range blades[:2] {
			require.NoError(t, filepath.Walk(filepath.Join(b, raid.Dir, "chunks"), func(p string, fi os.FileInfo, err error) error {
				if err == nil && fi.Mode().IsRegular() && fi.Size() > 10 {
					data, _ := os.ReadFile(p)
					data[10] ^= 1
					return os.WriteFile(p, data, 0o644)
				}
				return err
			}))
		}
	}
	flip()
	h := newHarness(t, nil)
	v := h.a.arrays
	h.locked(func() { v.openArray(blades[0]) })
	h.arrayOps("the array read")
	h.locked(func() {
		require.Contains(t, v.info.Text, "Health: healthy", "nothing read yet")
		test.Tap(v.scrubBtn)
	})
	h.arrayOps("the scrub and the array read again")
	h.locked(func() {
		require.Contains(t, v.info.Text, "Health: DAMAGED: 1 file cannot be read (A001/C001.mov)")
		require.Contains(t, v.info.Text, "damaged unit(s)")
		require.Equal(t, []string{"active", "active", "active"}, memberStates(v.st))
	})
	flip()
	h.locked(func() { test.Tap(v.scrubBtn) })
	h.arrayOps("the clean scrub")
	h.locked(func() {
		require.Contains(t, v.result.Text, "Scrub finished: clean.")
		require.Contains(t, v.info.Text, "Health: healthy")
	})
}

// smartFixture is a committed smartctl recording, parsed.
func smartFixture(name string) *devices.Health {
	b, err := os.ReadFile(smartDir + name)
	if err != nil {
		panic(err)
	}
	h, err := devices.ParseSmartctl(b)
	if err != nil {
		panic(err)
	}
	return h
}

const smartDir = "../internal/devices/testdata/smart/"

// fakeDrives puts each folder on its own drive (/dev/fake0 ...) and
// answers smartctl for drive i with fixtures[i].
func fakeDrives(c *Config, folders []string, fixtures []string) {
	c.Discover = func(context.Context) ([]devices.Volume, error) {
		var vols []devices.Volume
		for i, f := range folders {
			vols = append(vols, devices.Volume{Mount: f, Device: fmt.Sprintf("/dev/fake%d", i)})
		}
		return vols, nil
	}
	c.SMART = func(_ context.Context, _ string, args ...string) ([]byte, error) {
		var i int
		if _, err := fmt.Sscanf(args[len(args)-1], "/dev/fake%d", &i); err != nil || i >= len(fixtures) {
			return nil, fmt.Errorf("no such drive: %v", args)
		}
		return os.ReadFile(smartDir + fixtures[i])
	}
}

// The Arrays tab asks each blade's drive for its health (through the
// smartctl runner, here the committed fixtures): ok with its figures, a
// warning with the reason, unknown with why.
func TestArrayViewDriveHealth(t *testing.T) {
	raceCoveredElsewhere(t)
	dir := t.TempDir()
	var blades []string
	for _, b := range []string{"b1", "b2", "b3"} {
		blades = append(blades, mkdir(t, filepath.Join(dir, b)))
	}
	a, err := raid.Create(blades, raid.CreateOptions{Level: raid.RAID4, Label: "health-raid"})
	require.NoError(t, err)
	require.NoError(t, a.Close())
	h := newHarness(t, func(c *Config) {
		fakeDrives(c, blades, []string{"nvme-blade-healthy.json", "sata-ssd-reallocated.json", "usb-bridge-unknown.json"})
	})
	v := h.a.arrays
	h.locked(func() { v.openArray(blades[0]) })
	h.arrayOps("the array and its drives read")
	h.locked(func() {
		require.True(t, v.st.DrivesRead)
		txt := texts(v.drives)
		require.Contains(t, txt, "Blade 0 drive: ok: /dev/nvme0 (Samsung SSD 990 PRO 4TB S7DPNJ0W912345X): 0 media errors")
		require.Contains(t, txt, "Blade 1 drive: WARNING: 2 media error(s); 48 reallocated and 3 pending sector(s): copy what it holds elsewhere")
		require.Contains(t, txt, "Blade 2 drive: unknown: the device does not answer SMART queries")
		require.Contains(t, txt, "USB bridge")
	})
	// The Offload tab's destination: its blades with their drives.
	h.locked(func() { h.a.offload.addDest(blades[0]) })
	h.a.bg.Wait()
	h.locked(func() {
		txt := texts(h.a.offload.destBox)
		require.Contains(t, txt, "blade 0 (data): active, ")
		require.Contains(t, txt, blades[0]+"; drive ok")
		require.Contains(t, txt, blades[1]+"; drive WARNING: 2 media error(s); 48 reallocated")
		require.Contains(t, txt, blades[2]+"; drive health unknown")
	})
	// Without smartctl's answer (a runner that gives nothing), why.
	h2 := newHarness(t, func(c *Config) {
		fakeDrives(c, blades, nil)
	})
	h2.locked(func() { h2.a.arrays.openArray(blades[0]) })
	h2.arrayOps("the array read again")
	h2.locked(func() {
		require.Contains(t, texts(h2.a.arrays.drives), "Blade 0 drive: unknown: smartctl gave nothing: no such drive")
	})
}

// The Arrays tab lists the arrays the catalog's jobs wrote to and those
// on the volumes mounted now, each with its health, where its blades are
// and the jobs that wrote to it; one is opened by a typed blade path (no
// folder dialog), scrubbed from the tab, a blade replaced onto a typed
// folder; the other opened from the list.
func TestArraysTabListsArraysAndScrubsByTypedPath(t *testing.T) {
	dir := t.TempDir()
	cards := genCards(t, dir, 1_500_000)
	var blades []string
	for _, b := range []string{"b1", "b2", "b3"} {
		blades = append(blades, mkdir(t, filepath.Join(dir, b)))
	}
	a, err := raid.Create(blades, raid.CreateOptions{Level: raid.RAID4, Label: "test-raid"})
	require.NoError(t, err)
	require.NoError(t, a.Close())
	// A second array on a volume mounted now, which no job wrote to.
	vol := mkdir(t, filepath.Join(dir, "vol"))
	vb := []string{mkdir(t, filepath.Join(vol, "blade-a")), mkdir(t, filepath.Join(vol, "blade-b"))}
	a2, err := raid.Create(vb, raid.CreateOptions{Level: raid.RAID0, Label: "shuttle-raid"})
	require.NoError(t, err)
	uuid2 := a2.Superblock().ArrayUUID
	require.NoError(t, a2.Close())
	h := newHarness(t, func(c *Config) {
		c.Discover = func(context.Context) ([]devices.Volume, error) {
			return []devices.Volume{{Mount: vol, Device: "/dev/fake9"}, {Mount: filepath.Join(dir, "cards")}}, nil
		}
		c.SMART = func(context.Context, string, ...string) ([]byte, error) { return nil, errors.New("no such drive") }
	})
	job, err := offload.New(context.Background(), offload.Options{
		JobSpec: offload.JobSpec{Name: "arr", Cards: []string{cards[0].Path}, Dests: []string{blades[0]}}, Env: offload.Env{Catalog: h.cat}})
	require.NoError(t, err)
	sum, err := job.Run(context.Background())
	require.NoError(t, err)
	require.True(t, sum.Cards[0].SafeToFormat)

	v := h.a.arrays
	h.locked(func() { h.a.selectTab(v.content) })
	h.arrayOps("the arrays found")
	h.locked(func() {
		require.Len(t, v.list.items, 2, v.list.note.Text)
		require.Equal(t, "2 arrays seen by this catalog (its jobs, its speed tests) or on the volumes mounted now:", v.list.note.Text)
		txt := texts(v.list.box)
		require.Contains(t, txt, `"shuttle-raid", RAID 0, 2 blades: healthy`)
		require.Contains(t, txt, "2 of 2 blades here ("+vb[0]+", "+vb[1]+"); on a volume mounted now; no job of this catalog wrote to it")
		require.Contains(t, txt, `"test-raid", RAID 4, 3 blades: healthy`)
		require.Contains(t, txt, `3 of 3 blades here (`+strings.Join(blades, ", ")+`); written by job `+fmt.Sprint(sum.JobID)+` "arr" of `)
		require.Contains(t, txt, "not mounted (its files open in other programs once it is: dit array mount "+blades[0])
		require.Nil(t, v.st, "nothing opened yet")
		// A blade's path typed: no folder dialog (the harness fails on one).
		test.Type(v.list.open.entry, blades[1])
		test.Tap(v.list.open.use)
	})
	h.arrayOps("the array read")
	h.locked(func() {
		require.NotNil(t, v.st, v.info.Text)
		require.Equal(t, blades[1], v.dir)
		require.Contains(t, v.info.Text, `"test-raid", RAID 4, 3 blades`)
		require.Contains(t, v.info.Text, "Health: healthy")
		test.Tap(v.scrubBtn)
	})
	h.arrayOps("the scrub")
	h.locked(func() {
		require.Regexp(t, `^Scrub finished: clean\. \d+ files, .* read, every unit and parity checked\.$`, v.result.Text)
		require.Equal(t, widget.SuccessImportance, v.result.Importance)
	})
	// A blade gone: replaced onto an empty folder typed, Enter.
	require.NoError(t, os.Rename(blades[2], blades[2]+"-pulled"))
	newBlade := mkdir(t, filepath.Join(dir, "b3-new"))
	h.locked(func() { test.Tap(v.list.opens[v.list.items[1].UUID]) })
	h.arrayOps("the degraded array read")
	h.locked(func() {
		require.Equal(t, blades[0], v.dir, "opened from the list by its blade")
		require.Contains(t, v.info.Text, "Health: DEGRADED (blade 2 missing)")
		require.Equal(t, "blade 2", v.roleSel.Selected)
		test.Type(v.newBlade.entry, newBlade)
		v.newBlade.entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	})
	h.arrayOps("the rebuild")
	h.locked(func() {
		require.Equal(t, "Rebuild of blade 2 onto "+newBlade+" finished: the blade is active.", v.result.Text)
		require.Contains(t, v.info.Text, "Health: healthy")
		require.Contains(t, texts(v.list.box), `"test-raid", RAID 4, 3 blades: healthy`, "the list read again")
		// The other array, from the list.
		test.Tap(v.list.opens[uuid2])
	})
	h.arrayOps("the second array read")
	h.locked(func() {
		require.Equal(t, vb[0], v.dir)
		require.Contains(t, v.info.Text, `"shuttle-raid", RAID 0, 2 blades`)
	})
}

// A typed path: quotes and spaces around it off, ~ the home folder, a
// file:// URL its path, made absolute; nothing typed is said.
func TestTypedPath(t *testing.T) {
	home, err := os.UserHomeDir()
	require.NoError(t, err)
	wd, err := os.Getwd()
	require.NoError(t, err)
	for in, want := range map[string]string{
		"  /Volumes/Blade 1/ ":           "/Volumes/Blade 1",
		"'/media/dit/A001'":              "/media/dit/A001",
		`"/media/dit/A001"`:              "/media/dit/A001",
		"~/dit-arrays/x":                 filepath.Join(home, "dit-arrays/x"),
		"file:///media/dit/Blade%201/b1": "/media/dit/Blade 1/b1",
		"rel/blade":                      filepath.Join(wd, "rel/blade"),
		"/a//b/../c":                     "/a/c",
	} {
		got, err := typedPath(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	_, err = typedPath("   ")
	require.EqualError(t, err, "type a folder's path first (or choose it in the folder dialog)")
}

// History names a card's folder in a dit array in words, never with the
// engine's "//" (array:BLADE//PATH): its path in the array and the
// array's name when it is not mounted (MHL folder says how to mount it),
// its path below the mount point when it is.
func TestHistoryArrayCopyHasNoDoubleSlash(t *testing.T) {
	raceCoveredElsewhere(t)
	dir := t.TempDir()
	t.Setenv(mountplace.Env, filepath.Join(dir, "mounts"))
	cards := genCards(t, dir, 1_000_000)
	var blades []string
	for _, b := range []string{"blade1", "blade2", "blade3"} {
		blades = append(blades, mkdir(t, filepath.Join(dir, b)))
	}
	a, err := raid.Create(blades, raid.CreateOptions{Level: raid.RAID4, Label: "test-raid"})
	require.NoError(t, err)
	uuid := a.Superblock().ArrayUUID
	require.NoError(t, a.Close())
	h := newHarness(t, nil)
	job, err := offload.New(context.Background(), offload.Options{
		JobSpec: offload.JobSpec{Name: "demo", Cards: []string{cards[0].Path}, Dests: []string{blades[0]}}, Env: offload.Env{Catalog: h.cat}})
	require.NoError(t, err)
	sum, err := job.Run(context.Background())
	require.NoError(t, err)
	// The engine's names of it: where it opens once mounted (its mount
	// place), and its location as dit's commands take it.
	place := filepath.Join(dir, "mounts", mountplace.Name(uuid, "test-raid"))
	require.Equal(t, filepath.Join(place, "demo", "A001"), sum.Cards[0].Destinations[0].Path)
	require.Equal(t, offload.ArrayPathPrefix+blades[0]+"//demo/A001", sum.Cards[0].Destinations[0].ArrayPath, "the engine's name of it")

	h.locked(func() { h.a.selectTab(h.a.history.content) })
	h.eventually("the job in History", func() bool { return len(h.a.history.rows) == 1 })
	h.locked(func() { h.a.history.list.Select(0) })
	h.eventually("the job's detail", func() bool { return h.a.history.open != nil })
	h.locked(func() {
		txt := texts(h.a.history.detail)
		require.NotContains(t, txt, "//")
		require.Contains(t, txt, `demo/A001 on array "test-raid" (not mounted): 13 verified, 0 copied, 0 failed, 0 skipped`)
		test.Tap(buttonIn(h.a.history.detail, "MHL folder"))
		require.Equal(t, `Array "test-raid" is not mounted: dit array mount `+blades[0]+` mounts it at `+place+`; then its folders open from here.`, h.a.history.status.Text)
	})
	require.Empty(t, h.urls, "nothing opened")

	// Mounted: the folder below its mount point, opened there.
	mounted := arrayCopyOf(&mountplace.Place{UUID: uuid, Label: "test-raid", Blade: blades[0], Dir: "/mnt/test-raid", Mounted: true}, blades[0], "demo/A001/")
	require.Equal(t, arrayCopy{Text: `/mnt/test-raid/demo/A001 (array "test-raid")`, Open: "/mnt/test-raid/demo/A001"}, mounted)
	gone := arrayCopyOf(nil, "/Volumes/Blade1", "demo/A001")
	require.Equal(t, "demo/A001 on the array of blade /Volumes/Blade1 (not here)", gone.Text)
	require.Empty(t, gone.Open)
}
