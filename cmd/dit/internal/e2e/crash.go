package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
)

// crashRig is a fresh job of two 3 MB cards to a RAID 4 array of three
// blades and a plain folder, with its own catalog.
type crashRig struct {
	db     string
	args   []string
	plain  string
	blades []string
}

func newCrashRig(t *testing.T, dir, cards string) crashRig {
	t.Helper()
	g := crashRig{db: filepath.Join(dir, "catalog.db")}
	for i := 1; i <= 3; i++ {
		b := filepath.Join(dir, "blade"+string(rune('0'+i)))
		require.NoError(t, os.Mkdir(b, 0o755))
		g.blades = append(g.blades, b)
	}
	r := Dit(t, g.db, append([]string{"array", "create", "--level", "4", "--stripe-unit", "64KiB", "--label", "crash"}, g.blades...)...)
	require.Equal(t, 0, r.Code, r.Stderr)
	g.plain = filepath.Join(dir, "shuttle")
	require.NoError(t, os.Mkdir(g.plain, 0o755))
	g.args = []string{"offload", "--name", "day01", "--mhl", "both", "-d", g.blades[0], "-d", g.plain,
		filepath.Join(cards, "A001"), filepath.Join(cards, "A002")}
	return g
}

// CrashAtEveryStep kills dit offload (kill -9, DIT_CRASH_AT) at every
// step of sealing (hash lists) and reporting that keep selects, on a job
// to a plain folder and a RAID 4 array, then resumes: the card is never
// "safe to format" without a history that dit and the ASC reference tool
// accept, the resume finishes the job (one generation per card folder, no
// temps left, reports written), and a resume after that writes nothing.
// The steps are listed by a run without a crash (DIT_CRASH_LIST); want
// are steps that must be among those kept.
func CrashAtEveryStep(t *testing.T, keep func(step string) bool, want []string) {
	tool := ReferenceTool(t)
	base := TempDir(t)
	cards := filepath.Join(base, "cards")
	r := Dit(t, filepath.Join(base, "gen.db"), "testdata", "cards", "--out", cards, "--cards", "2", "--size", "3MB", "--seed", "5")
	require.Equal(t, 0, r.Code, r.Stderr)

	// The steps, as a run without a crash reaches them.
	dir := filepath.Join(base, "list")
	require.NoError(t, os.Mkdir(dir, 0o755))
	g := newCrashRig(t, dir, cards)
	listFile := filepath.Join(dir, "steps")
	r, killed := DitCrash(t, g.db, []string{"DIT_CRASH_LIST=" + listFile}, g.args...)
	require.False(t, killed)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	b, err := os.ReadFile(listFile)
	require.NoError(t, err)
	var steps []string
	for _, s := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		// Kills while files are copied are other tests' (kill -9 mid-job,
		// mid-file, in a cascade): these are about the seal and the
		// reports.
		if !strings.HasPrefix(s, "file: ") && keep(s) {
			steps = append(steps, s)
		}
	}
	for _, w := range want {
		require.Contains(t, steps, w, "crash steps reached: %v", steps)
	}
	t.Logf("%d crash steps: %v", len(steps), steps)

	// Each step's kill and resume in a folder of its own, several at a
	// time (go test -parallel; the packages' TestMain: 4): dit waits on
	// fsync much of the time. The reference tool verifies every card folder at the end, in
	// one Python process (they are not written after that: the second
	// resume writes nothing, checked).
	var mu sync.Mutex
	var verify []refCheck
	t.Run("kill", func(t *testing.T) {
		for i, step := range steps {
			dir := filepath.Join(base, fmt.Sprintf("run%02d", i))
			require.NoError(t, os.Mkdir(dir, 0o755))
			t.Run(step, func(t *testing.T) {
				t.Parallel()
				dirs := crashAndResume(t, newCrashRig(t, dir, cards), dir, step)
				mu.Lock()
				defer mu.Unlock()
				for _, d := range dirs {
					verify = append(verify, refCheck{step, d})
				}
			})
		}
	})
	dirs := make([]string, len(verify))
	for i, c := range verify {
		dirs[i] = c.dir
	}
	for i, tr := range ReferenceVerify(t, tool, dirs) {
		assert.Equal(t, 0, tr.Code, "step %q: ascmhl-debug verify %s:\n%s", verify[i].step, dirs[i], tr.Out)
	}
	if !t.Failed() {
		require.Len(t, dirs, 4*len(steps), "every step's four card folders verified")
	}
}

// refCheck is a card folder the reference tool verifies, and the step
// whose kill and resume left it.
type refCheck struct{ step, dir string }

// crashAndResume kills the rig's job at step, checks what dit says of it,
// resumes it and checks the result, then resumes it again. It returns
// the card folders (on the plain folder and extracted from the array)
// the ASC reference tool is to verify.
func crashAndResume(t *testing.T, g crashRig, dir, step string) []string {
	t.Helper()
	db, plain := g.db, g.plain
	_, killed := DitCrash(t, db, []string{"DIT_CRASH_AT=" + step}, g.args...)
	require.True(t, killed, "step %q: dit was not killed there", step)

	// Whatever dit says after the crash, a card it calls safe has a
	// history that verifies on the plain folder.
	r := Dit(t, db, "jobs", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	var jobs CrashJobs
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &jobs), r.Stdout)
	require.Len(t, jobs, 1)
	for _, c := range jobs[0].Cards {
		if c.Safe {
			r := Dit(t, db, "mhl", "verify", filepath.Join(plain, "day01", c.Label))
			require.Equal(t, 0, r.Code, "step %q: %s is called safe to format but its history does not verify:\n%s", step, c.Label, r.Stdout+r.Stderr)
		}
	}
	if jobs[0].State != catalog.JobDone {
		require.Contains(t, jobs[0].Next, "dit offload --resume 1", "step %q: dit jobs says how to finish job in state %s", step, jobs[0].State)
	}

	r = Dit(t, db, "offload", "--resume", "1")
	require.Equal(t, 0, r.Code, "step %q: resume:\n%s", step, r.Stdout+r.Stderr)
	require.Equal(t, 2, strings.Count(r.Stdout, "[SAFE]"), "step %q:\n%s", step, r.Stdout)

	var cardDirs []string
	extract := filepath.Join(dir, "extract")
	r = Dit(t, db, "array", "extract", g.blades[0], "--to", extract)
	require.Equal(t, 0, r.Code, "step %q: %s", step, r.Stdout+r.Stderr)
	for _, card := range []string{"A001", "A002"} {
		for _, cardDir := range []string{filepath.Join(plain, "day01", card), filepath.Join(extract, "day01", card)} {
			require.Empty(t, DitTemps(t, cardDir), "step %q: temps left in %s", step, cardDir)
			require.Len(t, Manifests(t, cardDir), 1, "step %q: one generation in %s", step, cardDir)
			r := Dit(t, db, "mhl", "verify", cardDir)
			require.Equal(t, 0, r.Code, "step %q: dit mhl verify %s:\n%s", step, cardDir, r.Stdout+r.Stderr)
			cardDirs = append(cardDirs, cardDir)
			v1, _ := filepath.Glob(filepath.Join(cardDir, card+"_*.mhl"))
			require.Len(t, v1, 1, "step %q: one MHL v1.1 list in %s", step, cardDir)
		}
	}
	reports, _ := filepath.Glob(filepath.Join(plain, "day01", "reports", "dit-report_job1_*"))
	// CSV, JSON, HTML, PDF, and the clip sheet (the generated cards
	// hold clips).
	require.Len(t, reports, 5, "step %q: the reports are written: %v", step, reports)

	// Nothing left to do: a resume writes nothing.
	chain := filepath.Join(plain, "day01", "A001", "ascmhl", "ascmhl_chain.xml")
	before, err := os.ReadFile(chain)
	require.NoError(t, err)
	st, err := os.Stat(reports[0])
	require.NoError(t, err)
	r = Dit(t, db, "offload", "--resume", "1")
	require.Equal(t, 0, r.Code, "step %q: second resume:\n%s", step, r.Stdout+r.Stderr)
	after, err := os.ReadFile(chain)
	require.NoError(t, err)
	require.Equal(t, before, after, "step %q: a resume with nothing to do leaves the chain as it was", step)
	require.Len(t, Manifests(t, filepath.Join(plain, "day01", "A001")), 1)
	st2, err := os.Stat(reports[0])
	require.NoError(t, err)
	require.Equal(t, st.ModTime(), st2.ModTime(), "step %q: a resume with nothing to do writes no report", step)
	return cardDirs
}

// ReportStep tells a step of writing the job's reports and recording its
// end ("job: ...", a report's temp) from a step of sealing a card's hash
// lists.
func ReportStep(step string) bool {
	return strings.HasPrefix(step, "job: ") || strings.Contains(step, "dit-report_")
}
