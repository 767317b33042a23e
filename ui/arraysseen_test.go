package ui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/devices"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/raid"
)

// A shuttle array's blades went to the lab: the Arrays tab still lists
// the array two jobs of this app wrote to, by the catalog alone (its
// UUID's first digits, where its blade was seen, the jobs newest first),
// says no blade is connected, and its Open is disabled, with no error.
// Its blades back on a volume mounted now at another folder: one entry
// (the same UUID), its label, the jobs still its own, and it opens; one
// blade back at the folder the jobs wrote to: it opens from there.
func TestArraysTabListsAnArrayWithNoBladeHere(t *testing.T) {
	raceCoveredElsewhere(t)
	dir := t.TempDir()
	cards := genCards(t, dir, 1_500_000)
	shuttle := mkdir(t, filepath.Join(dir, "shuttle"))
	var blades []string
	for _, b := range []string{"b1", "b2", "b3"} {
		blades = append(blades, mkdir(t, filepath.Join(shuttle, b)))
	}
	a, err := raid.Create(blades, raid.CreateOptions{Level: raid.RAID4, Label: "shuttle-raid"})
	require.NoError(t, err)
	uuid := a.Superblock().ArrayUUID
	require.NoError(t, a.Close())
	var mu sync.Mutex
	var mounted []devices.Volume // the volumes mounted now
	h := newHarness(t, func(c *Config) {
		c.Discover = func(context.Context) ([]devices.Volume, error) {
			mu.Lock()
			defer mu.Unlock()
			return mounted, nil
		}
	})
	// Two jobs to the array's blade: one from the Offload tab (the app's
	// way: its costs are learned after it), one by the engine alone (the
	// catalog knows its array by its copies' identities only).
	h.locked(func() {
		h.a.Prepare(Preparation{Name: "day01", Cards: []string{cards[0].Path}, Dests: []string{blades[0]}, Start: true})
	})
	h.waitJob()
	require.Equal(t, []string{stateSafe}, h.panelStates())
	jobs := []int64{h.view().JobID}
	job, err := offload.New(context.Background(), offload.Options{
		JobSpec: offload.JobSpec{Name: "day02", Cards: []string{cards[1].Path}, Dests: []string{blades[0]}}, Env: offload.Env{Catalog: h.cat}})
	require.NoError(t, err)
	sum, err := job.Run(context.Background())
	require.NoError(t, err)
	require.True(t, sum.Cards[0].SafeToFormat)
	jobs = append(jobs, sum.JobID)

	// Every blade folder gone (to the lab).
	lab := filepath.Join(dir, "lab")
	require.NoError(t, os.Rename(shuttle, lab))
	v := h.a.arrays
	h.locked(func() { h.a.selectTab(v.content) })
	h.arrayOps("the arrays found")
	var head *widget.Label
	h.locked(func() {
		require.Len(t, v.list.items, 1, v.list.note.Text)
		require.Equal(t, "1 array seen by this catalog (its jobs, its speed tests) or on the volumes mounted now:", v.list.note.Text)
		require.Equal(t, widget.MediumImportance, v.list.note.Importance)
		k := v.list.items[0]
		require.Equal(t, uuid, k.UUID)
		require.Empty(t, k.Err)
		txt := texts(v.list.box)
		require.Contains(t, txt, "array "+uuid[:8]+", last seen at "+blades[0]+": no blade connected\n")
		require.Contains(t, txt, "connect a blade to open it; seen at "+blades[0]+" on ")
		require.Regexp(t, fmt.Sprintf(`; written by 2 jobs, newest first: job %d "day02" of [-0-9: ]+, job %d "day01" of [-0-9: ]+\n`, jobs[1], jobs[0]), txt)
		head = labelWith(v.list.box, "array "+uuid[:8])
		require.NotNil(t, head)
		require.Equal(t, widget.MediumImportance, head.Importance, "not an error")
		open := v.list.opens[uuid]
		require.True(t, open.Disabled(), "nothing to open it by")
		test.Tap(open)
	})
	h.arrayOps("nothing (a disabled Open)")
	h.locked(func() {
		require.Nil(t, v.st)
		require.Empty(t, v.dir)
	})

	// Back from the lab on a volume mounted now (another folder).
	mu.Lock()
	mounted = []devices.Volume{{Mount: lab, Device: "/dev/fake7"}}
	mu.Unlock()
	h.locked(func() { test.Tap(buttonIn(v.content, "Look again")) })
	h.arrayOps("the arrays found again")
	back := filepath.Join(lab, "b1")
	h.locked(func() {
		require.Len(t, v.list.items, 1, "one array: the catalog's and the one on the volume are the same")
		txt := texts(v.list.box)
		require.Contains(t, txt, `"shuttle-raid", RAID 4, 3 blades: healthy`)
		require.Regexp(t, fmt.Sprintf(`3 of 3 blades here \(%s, [^)]+\); written by 2 jobs, newest first: job %d "day02"`, back, jobs[1]), txt)
		require.NotContains(t, txt, "no blade connected")
		open := v.list.opens[uuid]
		require.False(t, open.Disabled())
		test.Tap(open)
	})
	h.arrayOps("the array read")
	h.locked(func() {
		require.NotNil(t, v.st, v.info.Text)
		require.Equal(t, back, v.dir)
		require.Contains(t, v.info.Text, `"shuttle-raid", RAID 4, 3 blades`)
		require.Contains(t, v.info.Text, "Health: healthy", "every blade found where it is now, not where its superblock saw it last")
		test.Tap(v.scrubBtn)
	})
	h.arrayOps("the scrub")
	h.locked(func() { require.Regexp(t, `^Scrub finished: clean\. `, v.result.Text) })

	// Unmounted again; the blades back at the folders the jobs wrote to.
	mu.Lock()
	mounted = nil
	mu.Unlock()
	require.NoError(t, os.Rename(lab, shuttle))
	h.locked(func() { test.Tap(buttonIn(v.content, "Look again")) })
	h.arrayOps("the arrays found at the jobs' folder")
	h.locked(func() {
		require.Len(t, v.list.items, 1)
		require.Equal(t, blades[0], v.list.items[0].Blades[0])
		require.Contains(t, texts(v.list.box), `"shuttle-raid", RAID 4, 3 blades: healthy`)
		test.Tap(v.list.opens[uuid])
	})
	h.arrayOps("the array read from the jobs' folder")
	h.locked(func() {
		require.Equal(t, blades[0], v.dir)
		require.Contains(t, v.info.Text, "Health: healthy")
	})
}

// labelWith is the first label in o whose text starts with prefix.
func labelWith(o fyne.CanvasObject, prefix string) *widget.Label {
	var found *widget.Label
	walk(o, func(x fyne.CanvasObject) {
		if l, ok := x.(*widget.Label); ok && found == nil && strings.HasPrefix(l.Text, prefix) {
			found = l
		}
	})
	return found
}
