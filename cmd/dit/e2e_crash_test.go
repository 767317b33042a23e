package main

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// ditCrash runs dit with extra environment (DIT_CRASH_AT, DIT_CRASH_LIST)
// and returns its output and whether SIGKILL ended it.
func ditCrash(t *testing.T, db string, env []string, args ...string) (result, bool) {
	t.Helper()
	cmd := exec.Command(ditBin, args...)
	cmd.Env = append(append(os.Environ(), "DIT_DB="+db), env...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	r := result{stdout: o.String(), stderr: e.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
			return r, true
		}
	} else if err != nil {
		t.Fatal(err)
	}
	return r, false
}

type crashJobs []struct {
	JobID int64  `json:"job_id"`
	State string `json:"state"`
	Next  string `json:"next"`
	Cards []struct {
		Label string `json:"label"`
		State string `json:"state"`
		Safe  bool   `json:"safe_to_format"`
	} `json:"cards"`
}

func ditTemps(t *testing.T, root string) []string {
	var out []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(d.Name(), ".dit-tmp") {
			out = append(out, p)
		}
		return nil
	})
	return out
}

func manifests(t *testing.T, cardDir string) []string {
	m, err := filepath.Glob(filepath.Join(cardDir, "ascmhl", "*.mhl"))
	require.NoError(t, err)
	return m
}

// kill -9 at every step of sealing (hash lists) and reporting, on a plain
// folder and on a RAID 4 array, then resume: the card is never "safe to
// format" without a history that dit and the ASC reference tool accept,
// the resume finishes the job (one generation per card folder, no temps
// left, reports written), and a resume after that writes nothing.
func TestCrashAtEverySealAndReportStep(t *testing.T) {
	if testing.Short() {
		t.Skip("kills dit at every seal and report step")
	}
	tool := referenceTool(t)
	base := t.TempDir()
	cards := filepath.Join(base, "cards")
	r := dit(t, filepath.Join(base, "gen.db"), "testdata", "cards", "--out", cards, "--cards", "2", "--size", "3MB", "--seed", "5")
	require.Equal(t, 0, r.code, r.stderr)

	// Each run gets fresh destinations and catalog.
	setup := func(dir string) (db string, args []string, plain string, blades []string) {
		db = filepath.Join(dir, "catalog.db")
		for i := 1; i <= 3; i++ {
			b := filepath.Join(dir, "blade"+string(rune('0'+i)))
			require.NoError(t, os.Mkdir(b, 0o755))
			blades = append(blades, b)
		}
		r := dit(t, db, append([]string{"array", "create", "--level", "4", "--stripe-unit", "64KiB", "--label", "crash"}, blades...)...)
		require.Equal(t, 0, r.code, r.stderr)
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
	r, killed := ditCrash(t, db, []string{"DIT_CRASH_LIST=" + listFile}, args...)
	require.False(t, killed)
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
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
		_, killed := ditCrash(t, db, []string{"DIT_CRASH_AT=" + step}, args...)
		require.True(t, killed, "step %q: dit was not killed there", step)

		// Whatever dit says after the crash, a card it calls safe has a
		// history that verifies on the plain folder.
		r := dit(t, db, "jobs", "--json")
		require.Equal(t, 0, r.code, r.stderr)
		var jobs crashJobs
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &jobs), r.stdout)
		require.Len(t, jobs, 1)
		for _, c := range jobs[0].Cards {
			if c.Safe {
				r := dit(t, db, "mhl", "verify", filepath.Join(plain, "day01", c.Label))
				require.Equal(t, 0, r.code, "step %q: %s is called safe to format but its history does not verify:\n%s", step, c.Label, r.stdout+r.stderr)
			}
		}
		if jobs[0].State != "done" {
			require.Contains(t, jobs[0].Next, "dit offload --resume 1", "step %q: dit jobs says how to finish job in state %s", step, jobs[0].State)
		}

		r = dit(t, db, "offload", "--resume", "1")
		require.Equal(t, 0, r.code, "step %q: resume:\n%s", step, r.stdout+r.stderr)
		require.Equal(t, 2, strings.Count(r.stdout, "[SAFE]"), "step %q:\n%s", step, r.stdout)

		extract := filepath.Join(dir, "extract")
		r = dit(t, db, "array", "extract", blades[0], "--to", extract)
		require.Equal(t, 0, r.code, "step %q: %s", step, r.stdout+r.stderr)
		for _, card := range []string{"A001", "A002"} {
			for _, cardDir := range []string{filepath.Join(plain, "day01", card), filepath.Join(extract, "day01", card)} {
				require.Empty(t, ditTemps(t, cardDir), "step %q: temps left in %s", step, cardDir)
				require.Len(t, manifests(t, cardDir), 1, "step %q: one generation in %s", step, cardDir)
				r := dit(t, db, "mhl", "verify", cardDir)
				require.Equal(t, 0, r.code, "step %q: dit mhl verify %s:\n%s", step, cardDir, r.stdout+r.stderr)
				tr := runTool(t, filepath.Join(tool, "ascmhl-debug"), "verify", cardDir)
				require.Equal(t, 0, tr.code, "step %q: ascmhl-debug verify %s:\n%s", step, cardDir, tr.out)
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
		r = dit(t, db, "offload", "--resume", "1")
		require.Equal(t, 0, r.code, "step %q: second resume:\n%s", step, r.stdout+r.stderr)
		after, err := os.ReadFile(chain)
		require.NoError(t, err)
		require.Equal(t, before, after, "step %q: a resume with nothing to do leaves the chain as it was", step)
		require.Len(t, manifests(t, filepath.Join(plain, "day01", "A001")), 1)
		st2, err := os.Stat(reports[0])
		require.NoError(t, err)
		require.Equal(t, st.ModTime(), st2.ModTime(), "step %q: a resume with nothing to do writes no report", step)
	}
}
