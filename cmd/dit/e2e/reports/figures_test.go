package reports

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
)

// interruptAfterFiles runs dit offload --json and sends Ctrl-C (SIGINT)
// once n files have reached their final state; it returns the exit code.
func interruptAfterFiles(t *testing.T, db string, n int, args ...string) int {
	t.Helper()
	cmd := exec.Command(e2e.Bin, append(args, "--json")...)
	cmd.Env = append(os.Environ(), "DIT_DB="+db)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	files := 0
	for sc.Scan() {
		var ev struct{ Type string }
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Type == "file" {
			if files++; files == n {
				require.NoError(t, cmd.Process.Signal(os.Interrupt))
			}
		}
	}
	cmd.Wait()
	return cmd.ProcessState.ExitCode()
}

// The figures of a job interrupted twice (Ctrl-C), paused, and resumed, as
// the report gives them: bytes over the time the job really ran, not the
// card's size over the time from first start to last end; the pauses are
// said, and not counted. The card is read at 4 MB/s at most (--throttle),
// so its copy rate is bounded from outside: 4 MB/s = 0.0144 TB/hour.
func TestFiguresAfterTwoInterruptions(t *testing.T) {
	if testing.Short() {
		t.Skip("a throttled job of a few seconds")
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	cards := filepath.Join(dir, "cards")
	r := e2e.Dit(t, db, "testdata", "cards", "--out", cards, "--cards", "1", "--size", "12MB", "--style", "frames", "--seed", "9")
	require.Equal(t, 0, r.Code, r.Stderr)
	d1 := filepath.Join(dir, "d1")
	require.NoError(t, os.Mkdir(d1, 0o755))
	args := []string{"offload", "--name", "day01", "--throttle", "4MB/s", "-d", d1, filepath.Join(cards, "A001")}
	require.Equal(t, 130, interruptAfterFiles(t, db, 3, args...))
	pause := 2 * time.Second // the DIT takes a break: not counted
	time.Sleep(pause)
	require.Equal(t, 130, interruptAfterFiles(t, db, 3, "offload", "--resume", "1", "--throttle", "4MB/s"))
	time.Sleep(pause)
	r = e2e.Dit(t, db, "offload", "--resume", "1", "--throttle", "4MB/s")
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)

	rep := filepath.Join(dir, "report.json")
	r = e2e.Dit(t, db, "report", "1", "--format", "json", "--out", rep)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	b, err := os.ReadFile(rep)
	require.NoError(t, err)
	var report struct {
		Totals struct {
			Bytes         int64   `json:"bytes"`
			BytesCopied   int64   `json:"bytes_copied"`
			Seconds       float64 `json:"seconds"`
			ActiveSeconds float64 `json:"active_seconds"`
			PausedSeconds float64 `json:"paused_seconds"`
			Runs          int     `json:"runs"`
			Resumed       bool    `json:"resumed"`
			CopyTBPerHour float64 `json:"copy_tb_per_hour"`
			TBPerHour     float64 `json:"tb_per_hour"`
		} `json:"totals"`
		Cards []struct {
			BytesCopied       int64     `json:"bytes_copied"`
			CopySeconds       float64   `json:"copy_seconds"`
			ActiveSeconds     float64   `json:"active_seconds"`
			CopyTBPerHour     float64   `json:"copy_tb_per_hour"`
			EndToEndTBPerHour float64   `json:"end_to_end_tb_per_hour"`
			CopyStarted       time.Time `json:"copy_started"`
			CopyFinished      time.Time `json:"copy_finished"`
		} `json:"cards"`
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	require.NoError(t, dec.Decode(&report))
	tot, c := report.Totals, report.Cards[0]
	t.Logf("totals %+v card %+v", tot, c)
	require.Equal(t, 3, tot.Runs)
	require.True(t, tot.Resumed)
	require.GreaterOrEqual(t, tot.PausedSeconds, 2*pause.Seconds(), "both pauses are reported")
	require.InDelta(t, tot.Seconds, tot.ActiveSeconds+tot.PausedSeconds, 0.5, "wall = active + paused")
	require.GreaterOrEqual(t, tot.BytesCopied, tot.Bytes, "every byte of the card was read (some twice)")
	// 4 MB/s at most while copying (the throttle lets one 256 KiB block
	// through at once at each start): a machine under load can only make
	// it slower, so that is not asserted; the pauses are not in the copy's
	// time (they would halve the rate), which lies within the job's active
	// time.
	require.LessOrEqual(t, float64(c.BytesCopied)/c.CopySeconds, 4e6*1.15, "bytes per second of a card read at 4 MB/s")
	require.LessOrEqual(t, c.CopySeconds, tot.ActiveSeconds+0.05, "the copy's time is within the time the job ran, the pauses left out")
	// The report gives TB/hour to 3 decimals: at 0.015 TB/hour that
	// rounding alone is up to 3.3 %, so each figure is checked against its
	// definition within half a unit of the last decimal plus 2 %.
	const half = 0.0005
	copyRate := float64(c.BytesCopied) / c.CopySeconds * 3600 / 1e12
	require.InDelta(t, copyRate, c.CopyTBPerHour, half+0.02*copyRate, "copy TB/hour (rounded to 3 decimals)")
	// End to end: the bytes moved over the time the job ran.
	e2e := float64(tot.BytesCopied) / tot.ActiveSeconds * 3600 / 1e12
	require.InDelta(t, e2e, tot.TBPerHour, half+0.02*e2e, "end-to-end TB/hour (rounded to 3 decimals)")
	require.LessOrEqual(t, e2e, copyRate*1.02, "end to end is never faster than the copy")
	require.LessOrEqual(t, tot.TBPerHour, c.CopyTBPerHour+2*half, "end to end is never faster than the copy (as printed)")
	require.Greater(t, tot.TBPerHour, float64(tot.Bytes)/tot.Seconds*3600/1e12, "the pauses are not counted")
	require.False(t, c.CopyFinished.Before(c.CopyStarted), "the copy window does not end before it starts")
}

// A job that moved nothing has no rate: it reads "-", not the card's size
// over a blink. A second job refused because the destination is busy is
// not recorded at all (a refusal before the first byte, issue 26).
func TestNothingMovedReadsDash(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	cards := filepath.Join(dir, "cards")
	r := e2e.Dit(t, db, "testdata", "cards", "--out", cards, "--cards", "2", "--size", "4MB", "--seed", "10")
	require.Equal(t, 0, r.Code, r.Stderr)
	d1 := filepath.Join(dir, "d1")
	require.NoError(t, os.Mkdir(d1, 0o755))
	first := exec.Command(e2e.Bin, "offload", "--name", "slow", "--throttle", "1MB/s", "--json", "-d", d1, filepath.Join(cards, "A001"))
	first.Env = append(os.Environ(), "DIT_DB="+db)
	out, err := first.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, first.Start())
	sc := bufio.NewScanner(out)
	for sc.Scan() { // wait until it holds the destination
		if strings.Contains(sc.Text(), `"job_started"`) {
			break
		}
	}
	r = e2e.Dit(t, db, "offload", "--name", "refused", "-d", d1, filepath.Join(cards, "A002"))
	require.Equal(t, 1, r.Code, r.Stdout+r.Stderr)
	first.Process.Signal(os.Interrupt)
	go func() {
		for sc.Scan() {
		}
	}()
	first.Wait()
	r = e2e.Dit(t, db, "jobs", "--json")
	var jobs []struct {
		Name      string  `json:"name"`
		State     string  `json:"state"`
		TBPerHour float64 `json:"tb_per_hour"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &jobs))
	for _, j := range jobs {
		require.NotEqual(t, "refused", j.Name, "a refusal before the first byte records no job: %s", r.Stdout)
	}
	// A card with no files: a job that moved nothing.
	empty := filepath.Join(dir, "E001")
	require.NoError(t, os.Mkdir(empty, 0o755))
	r = e2e.Dit(t, db, "offload", "--name", "empty", "-d", d1, empty)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	r = e2e.Dit(t, db, "jobs", "--json")
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &jobs))
	found := false
	for _, j := range jobs {
		if j.Name == "empty" {
			found = true
			require.Zero(t, j.TBPerHour, "a job that moved nothing has no rate")
		}
	}
	require.True(t, found, "the empty job is recorded: %s", r.Stdout)
	r = e2e.Dit(t, db, "jobs")
	for _, l := range strings.Split(r.Stdout, "\n") {
		if strings.Contains(l, "empty") && !strings.HasPrefix(l, "job ") {
			require.Contains(t, l, " nothing copied ", "the rate column says no byte was copied, not a rate: %q", l)
		}
	}
}
