//go:build linux

package faults

// More end-to-end fault tests through internal/faultfuse and the real dit
// binary: a card pulled in the middle of a copy and put back, Ctrl-C while
// the job's reports are written, the job number on stderr with --json, and
// a bad spot on one file of a card that otherwise answers.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
	"github.com/dit-org/dit/internal/faultfuse"
)

// f2Within bounds each wait for an event: a safety net far above the
// seconds these waits take, even on a busy machine, that only turns a hang
// (a stalled FUSE call) into a failure; no test sleeps for correctness.
const f2Within = 3 * time.Minute

// f2MakeCard writes n clips of 50 to 150 kB (random bytes, a fixed seed and
// time) into dir/CLIPS and returns their paths relative to dir.
func f2MakeCard(t *testing.T, dir, label string, n int, seed int64) []string {
	t.Helper()
	rng := rand.New(rand.NewSource(seed))
	mt := time.Date(2026, 11, 20, 8, 30, 0, 0, time.UTC)
	var rels []string
	for i := range n {
		rel := fmt.Sprintf("CLIPS/%sC%03d.MOV", label, i+1)
		p := filepath.Join(dir, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		b := make([]byte, 50_000+rng.Intn(100_000))
		rng.Read(b)
		require.NoError(t, os.WriteFile(p, b, 0o644))
		require.NoError(t, os.Chtimes(p, mt, mt))
		rels = append(rels, rel)
	}
	return rels
}

// f2Buffer is an output buffer safe for concurrent use that tells waiters
// when it grows.
type f2Buffer struct {
	mu      sync.Mutex
	b       bytes.Buffer
	changed chan struct{}
}

func newF2Buffer() *f2Buffer { return &f2Buffer{changed: make(chan struct{}, 1)} }

func (w *f2Buffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	n, err := w.b.Write(p)
	w.mu.Unlock()
	select {
	case w.changed <- struct{}{}:
	default:
	}
	return n, err
}

func (w *f2Buffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// waitFor waits until the buffer holds s; false if exited closes first
// (and s is still missing) or f2Within passes.
func (w *f2Buffer) waitFor(s string, exited <-chan struct{}) bool {
	deadline := time.After(f2Within)
	for {
		if strings.Contains(w.String(), s) {
			return true
		}
		select {
		case <-w.changed:
		case <-exited:
			return strings.Contains(w.String(), s)
		case <-deadline:
			return false
		}
	}
}

// f2Run is a dit started in the background.
type f2Run struct {
	cmd            *exec.Cmd
	stdout, stderr *f2Buffer
	exited         chan struct{} // closed when dit has exited
	code           int
}

// f2Start starts dit without DIT_DB in its environment (the catalog only
// from --db), its stdout and stderr captured.
func f2Start(t *testing.T, args ...string) *f2Run {
	t.Helper()
	r := &f2Run{cmd: exec.Command(e2e.Bin, args...), stdout: newF2Buffer(), stderr: newF2Buffer(), exited: make(chan struct{}), code: -1}
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "DIT_DB=") {
			r.cmd.Env = append(r.cmd.Env, e)
		}
	}
	r.cmd.Stdout, r.cmd.Stderr = r.stdout, r.stderr
	require.NoError(t, r.cmd.Start())
	go func() {
		err := r.cmd.Wait()
		if ee, ok := err.(*exec.ExitError); ok {
			r.code = ee.ExitCode()
		} else if err == nil {
			r.code = 0
		}
		close(r.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-r.exited:
		default:
			r.cmd.Process.Kill()
			<-r.exited
		}
	})
	return r
}

// wait waits for dit to exit and returns its exit code (-1: killed).
func (r *f2Run) wait(t *testing.T) int {
	t.Helper()
	select {
	case <-r.exited:
	case <-time.After(f2Within):
		r.cmd.Process.Kill()
		<-r.exited
		t.Fatalf("dit did not exit within %s:\n%s%s", f2Within, tailLines(r.stdout.String(), 30), tailLines(r.stderr.String(), 30))
	}
	return r.code
}

func (r *f2Run) output() string { return r.stdout.String() + r.stderr.String() }

// f2JobEntry is a job of dit jobs --json.
type f2JobEntry struct {
	JobID int64  `json:"job_id"`
	State string `json:"state"`
	Next  string `json:"next"`
	Cards []struct {
		Label        string `json:"label"`
		State        string `json:"state"`
		SafeToFormat bool   `json:"safe_to_format"`
		Failed       int    `json:"failed"`
	} `json:"cards"`
}

// f2Job is job id of dit jobs --json, its cards by label.
func f2Job(t *testing.T, db string, id int64) (f2JobEntry, map[string]bool) {
	t.Helper()
	r := ditNoEnv(t, "jobs", "--json", "--db", db)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	var list []f2JobEntry
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &list), r.Stdout)
	for _, j := range list {
		if j.JobID == id {
			safe := map[string]bool{}
			for _, c := range j.Cards {
				safe[c.Label] = c.SafeToFormat
			}
			return j, safe
		}
	}
	t.Fatalf("dit jobs --json has no job %d:\n%s", id, r.Stdout)
	return f2JobEntry{}, nil
}

// f2ShowFile is a file of dit job show --json, with its error.
type f2ShowFile struct {
	Path   string `json:"path"`
	State  string `json:"state"`
	Error  string `json:"error"`
	Copies []struct {
		Path  string `json:"path"`
		State string `json:"state"`
		Error string `json:"error"`
	} `json:"copies"`
}

// f2Files is every file of card label in dit job show --json.
func f2Files(t *testing.T, db string, id int64, label string) []f2ShowFile {
	t.Helper()
	r := ditNoEnv(t, "job", "show", e2e.Itoa(id), "--json", "--db", db)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	var s struct {
		Cards []struct {
			Label    string       `json:"label"`
			FileList []f2ShowFile `json:"file_list"`
		} `json:"cards"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &s), r.Stdout)
	for _, c := range s.Cards {
		if c.Label == label {
			return c.FileList
		}
	}
	t.Fatalf("dit job show %d has no card %s", id, label)
	return nil
}

// f2Temps lists the .dit-tmp files under root.
func f2Temps(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.HasSuffix(d.Name(), ".dit-tmp") {
			out = append(out, p)
		}
		return nil
	}))
	return out
}

// f2Lines are the lines of s that contain sub.
func f2Lines(s, sub string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return out
}

// TestFault2CardPulledMidCopy: card A001 (through faultfuse) stops
// answering after 10 of its 30 files and is then pulled (a forced
// unmount) while dit copies it and a second card, B001, to two
// destinations. dit ends with exit 3: B001 is safe to format, A001 is not,
// named once with the resume hint (--db included) rather than one I/O
// error per file, and nothing partial carries a real name on either
// destination. The card goes back in (a fresh mount of the same folder at
// the same path) and the resume copies and verifies every file of it.
func TestFault2CardPulledMidCopy(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	backing := filepath.Join(dir, "backing", "A001")
	f2MakeCard(t, backing, "A001", 30, 21)
	b001 := filepath.Join(dir, "cards", "B001")
	f2MakeCard(t, b001, "B001", 30, 22)
	d1, d2 := filepath.Join(dir, "raid"), filepath.Join(dir, "shuttle")
	require.NoError(t, os.Mkdir(d1, 0o755))
	require.NoError(t, os.Mkdir(d2, 0o755))

	card := mountCard(t, backing, "A001")
	mp := card.Dir()
	card.FailAllAfter(10)
	tripped := card.Tripped()

	run := f2Start(t, "offload", "--db", db, "--name", "day01", "-d", d1, "-d", d2, mp, b001)
	// Pull the card as soon as it stops answering (an event, not a delay).
	stop := make(chan struct{})
	pulled := make(chan bool, 1)
	go func() {
		select {
		case <-tripped:
			card.Disappear()
			pulled <- true
		case <-stop:
			pulled <- false
		}
	}()
	code := run.wait(t)
	close(stop)
	require.True(t, <-pulled, "the card never stopped answering (so was never pulled):\n%s", headLines(run.output(), 40))
	out := run.output()
	t.Logf("dit's output (tail):\n%s", tailLines(out, 30))

	ok := assert.Equal(t, 3, code, "a card pulled mid-copy fails the job (exit 3)")
	ok = assert.Contains(t, out, "A001", "the output names the pulled card") && ok
	hint := "dit offload --resume 1 --db " + db
	ok = assert.Contains(t, out, hint, "the resume hint carries the --db given") && ok
	ioLines := f2Lines(out, "input/output error")
	ok = assert.LessOrEqual(t, len(ioLines), 3, "the I/O errors are grouped, not one line per file: %q", ioLines) && ok
	job, safe := f2Job(t, db, 1)
	ok = assert.True(t, safe["B001"], "B001 was never pulled: safe to format (%+v)", job.Cards) && ok
	ok = assert.False(t, safe["A001"], "A001 was pulled mid-copy: NOT safe to format (%+v)", job.Cards) && ok
	if !ok {
		t.Logf("dit's output (%d lines), head and tail:\n%s\n...\n%s", strings.Count(out, "\n"), headLines(out, 10), tailLines(out, 20))
	}

	// Nothing partial under a real name; no temp left once dit has exited.
	for _, d := range []string{d1, d2} {
		assert.Empty(t, f2Temps(t, d), "temps left on %s", d)
		folder := filepath.Join(d, "day01", "A001")
		if _, err := os.Stat(folder); os.IsNotExist(err) {
			continue
		}
		n := 0
		require.NoError(t, filepath.WalkDir(folder, func(p string, e fs.DirEntry, err error) error {
			require.NoError(t, err)
			rel, _ := filepath.Rel(folder, p)
			if e.IsDir() && filepath.ToSlash(rel) == "ascmhl" {
				return filepath.SkipDir // the card's history, not its footage
			}
			if !e.Type().IsRegular() || strings.HasSuffix(e.Name(), ".dit-tmp") {
				return nil
			}
			n++
			want, err := os.ReadFile(filepath.Join(backing, rel))
			if !assert.NoError(t, err, "%s on %s is no file of the card", rel, d) {
				return nil
			}
			got, err := os.ReadFile(p)
			require.NoError(t, err)
			assert.True(t, bytes.Equal(want, got), "%s carries a real name but is not the card's file (%d of %d bytes)", p, len(got), len(want))
			return nil
		}))
		t.Logf("%s: %d of 30 files of A001 there before the resume", d, n)
	}

	// The card goes back in: the same folder, mounted again at the same path.
	ents, err := os.ReadDir(mp)
	require.NoError(t, err, "the mount point is left as a folder")
	require.Empty(t, ents, "the pulled card's mount point is empty")
	again := faultfuse.MountAt(t, backing, mp)
	require.Equal(t, mp, again.Dir())

	r := ditNoEnv(t, "offload", "--resume", "1", "--db", db)
	require.Equal(t, 0, r.Code, "resume after the card went back in:\n%s", tailLines(r.Stdout+r.Stderr, 40))
	for _, d := range []string{d1, d2} {
		assert.Equal(t, e2e.Tree(t, backing), e2e.WithoutHistory(e2e.Tree(t, filepath.Join(d, "day01", "A001"))), "every file of A001 on %s, byte for byte", d)
		assert.Equal(t, e2e.Tree(t, b001), e2e.WithoutHistory(e2e.Tree(t, filepath.Join(d, "day01", "B001"))), "every file of B001 on %s, byte for byte", d)
		assert.Empty(t, f2Temps(t, d), "temps left on %s", d)
	}
	job, safe = f2Job(t, db, 1)
	assert.True(t, safe["A001"], "A001 after the resume (%+v)", job.Cards)
	assert.True(t, safe["B001"], "B001 after the resume (%+v)", job.Cards)
}

// TestFault2CtrlCDuringReports: the destination stalls the rename of the
// job's CSV report; dit gets SIGINT right then, and the rename is let go
// once dit has seen it. dit exits 130 (interrupted, not 0), says the
// reports were interrupted and how to resume; dit jobs shows the job not
// done, with the resume command; the card, copied, verified and sealed
// before, is safe to format. The resume writes the four reports and ends
// the job done.
func TestFault2CtrlCDuringReports(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	card := filepath.Join(dir, "cards", "A001")
	f2MakeCard(t, card, "A001", 6, 31)
	backing := filepath.Join(dir, "raid")
	require.NoError(t, os.Mkdir(backing, 0o755))
	dest := faultfuse.Mount(t, backing)
	report := "dit-report_job1_day01.csv"
	stalled := dest.StallRename(report)

	run := f2Start(t, "offload", "--db", db, "--name", "day01", "-d", dest.Dir(), card)
	select {
	case target := <-stalled:
		t.Logf("stalled: rename onto %s", target)
	case <-run.exited:
		t.Fatalf("dit ended (exit %d) without renaming %s:\n%s", run.code, report, run.output())
	case <-time.After(f2Within):
		t.Fatalf("no rename onto %s within %s:\n%s", report, f2Within, run.output())
	}
	require.NoError(t, run.cmd.Process.Signal(os.Interrupt))
	// Let the rename go once dit has taken the Ctrl-C in (its notice).
	seen := run.stderr.waitFor("interrupted", run.exited)
	dest.Release()
	require.True(t, seen, "dit never said it was interrupted:\n%s", run.output())
	code := run.wait(t)
	out := run.output()
	t.Logf("dit's output (tail):\n%s", tailLines(out, 20))

	ok := assert.Equal(t, 130, code, "Ctrl-C while the reports are written: interrupted (130), not done")
	var said []string
	for _, l := range strings.Split(out, "\n") {
		low := strings.ToLower(l)
		if strings.Contains(low, "interrupted") && strings.Contains(low, "report") {
			said = append(said, l)
		}
	}
	ok = assert.NotEmpty(t, said, "the output says the reports were interrupted") && ok
	ok = assert.Contains(t, out, "dit offload --resume 1", "and how to resume") && ok
	if !ok {
		t.Logf("dit's output:\n%s", tailLines(out, 40))
	}

	job, safe := f2Job(t, db, 1)
	assert.NotEqual(t, "done", job.State, "a job whose reports were interrupted is not done")
	assert.Contains(t, job.Next, "dit offload --resume 1", "dit jobs says how to finish it (state %q)", job.State)
	assert.True(t, safe["A001"], "the card's copies and hash lists were complete: safe to format (%+v)", job.Cards)

	r := ditNoEnv(t, "offload", "--resume", "1", "--db", db)
	require.Equal(t, 0, r.Code, "resume:\n%s", tailLines(r.Stdout+r.Stderr, 40))
	reports := filepath.Join(dest.Dir(), "day01", "reports")
	for _, ext := range []string{"csv", "json", "html", "pdf"} {
		p := filepath.Join(reports, "dit-report_job1_day01."+ext)
		fi, err := os.Stat(p)
		if assert.NoError(t, err, "the %s report after the resume", ext) {
			assert.NotZero(t, fi.Size(), p)
		}
	}
	assert.Empty(t, f2Temps(t, dest.Dir()), "temps left on the destination")
	job, safe = f2Job(t, db, 1)
	assert.Equal(t, "done", job.State, "after the resume (next: %q)", job.Next)
	assert.True(t, safe["A001"])
}

// TestFault2JSONJobIDOnStderr: with --json, stdout is the JSON stream
// only, and the job's number and resume command go to stderr.
func TestFault2JSONJobIDOnStderr(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	card := filepath.Join(dir, "cards", "A001")
	f2MakeCard(t, card, "A001", 3, 41)
	d1 := filepath.Join(dir, "raid")
	require.NoError(t, os.Mkdir(d1, 0o755))

	r := ditNoEnv(t, "offload", "--json", "--db", db, "--name", "day01", "-d", d1, card)
	require.Equal(t, 0, r.Code, "stdout:\n%s\nstderr:\n%s", tailLines(r.Stdout, 10), r.Stderr)
	assert.Contains(t, r.Stderr, "job 1", "stderr names the job")
	assert.Contains(t, r.Stderr, "dit offload --resume 1", "stderr says how to resume it")

	lines := strings.Split(strings.TrimSuffix(r.Stdout, "\n"), "\n")
	require.NotEmpty(t, r.Stdout, "the JSON stream")
	for i, l := range lines {
		assert.True(t, json.Valid([]byte(l)), "stdout line %d is not JSON: %q", i+1, l)
	}
	var last struct {
		Type  string `json:"type"`
		JobID int64  `json:"job_id"`
	}
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &last))
	assert.Equal(t, "summary", last.Type, "the last line is the summary")
	assert.Equal(t, int64(1), last.JobID)
}

// TestFault2EIOOnOneFileOnly: one file of the card has a bad spot (every
// read covering a byte fails with EIO) while the card goes on answering.
// Only that file fails, with an input/output error naming it; every other
// file is verified; the card is not taken for one that stopped answering.
func TestFault2EIOOnOneFileOnly(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	backing := filepath.Join(dir, "backing", "A001")
	rels := f2MakeCard(t, backing, "A001", 12, 51)
	victim := rels[4]
	fi, err := os.Stat(filepath.Join(backing, filepath.FromSlash(victim)))
	require.NoError(t, err)
	card := mountCard(t, backing, "A001")
	card.EIOAt(victim, fi.Size()/2)
	d1 := filepath.Join(dir, "raid")
	require.NoError(t, os.Mkdir(d1, 0o755))

	r := ditNoEnv(t, "offload", "--db", db, "--name", "day01", "-d", d1, card.Dir())
	out := r.Stdout + r.Stderr
	t.Logf("dit's output (tail):\n%s", tailLines(out, 20))
	ok := assert.Equal(t, 3, r.Code, "one unreadable file fails the job (exit 3)")
	failed := f2Lines(out, "FAILED")
	named := false
	for _, l := range failed {
		if strings.Contains(l, victim) && strings.Contains(l, "input/output error") {
			named = true
		}
	}
	ok = assert.True(t, named, "a FAILED line names %s with its input/output error: %q", victim, failed) && ok
	ok = assert.NotContains(t, out, "stopped answering", "a bad spot on one file is not a card that stopped answering") && ok
	ok = assert.NotContains(t, out, "no longer there", "nor a card that was pulled") && ok
	if !ok {
		t.Logf("dit's output:\n%s", tailLines(out, 40))
	}

	files := f2Files(t, db, 1, "A001")
	require.Len(t, files, len(rels), "dit job show lists every file")
	for _, f := range files {
		if f.Path == victim {
			assert.Equal(t, "failed", f.State, "%s, read with EIO", f.Path)
			assert.Contains(t, f.Error, "input/output error", "the reason %s failed", f.Path)
			assert.Contains(t, f.Error, victim, "the reason names the file")
			continue
		}
		assert.Equal(t, "verified", f.State, "%s (error %q)", f.Path, f.Error)
		for _, c := range f.Copies {
			assert.Equal(t, "verified", c.State, "%s (error %q)", c.Path, c.Error)
		}
	}
	_, err = os.Stat(filepath.Join(d1, "day01", "A001", filepath.FromSlash(victim)))
	assert.True(t, os.IsNotExist(err), "no copy of the unreadable file under its real name (%v)", err)
	assert.Empty(t, f2Temps(t, d1), "temps left on the destination")
	job, safe := f2Job(t, db, 1)
	assert.False(t, safe["A001"], "a card with an unreadable file is NOT safe to format (%+v)", job.Cards)
	for _, c := range job.Cards {
		assert.Equal(t, 1, c.Failed, "one file failed on %s", c.Label)
	}
}
