package crash

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
)

// kill -9 at every step of sealing (hash lists) and reporting, on a plain
// folder and on a RAID 4 array, then resume: the card is never "safe to
// format" without a history that dit and the ASC reference tool accept,
// the resume finishes the job (one generation per card folder, no temps
// left, reports written), and a resume after that writes nothing.
func TestCrashAtEverySealAndReportStep(t *testing.T) {
	if testing.Short() {
		t.Skip("kills dit at every seal and report step")
	}
	tool := e2e.ReferenceTool(t)
	base := t.TempDir()
	cards := filepath.Join(base, "cards")
	r := e2e.Dit(t, filepath.Join(base, "gen.db"), "testdata", "cards", "--out", cards, "--cards", "2", "--size", "3MB", "--seed", "5")
	require.Equal(t, 0, r.Code, r.Stderr)

	// Each run gets fresh destinations and catalog.
	setup := func(dir string) (db string, args []string, plain string, blades []string) {
		db = filepath.Join(dir, "catalog.db")
		for i := 1; i <= 3; i++ {
			b := filepath.Join(dir, "blade"+string(rune('0'+i)))
			require.NoError(t, os.Mkdir(b, 0o755))
			blades = append(blades, b)
		}
		r := e2e.Dit(t, db, append([]string{"array", "create", "--level", "4", "--stripe-unit", "64KiB", "--label", "crash"}, blades...)...)
		require.Equal(t, 0, r.Code, r.Stderr)
		plain = filepath.Join(dir, "shuttle")
		require.NoError(t, os.Mkdir(plain, 0o755))
		args = []string{"offload", "--name", "day01", "--mhl", "both", "-d", blades[0], "-d", plain,
			filepath.Join(cards, "A001"), filepath.Join(cards, "A002")}
		return
	}

	// The steps, as a run without a crash reaches them.
	dir := filepath.Join(base, "list")
	require.NoError(t, os.Mkdir(dir, 0o755))
	db, args, _, _ := setup(dir)
	listFile := filepath.Join(dir, "steps")
	r, killed := e2e.DitCrash(t, db, []string{"DIT_CRASH_LIST=" + listFile}, args...)
	require.False(t, killed)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	b, err := os.ReadFile(listFile)
	require.NoError(t, err)
	var steps []string
	for _, s := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		// Kills while files are copied are other tests' (kill -9 mid-job,
		// mid-file, in a cascade): this one is about the seal and the
		// reports.
		if !strings.HasPrefix(s, "file: ") {
			steps = append(steps, s)
		}
	}
	for _, want := range []string{"ascmhl: manifest written#1", "store: temp written ascmhl_chain.xml#1", "store: temp written NNNN_ANNN_NNNN-NN-NN_NNNNNNZ.mhl#1",
		"seal: MHL v1.1 written#1", "card: sealing recorded#1", "card: sealed#2", "seal: destination sealed#4", "job: finishing recorded#1",
		"store: temp written dit-report_jobN_dayNN.pdf#2", "job: done recorded#1"} {
		require.Contains(t, steps, want, "crash steps reached: %v", steps)
	}
	t.Logf("%d crash steps: %v", len(steps), steps)

	for i, step := range steps {
		dir := filepath.Join(base, "run"+string(rune('a'+i)))
		require.NoError(t, os.Mkdir(dir, 0o755))
		db, args, plain, blades := setup(dir)
		_, killed := e2e.DitCrash(t, db, []string{"DIT_CRASH_AT=" + step}, args...)
		require.True(t, killed, "step %q: dit was not killed there", step)

		// Whatever dit says after the crash, a card it calls safe has a
		// history that verifies on the plain folder.
		r := e2e.Dit(t, db, "jobs", "--json")
		require.Equal(t, 0, r.Code, r.Stderr)
		var jobs e2e.CrashJobs
		require.NoError(t, json.Unmarshal([]byte(r.Stdout), &jobs), r.Stdout)
		require.Len(t, jobs, 1)
		for _, c := range jobs[0].Cards {
			if c.Safe {
				r := e2e.Dit(t, db, "mhl", "verify", filepath.Join(plain, "day01", c.Label))
				require.Equal(t, 0, r.Code, "step %q: %s is called safe to format but its history does not verify:\n%s", step, c.Label, r.Stdout+r.Stderr)
			}
		}
		if jobs[0].State != "done" {
			require.Contains(t, jobs[0].Next, "dit offload --resume 1", "step %q: dit jobs says how to finish job in state %s", step, jobs[0].State)
		}

		r = e2e.Dit(t, db, "offload", "--resume", "1")
		require.Equal(t, 0, r.Code, "step %q: resume:\n%s", step, r.Stdout+r.Stderr)
		require.Equal(t, 2, strings.Count(r.Stdout, "[SAFE]"), "step %q:\n%s", step, r.Stdout)

		extract := filepath.Join(dir, "extract")
		r = e2e.Dit(t, db, "array", "extract", blades[0], "--to", extract)
		require.Equal(t, 0, r.Code, "step %q: %s", step, r.Stdout+r.Stderr)
		for _, card := range []string{"A001", "A002"} {
			for _, cardDir := range []string{filepath.Join(plain, "day01", card), filepath.Join(extract, "day01", card)} {
				require.Empty(t, e2e.DitTemps(t, cardDir), "step %q: temps left in %s", step, cardDir)
				require.Len(t, e2e.Manifests(t, cardDir), 1, "step %q: one generation in %s", step, cardDir)
				r := e2e.Dit(t, db, "mhl", "verify", cardDir)
				require.Equal(t, 0, r.Code, "step %q: dit mhl verify %s:\n%s", step, cardDir, r.Stdout+r.Stderr)
				tr := e2e.RunTool(t, filepath.Join(tool, "ascmhl-debug"), "verify", cardDir)
				require.Equal(t, 0, tr.Code, "step %q: ascmhl-debug verify %s:\n%s", step, cardDir, tr.Out)
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
		r = e2e.Dit(t, db, "offload", "--resume", "1")
		require.Equal(t, 0, r.Code, "step %q: second resume:\n%s", step, r.Stdout+r.Stderr)
		after, err := os.ReadFile(chain)
		require.NoError(t, err)
		require.Equal(t, before, after, "step %q: a resume with nothing to do leaves the chain as it was", step)
		require.Len(t, e2e.Manifests(t, filepath.Join(plain, "day01", "A001")), 1)
		st2, err := os.Stat(reports[0])
		require.NoError(t, err)
		require.Equal(t, st.ModTime(), st2.ModTime(), "step %q: a resume with nothing to do writes no report", step)
	}
}
