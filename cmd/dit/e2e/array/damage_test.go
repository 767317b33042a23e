package array

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
	"github.com/dit-org/dit/raid"
)

// statusJSON is what dit array status --json says about health.
type statusJSON struct {
	Health       string   `json:"health"`
	Unprotected  []string `json:"files_without_redundancy"`
	Unreadable   []string `json:"files_unreadable"`
	Lost         []string `json:"files_lost"`
	DamagedUnits int      `json:"damaged_units"`
	Damaged      []struct {
		Path  string `json:"path"`
		State string `json:"state"`
	} `json:"files_damaged"`
}

func arrayStatusJSON(t *testing.T, db, blade string) statusJSON {
	t.Helper()
	r := e2e.Dit(t, db, "array", "status", "--json", blade)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	var st statusJSON
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &st), r.Stdout)
	return st
}

// damageRig is a 4-blade RAID 4 array (64 KiB stripe unit) holding one
// offloaded card of many small and large clips.
func damageRig(t *testing.T) (dir, db string, blades []string) {
	t.Helper()
	dir = t.TempDir()
	db = filepath.Join(dir, "catalog.db")
	cards := filepath.Join(dir, "cards")
	r := e2e.Dit(t, db, "testdata", "cards", "--out", cards, "--cards", "1", "--size", "3MB", "--style", "mixed", "--seed", "25")
	require.Equal(t, 0, r.Code, r.Stderr)
	blades = e2e.NewBladeArray(t, db, dir, 4, "--level", "4", "--stripe-unit", "64KiB", "--label", "damage")
	r = e2e.Dit(t, db, "offload", "--name", "day01", "-d", blades[0], filepath.Join(cards, "A001"))
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	return dir, db, blades
}

// flipEveryChunk flips one byte in the middle of every chunk file of blade.
func flipEveryChunk(t *testing.T, blade string) {
	t.Helper()
	for _, f := range sortedFiles(t, filepath.Join(blade, raid.Dir, "chunks")) {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		if len(b) == 0 {
			continue
		}
		b[len(b)/2] ^= 0x20
		require.NoError(t, os.WriteFile(f, b, 0o644))
	}
}

func healthRecordExists(blades []string) bool {
	for _, b := range blades {
		if _, err := os.Stat(filepath.Join(b, raid.Dir, "HEALTH")); err == nil {
			return true
		}
	}
	return false
}

// Issue 25, item 1: two blades corrupted. Scrub finds unrecoverable
// stripes and extract fails files: status must say DAMAGED and name
// exactly the files extract cannot restore, in text and JSON, also after
// a scrub --repair that repaired what it could; status exits 0 (it
// reports; scrub's exit says clean or not).
func TestArrayStatusDamagedAfterTwoBladesCorrupted(t *testing.T) {
	dir, db, blades := damageRig(t)
	flipEveryChunk(t, blades[1])
	flipEveryChunk(t, blades[2])

	r := e2e.Dit(t, db, "array", "scrub", blades[0])
	require.Equal(t, raidExitNotClean, r.Code, r.Stdout+r.Stderr)
	require.Contains(t, r.Stdout, "unrecoverable stripe")

	st := arrayStatusJSON(t, db, blades[0])
	require.Equal(t, "damaged", st.Health)
	require.NotEmpty(t, st.Unreadable)
	require.Greater(t, st.DamagedUnits, 0)
	require.NotEmpty(t, st.Damaged)

	r = e2e.Dit(t, db, "array", "scrub", "--repair", blades[0])
	require.Equal(t, raidExitNotClean, r.Code, r.Stdout+r.Stderr)
	require.Contains(t, r.Stdout, "REPAIRED")

	r = e2e.Dit(t, db, "array", "status", blades[3])
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	require.Contains(t, r.Stdout, ": DAMAGED\n")
	require.NotContains(t, r.Stdout, "HEALTHY")
	require.Contains(t, r.Stdout, "cannot be read")
	st = arrayStatusJSON(t, db, blades[3])
	require.Equal(t, "damaged", st.Health)
	require.Greater(t, st.DamagedUnits, 0)

	out := filepath.Join(dir, "restore")
	r = e2e.Dit(t, db, "array", "extract", blades[0], "--to", out)
	require.Equal(t, 3, r.Code, r.Stdout+r.Stderr)
	var failed []string
	for _, m := range regexp.MustCompile(`(?m)^FAILED (\S+): `).FindAllStringSubmatch(r.Stdout, -1) {
		failed = append(failed, m[1])
	}
	require.NotEmpty(t, failed)
	sort.Strings(failed)
	unreadable := append([]string(nil), st.Unreadable...)
	sort.Strings(unreadable)
	require.Equal(t, failed, unreadable, "status names exactly the files extract cannot restore")
	for _, f := range failed[:min(len(failed), 10)] {
		require.Contains(t, e2e.Dit(t, db, "array", "status", blades[0]).Stdout, "  "+f+"\n")
	}
	// Status says it in its help: it reports, scrub's exit code judges.
	r = e2e.Dit(t, db, "array", "status", "--help")
	require.Contains(t, r.Stdout, "DAMAGED")
	require.Contains(t, r.Stdout, "exit")
	// GUI-free consumers read the same: dit serve's array health.
	require.Equal(t, "damaged", arrayStatusJSON(t, db, blades[1]).Health)
}

// Issue 25, item 1: one blade corrupted. A read through the array (an
// extract) that rebuilt units from parity, then a scrub, leave status
// DEGRADED with the damaged units counted and the files named; scrub
// --repair makes it HEALTHY again and clears the record.
func TestArrayStatusDegradedAfterOneBladeCorruptedThenRepaired(t *testing.T) {
	dir, db, blades := damageRig(t)
	flipEveryChunk(t, blades[1])

	// Nothing read yet: nothing known.
	require.Equal(t, "healthy", arrayStatusJSON(t, db, blades[0]).Health)
	// An extract reads every file, rebuilds the bad units and records them.
	r := e2e.Dit(t, db, "array", "extract", blades[0], "--to", filepath.Join(dir, "restore"))
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	require.Contains(t, r.Stdout, "repaired-on-read")
	st := arrayStatusJSON(t, db, blades[0])
	require.Equal(t, "degraded", st.Health, "a read that rebuilt units from parity is recorded")
	require.Greater(t, st.DamagedUnits, 0)
	require.Empty(t, st.Unreadable)

	r = e2e.Dit(t, db, "array", "scrub", blades[0])
	require.Equal(t, raidExitNotClean, r.Code, r.Stdout+r.Stderr)
	units := strings.Count(r.Stdout, "data unit corrupt") + strings.Count(r.Stdout, "parity unit corrupt")
	require.Greater(t, units, 0)
	st = arrayStatusJSON(t, db, blades[2])
	require.Equal(t, "degraded", st.Health)
	require.Equal(t, units, st.DamagedUnits, "status counts the units the scrub found")
	require.NotEmpty(t, st.Unprotected)
	require.Empty(t, st.Unreadable)
	r = e2e.Dit(t, db, "array", "status", blades[2])
	require.Contains(t, r.Stdout, ": DEGRADED\n")
	require.Contains(t, r.Stdout, "without redundancy")
	require.Contains(t, r.Stdout, "damaged unit")
	require.Contains(t, r.Stdout, "  "+st.Unprotected[0]+"\n")
	require.True(t, healthRecordExists(blades))
	require.False(t, arrayHealth(t, db, blades[0], "one blade corrupted"))

	// Everything repaired, the array healthy: scrub --repair exits 0.
	r = e2e.Dit(t, db, "array", "scrub", "--repair", blades[0])
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	require.NotContains(t, r.Stdout, "not repaired")
	require.Contains(t, r.Stdout, "all repaired: the array is healthy\n")
	st = arrayStatusJSON(t, db, blades[0])
	require.Equal(t, "healthy", st.Health)
	require.Zero(t, st.DamagedUnits)
	require.Empty(t, st.Damaged)
	require.True(t, arrayHealth(t, db, blades[0], "repaired"))
	// The repaired units are the card's bytes: with the blade that held
	// them the only copy of its units (parity blade gone), every file
	// extracts byte-identical to the card.
	require.NoError(t, os.Rename(blades[3], blades[3]+"-away"))
	out := filepath.Join(dir, "after-repair")
	r = e2e.Dit(t, db, "array", "extract", blades[0], "--to", out)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	require.NotContains(t, r.Stdout, "repaired-on-read")
	require.Equal(t, e2e.Footage(e2e.Tree(t, filepath.Join(dir, "cards", "A001"))), e2e.WithoutHistory(e2e.Tree(t, filepath.Join(out, "day01", "A001"))))
}

// A kill -9 at each step of writing the health record (staged on a blade,
// published on a blade) leaves an array that opens, whose status reads
// the old or the new record, and that a scrub brings to the truth.
func TestArrayHealthRecordSurvivesKill9(t *testing.T) {
	dir, db, blades := damageRig(t)
	snap := snapshot(t, dir)
	steps := []string{raid.StepHealthStaged + "#1", raid.StepHealthStaged + "#4", raid.StepHealthPublished + "#1", raid.StepHealthPublished + "#3"}
	for _, step := range steps {
		restore(t, snap, dir)
		flipEveryChunk(t, blades[1])
		// First record: a scrub finding damage, killed while recording.
		r := e2e.RunDit(t, append(os.Environ(), "DIT_DB="+db, "DIT_CRASH_AT="+step), "array", "scrub", blades[0])
		require.Equal(t, -1, r.Code, "%s: killed: %s", step, r.Stdout+r.Stderr)
		st := arrayStatusJSON(t, db, blades[0])
		require.Contains(t, []string{"healthy", "degraded"}, st.Health, step)
		r = e2e.Dit(t, db, "array", "scrub", blades[0])
		require.Equal(t, raidExitNotClean, r.Code, step)
		require.Equal(t, "degraded", arrayStatusJSON(t, db, blades[0]).Health, step)
		// Clearing it: scrub --repair killed while recording.
		r = e2e.RunDit(t, append(os.Environ(), "DIT_DB="+db, "DIT_CRASH_AT="+step), "array", "scrub", "--repair", blades[0])
		require.Equal(t, -1, r.Code, "%s: killed: %s", step, r.Stdout+r.Stderr)
		st = arrayStatusJSON(t, db, blades[0])
		require.Contains(t, []string{"healthy", "degraded"}, st.Health, step)
		r = e2e.Dit(t, db, "array", "scrub", "--repair", blades[0])
		require.Contains(t, []int{0, raidExitNotClean}, r.Code, step)
		require.Equal(t, "healthy", arrayStatusJSON(t, db, blades[0]).Health, step)
		require.True(t, arrayHealth(t, db, blades[0], step))
	}
}
