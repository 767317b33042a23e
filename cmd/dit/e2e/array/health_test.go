package array

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
	"github.com/dit-org/dit/raid"
)

// degradedRig is a 4-blade RAID 4 array (64 KiB stripe unit) with card
// A001 offloaded while healthy and card A002 offloaded while role 1
// (blades[1]) was away (--allow-degraded); blades[1] is still away, at
// away. Everything lives below dir, so a copy of dir restored at the same
// path is the same array (path hints are absolute).
type degradedRig struct {
	dir, db, cards, away string
	blades               []string
}

func newDegradedRig(t *testing.T, dir, cards string) *degradedRig {
	t.Helper()
	g := &degradedRig{dir: dir, db: filepath.Join(dir, "catalog.db"), cards: cards}
	g.blades = e2e.NewBladeArray(t, g.db, dir, 4, "--level", "4", "--stripe-unit", "64KiB", "--label", "health")
	g.away = g.blades[1] + "-away"
	r := e2e.Dit(t, g.db, "offload", "--name", "day01", "-d", g.blades[0], filepath.Join(cards, "A001"))
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	require.NoError(t, os.Rename(g.blades[1], g.away))
	r = e2e.Dit(t, g.db, "offload", "--name", "day02", "-d", g.blades[0], filepath.Join(cards, "A002"))
	require.NotEqual(t, 0, r.Code, "a degraded array is not written without --allow-degraded")
	require.Contains(t, r.Stderr, "--allow-degraded")
	r = e2e.Dit(t, g.db, "offload", "--allow-degraded", "--name", "day02", "-d", g.blades[0], filepath.Join(cards, "A002"))
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	return g
}

// snapshot copies the rig's folder aside; restore puts that copy back at
// the same path.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	to := dir + ".snapshot"
	out, err := exec.Command("cp", "-a", dir, to).CombinedOutput()
	require.NoError(t, err, string(out))
	return to
}

func restore(t *testing.T, snap, dir string) {
	t.Helper()
	require.NoError(t, os.RemoveAll(dir))
	out, err := exec.Command("cp", "-a", snap, dir).CombinedOutput()
	require.NoError(t, err, string(out))
}

// arrayHealth runs dit array status and scrub (read-only) and checks that
// they agree: HEALTHY with a clean scrub (exit 0), or not HEALTHY with a
// scrub that is not clean (exit 4). It returns whether the array is healthy.
func arrayHealth(t *testing.T, db, blade, label string) bool {
	t.Helper()
	st := e2e.Dit(t, db, "array", "status", blade)
	require.Equal(t, 0, st.Code, "%s: %s", label, st.Stdout+st.Stderr)
	healthy := strings.Contains(st.Stdout, ": HEALTHY\n")
	sc := e2e.Dit(t, db, "array", "scrub", blade)
	if healthy {
		require.NotContains(t, st.Stdout, "without redundancy", label)
		require.Equal(t, 0, sc.Code, "%s: status says HEALTHY, scrub must be clean:\n%s", label, sc.Stdout+sc.Stderr)
		require.Contains(t, sc.Stdout, "\nclean\n", label)
	} else {
		require.Regexp(t, `: (DEGRADED|DAMAGED|FAILED)\n`, st.Stdout, label)
		require.Equal(t, raidExitNotClean, sc.Code, "%s: status says %q, scrub must not be clean:\n%s", label, firstLine(st.Stdout), sc.Stdout+sc.Stderr)
		require.NotContains(t, sc.Stdout, "\nclean\n", label)
		require.Contains(t, sc.Stdout, "not clean:", label)
	}
	return healthy
}

// raidExitNotClean is dit array scrub's exit code when it is not clean
// (ExitDamage in cmd/dit; docs/exit-codes.md).
const raidExitNotClean = 4

func firstLine(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }

// loseOneMoreAndExtract takes blade gone away too and checks that every
// card offloaded so far still extracts byte-identical, then puts it back.
func loseOneMoreAndExtract(t *testing.T, g *degradedRig, gone, from string, cards map[string]string, label string) {
	t.Helper()
	require.NoError(t, os.Rename(gone, gone+"-lost"))
	defer func() { require.NoError(t, os.Rename(gone+"-lost", gone)) }()
	out := filepath.Join(g.dir, "restore-"+filepath.Base(gone))
	r := e2e.Dit(t, g.db, "array", "extract", from, "--to", out)
	require.Equal(t, 0, r.Code, "%s: with one more blade gone every file must read:\n%s", label, r.Stdout+r.Stderr)
	for day, card := range cards {
		require.Equal(t, e2e.Footage(e2e.Tree(t, filepath.Join(g.cards, card))), e2e.WithoutHistory(e2e.Tree(t, filepath.Join(out, day, card))), "%s: %s", label, card)
	}
	require.NoError(t, os.RemoveAll(out))
}

// crashSteps reads a DIT_CRASH_LIST file: the rebuild steps reached, in
// order. To keep the run short, a step reached many times (once per file)
// is crashed at its first and last time.
func crashSteps(t *testing.T, list string) []string {
	t.Helper()
	b, err := os.ReadFile(list)
	require.NoError(t, err)
	count := map[string]int{}
	var names []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		name, _, _ := strings.Cut(l, "#")
		if !strings.HasPrefix(name, "raid: ") {
			continue
		}
		if count[name] == 0 {
			names = append(names, name)
		}
		count[name]++
	}
	var out []string
	for _, name := range names {
		seen := map[int]bool{}
		for _, n := range []int{1, count[name]} {
			if !seen[n] {
				seen[n] = true
				out = append(out, fmt.Sprintf("%s#%d", name, n))
			}
		}
	}
	return out
}

// Item 1 of issue 18: files written while role 1 was away are rebuilt
// onto the new blade and their manifests list role 1, so after replace
// the array is healthy for real: scrub --repair has nothing to do and one
// more lost blade loses nothing. kill -9 at every step of the replace: in
// between, status and scrub never say healthy/clean while a file lacks
// redundancy, an offload needs --allow-degraded, and running replace again
// finishes the job.
func TestArrayReplaceProtectsDegradedWritesAndSurvivesKill9(t *testing.T) {
	base := t.TempDir()
	cards := filepath.Join(base, "cards")
	r := e2e.Dit(t, filepath.Join(base, "gen.db"), "testdata", "cards", "--out", cards, "--cards", "3", "--size", "1MB", "--style", "clips", "--seed", "18")
	require.Equal(t, 0, r.Code, r.Stderr)
	dir := filepath.Join(base, "rig")
	require.NoError(t, os.Mkdir(dir, 0o755))
	g := newDegradedRig(t, dir, cards)
	require.False(t, arrayHealth(t, g.db, g.blades[0], "degraded"))
	snap := snapshot(t, dir)
	newBlade := filepath.Join(dir, "New")
	replace := []string{"array", "replace", g.blades[0], "--role", "1", "--blade", newBlade}

	// A replace that is not cut short, listing the steps it goes through.
	require.NoError(t, os.Mkdir(newBlade, 0o755))
	list := filepath.Join(base, "steps")
	r, killed := e2e.DitCrash(t, g.db, []string{"DIT_CRASH_LIST=" + list}, replace...)
	require.False(t, killed)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	require.True(t, arrayHealth(t, g.db, g.blades[0], "after replace"))
	r = e2e.Dit(t, g.db, "array", "scrub", "--repair", g.blades[0])
	require.Equal(t, 0, r.Code, "nothing left to repair after a replace:\n%s", r.Stdout)
	loseOneMoreAndExtract(t, g, g.blades[0], g.blades[2], map[string]string{"day01": "A001", "day02": "A002"}, "after replace")
	steps := crashSteps(t, list)
	for _, want := range []string{raid.StepRebuildStarted + "#1", raid.StepChunkRebuilt + "#1", raid.StepManifestWidened + "#1",
		raid.StepFileRebuilt + "#1", raid.StepMemberActive + "#1"} {
		require.Contains(t, steps, want)
	}
	t.Logf("%d crash steps: %v", len(steps), steps)

	for _, step := range steps {
		restore(t, snap, dir)
		require.NoError(t, os.Mkdir(newBlade, 0o755))
		_, killed := e2e.DitCrash(t, g.db, []string{"DIT_CRASH_AT=" + step}, replace...)
		require.True(t, killed, "step %q: dit was not killed there", step)
		healthy := arrayHealth(t, g.db, g.blades[0], step)
		require.Equal(t, strings.HasPrefix(step, raid.StepMemberActive), healthy, "step %q: healthy only once the member is active", step)
		if !healthy {
			r := e2e.Dit(t, g.db, "offload", "--name", "day03", "-d", g.blades[0], filepath.Join(cards, "A003"))
			require.NotEqual(t, 0, r.Code, "step %q: an offload during a replace cut short needs --allow-degraded", step)
			require.Contains(t, r.Stderr, "being rebuilt", step)
			require.Contains(t, r.Stderr, "--allow-degraded", step)
		}
		r := e2e.Dit(t, g.db, replace...)
		require.Equal(t, 0, r.Code, "step %q: replace run again: %s", step, r.Stdout+r.Stderr)
		r = e2e.Dit(t, g.db, "offload", "--name", "day03", "-d", g.blades[0], filepath.Join(cards, "A003"))
		require.Equal(t, 0, r.Code, "step %q: %s", step, r.Stdout+r.Stderr)
		require.True(t, arrayHealth(t, g.db, g.blades[0], step+": resumed"))
		loseOneMoreAndExtract(t, g, g.blades[2], newBlade, map[string]string{"day01": "A001", "day02": "A002", "day03": "A003"}, step)
	}
}

// Item 2 of issue 18: kill -9 at every step of a stale blade's re-add (the
// read-write open after it returns): the blade stays stale (status not
// healthy, scrub not clean) until the next read-write open finishes the
// re-add; then one more lost blade loses nothing.
func TestArrayStaleReAddSurvivesKill9(t *testing.T) {
	base := t.TempDir()
	cards := filepath.Join(base, "cards")
	r := e2e.Dit(t, filepath.Join(base, "gen.db"), "testdata", "cards", "--out", cards, "--cards", "3", "--size", "1MB", "--style", "clips", "--seed", "19")
	require.Equal(t, 0, r.Code, r.Stderr)
	dir := filepath.Join(base, "rig")
	require.NoError(t, os.Mkdir(dir, 0o755))
	g := newDegradedRig(t, dir, cards)
	require.NoError(t, os.Rename(g.away, g.blades[1]))
	// Back, but stale: read-only commands say so.
	require.False(t, arrayHealth(t, g.db, g.blades[0], "stale blade back"))
	r = e2e.Dit(t, g.db, "array", "status", g.blades[0])
	require.Regexp(t, `1\s+data\s+stale`, r.Stdout)
	snap := snapshot(t, dir)
	readd := []string{"array", "scrub", "--repair", g.blades[0]} // a read-write open

	list := filepath.Join(base, "steps")
	r, killed := e2e.DitCrash(t, g.db, []string{"DIT_CRASH_LIST=" + list}, readd...)
	require.False(t, killed)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	require.True(t, arrayHealth(t, g.db, g.blades[0], "after re-add"))
	loseOneMoreAndExtract(t, g, g.blades[0], g.blades[2], map[string]string{"day01": "A001", "day02": "A002"}, "after re-add")
	steps := crashSteps(t, list)
	for _, want := range []string{raid.StepRebuildStarted + "#1", raid.StepChunkRebuilt + "#1", raid.StepManifestWidened + "#1",
		raid.StepFileRebuilt + "#1", raid.StepMemberActive + "#1"} {
		require.Contains(t, steps, want)
	}
	t.Logf("%d crash steps: %v", len(steps), steps)

	for _, step := range steps {
		restore(t, snap, dir)
		_, killed := e2e.DitCrash(t, g.db, []string{"DIT_CRASH_AT=" + step}, readd...)
		require.True(t, killed, "step %q: dit was not killed there", step)
		healthy := arrayHealth(t, g.db, g.blades[0], step)
		require.Equal(t, strings.HasPrefix(step, raid.StepMemberActive), healthy, "step %q", step)
		// The next read-write open (an offload, no --allow-degraded
		// needed: the blade is here) finishes the re-add first.
		r := e2e.Dit(t, g.db, "offload", "--name", "day03", "-d", g.blades[0], filepath.Join(cards, "A003"))
		require.Equal(t, 0, r.Code, "step %q: %s", step, r.Stdout+r.Stderr)
		require.True(t, arrayHealth(t, g.db, g.blades[0], step+": resumed"))
		for _, gone := range []string{g.blades[1], g.blades[3]} {
			loseOneMoreAndExtract(t, g, gone, g.blades[0], map[string]string{"day01": "A001", "day02": "A002", "day03": "A003"}, step)
		}
	}
}

// Item 3 of issue 18: a read-only scrub is not clean (exit 4) and status
// not healthy while a member is missing: RAID 0 names every unreadable
// file, RAID 4 every file without redundancy.
func TestArrayScrubAndStatusNeverCleanWithAMemberMissing(t *testing.T) {
	for _, level := range []string{"0", "4"} {
		t.Run("raid"+level, func(t *testing.T) {
			dir := t.TempDir()
			db := filepath.Join(dir, "catalog.db")
			cards := filepath.Join(dir, "cards")
			r := e2e.Dit(t, db, "testdata", "cards", "--out", cards, "--cards", "1", "--size", "1MB", "--style", "clips", "--seed", "7")
			require.Equal(t, 0, r.Code, r.Stderr)
			blades := e2e.NewBladeArray(t, db, dir, 3, "--level", level, "--stripe-unit", "64KiB")
			r = e2e.Dit(t, db, "offload", "--name", "day01", "-d", blades[0], filepath.Join(cards, "A001"))
			require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
			require.True(t, arrayHealth(t, db, blades[0], "healthy"))
			require.NoError(t, os.Rename(blades[2], blades[2]+"-away"))
			require.False(t, arrayHealth(t, db, blades[0], "blade away"))
			st := e2e.Dit(t, db, "array", "status", blades[0], "--json")
			sc := e2e.Dit(t, db, "array", "scrub", blades[0])
			require.Contains(t, sc.Stdout, "member not active on blade "+blades[2]+" (missing): not repaired (role 2 is missing: reconnect the blade")
			if level == "0" {
				require.Contains(t, st.Stdout, `"health": "failed"`)
				require.Contains(t, sc.Stdout, "file unreadable: day01/A001/")
				require.NotContains(t, sc.Stdout, "file without redundancy")
			} else {
				require.Contains(t, st.Stdout, `"health": "degraded"`)
				require.Contains(t, sc.Stdout, "file without redundancy: day01/A001/")
				require.NotContains(t, sc.Stdout, "file unreadable")
			}
			require.NoError(t, os.Rename(blades[2]+"-away", blades[2]))
			require.True(t, arrayHealth(t, db, blades[0], "blade back"))
		})
	}
}

// Item 4 of issue 18: a file whose every manifest replica is damaged is
// never silently absent: extract fails naming it, scrub is not clean,
// status says FAILED.
func TestArrayExtractFailsWhenEveryManifestReplicaIsDamaged(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	cards := filepath.Join(dir, "cards")
	r := e2e.Dit(t, db, "testdata", "cards", "--out", cards, "--cards", "1", "--size", "1MB", "--style", "clips", "--seed", "8")
	require.Equal(t, 0, r.Code, r.Stderr)
	blades := e2e.NewBladeArray(t, db, dir, 3, "--level", "4", "--stripe-unit", "64KiB")
	r = e2e.Dit(t, db, "offload", "--name", "day01", "-d", blades[0], filepath.Join(cards, "A001"))
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	// The manifest of one clip: the .bam whose JSON names it.
	var victim, id string
	var clip string
	for _, f := range sortedFiles(t, filepath.Join(blades[0], raid.Dir, "manifests")) {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		if i := strings.Index(string(b), `"path":"day01/A001/`); i >= 0 && strings.Contains(string(b), `.mov"`) {
			victim, id = f, strings.TrimSuffix(filepath.Base(f), ".bam")
			clip = string(b[i+8:])
			clip = clip[:strings.IndexByte(clip, '"')]
			break
		}
	}
	require.NotEmpty(t, victim)
	rel, _ := filepath.Rel(blades[0], victim)
	for _, b := range blades {
		p := filepath.Join(b, rel)
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		data[len(data)-20] ^= 0x40 // in the hash table: the CRC fails, the JSON still names the path
		require.NoError(t, os.WriteFile(p, data, 0o644))
	}
	out := filepath.Join(dir, "restore")
	r = e2e.Dit(t, db, "array", "extract", blades[0], "--to", out)
	require.Equal(t, 3, r.Code, r.Stdout+r.Stderr)
	require.Contains(t, r.Stdout, "FAILED "+clip+": every replica of its manifest (file id "+id+") is damaged")
	require.Contains(t, r.Stdout, " restored to "+out+" and verified; 1 FAILED (not restored)\n")
	_, err := os.Stat(filepath.Join(out, filepath.FromSlash(clip)))
	require.ErrorIs(t, err, os.ErrNotExist)
	sc := e2e.Dit(t, db, "array", "scrub", blades[1])
	require.Equal(t, raidExitNotClean, sc.Code, sc.Stdout)
	require.Contains(t, sc.Stdout, "manifest replica damaged or missing: "+clip)
	st := e2e.Dit(t, db, "array", "status", blades[1])
	require.Contains(t, st.Stdout, ": FAILED\n")
	require.Contains(t, st.Stdout, "1 files lost")
}

func sortedFiles(t *testing.T, root string) []string {
	var out []string
	require.NoError(t, filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			out = append(out, p)
		}
		return err
	}))
	sort.Strings(out)
	return out
}

// Item 6 of issue 18: refusals say what is wrong. A blade folder that is
// there but holds another array is not "reconnect the blade"; replace
// refuses a folder that is not empty; RAID 0 scrub wording.
func TestArrayMessagesSayWhatIsWrong(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	cards := filepath.Join(dir, "cards")
	r := e2e.Dit(t, db, "testdata", "cards", "--out", cards, "--cards", "1", "--size", "1MB", "--style", "clips", "--seed", "9")
	require.Equal(t, 0, r.Code, r.Stderr)
	blades := e2e.NewBladeArray(t, db, dir, 3, "--level", "4", "--stripe-unit", "64KiB")
	r = e2e.Dit(t, db, "offload", "--name", "day01", "-d", blades[0], filepath.Join(cards, "A001"))
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)

	// Blade 3's folder now holds a blade of another array.
	require.NoError(t, os.Rename(blades[2], blades[2]+"-away"))
	other := []string{blades[2], filepath.Join(dir, "O2"), filepath.Join(dir, "O3")}
	for _, o := range other {
		require.NoError(t, os.MkdirAll(o, 0o755))
	}
	r = e2e.Dit(t, db, append([]string{"array", "create", "--level", "4"}, other...)...)
	require.Equal(t, 0, r.Code, r.Stderr)
	r = e2e.Dit(t, db, "offload", "--again", "--name", "day02", "-d", blades[0], filepath.Join(cards, "A001"))
	require.NotEqual(t, 0, r.Code)
	require.Contains(t, r.Stderr, blades[2]+" is there but it holds a blade of another array")
	require.NotContains(t, r.Stderr, "reconnect")
	require.Contains(t, r.Stderr, "dit array replace")

	// replace refuses a folder that is not empty, and one of another array.
	full := filepath.Join(dir, "Full")
	require.NoError(t, os.MkdirAll(filepath.Join(full, "Footage"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(full, "Footage", "clip.mov"), []byte("keep me"), 0o644))
	r = e2e.Dit(t, db, "array", "replace", blades[0], "--role", "2", "--blade", full)
	require.NotEqual(t, 0, r.Code)
	require.Contains(t, r.Stderr, "is not empty (Footage)")
	b, err := os.ReadFile(filepath.Join(full, "Footage", "clip.mov"))
	require.NoError(t, err)
	require.Equal(t, "keep me", string(b))
	_, err = os.Stat(filepath.Join(full, raid.Dir))
	require.ErrorIs(t, err, os.ErrNotExist, "nothing written into a refused folder")
	r = e2e.Dit(t, db, "array", "replace", blades[0], "--role", "2", "--blade", other[1])
	require.NotEqual(t, 0, r.Code)
	require.Contains(t, r.Stderr, "already holds a dit array member")
	// An empty folder is taken, and the array is whole again.
	fresh := filepath.Join(dir, "Fresh")
	require.NoError(t, os.Mkdir(fresh, 0o755))
	r = e2e.Dit(t, db, "array", "replace", blades[0], "--role", "2", "--blade", fresh)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	require.True(t, arrayHealth(t, db, blades[0], "replaced"))
}

// Item 6 of issue 18: RAID 0 scrub wording, byte ranges never empty.
func TestArrayScrubWordingRAID0(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	cards := filepath.Join(dir, "cards")
	r := e2e.Dit(t, db, "testdata", "cards", "--out", cards, "--cards", "1", "--size", "1MB", "--style", "clips", "--seed", "10")
	require.Equal(t, 0, r.Code, r.Stderr)
	blades := e2e.NewBladeArray(t, db, dir, 2, "--level", "0", "--stripe-unit", "64KiB")
	r = e2e.Dit(t, db, "offload", "--name", "day01", "-d", blades[0], filepath.Join(cards, "A001"))
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	var chunk string
	for _, f := range sortedFiles(t, filepath.Join(blades[1], raid.Dir, "chunks")) {
		if fi, _ := os.Stat(f); fi.Size() > 70_000 {
			chunk = f
			break
		}
	}
	require.NotEmpty(t, chunk)
	b, err := os.ReadFile(chunk)
	require.NoError(t, err)
	b[65_600] ^= 1
	require.NoError(t, os.WriteFile(chunk, b, 0o644))
	r = e2e.Dit(t, db, "array", "scrub", "--repair", blades[0])
	require.Equal(t, raidExitNotClean, r.Code, r.Stdout)
	require.Regexp(t, `data unit corrupt: day01/A001/\S+ stripe 1 position \d \(bytes \d+-\d+\) on blade `+blades[1]+
		`: not repaired \(RAID 0 has no parity to repair from: re-copy this file from the card or a backup\)`, r.Stdout)
	for _, m := range regexpAll(`bytes (\d+)-(\d+)`, r.Stdout) {
		require.LessOrEqual(t, atoi(t, m[1]), atoi(t, m[2]), "byte range %s-%s", m[1], m[2])
	}
}

func regexpAll(re, s string) [][]string { return regexp.MustCompile(re).FindAllStringSubmatch(s, -1) }

func atoi(t *testing.T, s string) int64 {
	n, err := strconv.ParseInt(s, 10, 64)
	require.NoError(t, err)
	return n
}

// Item 5 of issue 18: many files smaller than a stripe unit cost their
// whole size on the RAID 4 parity blade, not a k-th of it: the offload is
// refused before a byte is written, with figures that add up (blade
// need + margin = in all; in all - free = short); a card that fits on
// every blade is taken.
func TestArraySpaceCheckCountsParityOfSmallFiles(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount small tmpfs blades")
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	cards := filepath.Join(dir, "cards")
	r := e2e.Dit(t, db, "testdata", "cards", "--out", cards, "--cards", "2", "--size", "60MB", "--style", "dng", "--seed", "5")
	require.Equal(t, 0, r.Code, r.Stderr)
	var blades []string
	for i := 1; i <= 4; i++ {
		b := filepath.Join(dir, fmt.Sprintf("Blade%d", i))
		require.NoError(t, os.Mkdir(b, 0o755))
		if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=100m", "tmpfs", b).CombinedOutput(); err != nil {
			t.Skipf("cannot mount a tmpfs (%v: %s)", err, out)
		}
		t.Cleanup(func() { exec.Command("umount", b).Run() })
		blades = append(blades, b)
	}
	r = e2e.Dit(t, db, append([]string{"array", "create", "--level", "4", "--stripe-unit", "1MiB"}, blades...)...)
	require.Equal(t, 0, r.Code, r.Stderr)
	// 60 MB of 100-500 KB frames: 60 MB on the parity blade (and 64 MB of
	// margin) of 100 MB, although the array holds 300 MB of large files.
	r = e2e.Dit(t, db, "offload", "--name", "day01", "-d", blades[0], filepath.Join(cards, "A001"))
	require.Equal(t, 1, r.Code, r.Stdout+r.Stderr)
	m := regexp.MustCompile(`take ([0-9.]+ [kMG]B) on blade role 3 \(parity, ` + regexp.QuoteMeta(blades[3]) +
		`\): .*; dit keeps a margin of ([0-9.]+ [kMG]B) there: ([0-9.]+ [kMG]B) in all; ([0-9.]+ [kMG]B) is free on that blade, ([0-9.]+ [kMG]B) short`).FindStringSubmatch(r.Stderr)
	require.NotNil(t, m, r.Stderr)
	need, margin, all, free, short := mb(t, m[1]), mb(t, m[2]), mb(t, m[3]), mb(t, m[4]), mb(t, m[5])
	require.InDelta(t, 60, need, 4, "the parity blade takes about the card's size")
	require.InDelta(t, all, need+margin, 0.02*all, "need + margin = in all")
	require.InDelta(t, short, all-free, 0.02*all+0.01, "in all - free = short")
	require.Greater(t, short, 0.0)
	for _, b := range blades {
		require.Empty(t, sortedFiles(t, filepath.Join(b, raid.Dir, "chunks")), "nothing written to %s", b)
	}
	// A card that fits on every blade is taken and verified.
	small := filepath.Join(dir, "small")
	r = e2e.Dit(t, db, "testdata", "cards", "--out", small, "--cards", "1", "--size", "15MB", "--style", "dng", "--seed", "6")
	require.Equal(t, 0, r.Code, r.Stderr)
	r = e2e.Dit(t, db, "offload", "--name", "day01", "-d", blades[0], filepath.Join(small, "A001"))
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	require.Contains(t, r.Stdout, "Verified: safe to format")
}

// mb parses a figure dit prints ("1.23 MB") in MB.
func mb(t *testing.T, s string) float64 {
	v, unit, _ := strings.Cut(s, " ")
	f, err := strconv.ParseFloat(v, 64)
	require.NoError(t, err)
	return f * map[string]float64{"kB": 1e-3, "MB": 1, "GB": 1e3}[unit]
}
