package frontends

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
	"github.com/dit-org/dit/internal/faultfuse"
)

// truth is one card's verdict as one consumer shows it: its state and
// whether it says the card may be formatted.
type truth struct {
	State string
	Safe  bool
}

func (t truth) String() string { return fmt.Sprintf("%s/safe=%v", t.State, t.Safe) }

// verdictViews are the consumers of the verdict model, each read as a
// DIT, a script or a loader off the cart would: consumer -> card -> truth.
type verdictViews map[string]map[string]truth

func (v verdictViews) put(consumer, card string, t truth) {
	if v[consumer] == nil {
		v[consumer] = map[string]truth{}
	}
	v[consumer][card] = t
}

// verdictEnv is one scenario's catalog, its notification hook and its dit
// serve.
type verdictEnv struct {
	t    *testing.T
	dir  string
	db   string
	env  []string
	hook *e2e.NotifyHook
	base string // dit serve's URL
}

func newVerdictEnv(t *testing.T) *verdictEnv {
	dir := t.TempDir()
	e := &verdictEnv{t: t, dir: dir, db: filepath.Join(dir, "catalog.db"), hook: e2e.NewNotifyHook(t)}
	xdg := filepath.Join(dir, "xdg")
	require.NoError(t, os.MkdirAll(filepath.Join(xdg, "dit"), 0o755))
	cfg := fmt.Sprintf("notify:\n  webhook:\n    url: %s/hook\n", e.hook.URL)
	require.NoError(t, os.WriteFile(filepath.Join(xdg, "dit", "config.yaml"), []byte(cfg), 0o600))
	e.env = append(os.Environ(), "DIT_DB="+e.db, "XDG_CONFIG_HOME="+xdg)
	return e
}

// run runs dit with the scenario's catalog and notifications.
func (e *verdictEnv) run(extra []string, args ...string) e2e.Result {
	e.t.Helper()
	return e2e.RunDit(e.t, append(append([]string(nil), e.env...), extra...), args...)
}

// serve starts dit serve on the catalog (once the catalog exists).
func (e *verdictEnv) serve() {
	t := e.t
	if e.base != "" {
		return
	}
	srv := exec.Command(e2e.Bin, "serve", "--listen", "127.0.0.1:0", "--poll", "100ms")
	srv.Env = e.env
	out, err := srv.StdoutPipe()
	require.NoError(t, err)
	var serr bytes.Buffer
	srv.Stderr = &serr
	require.NoError(t, srv.Start())
	t.Cleanup(func() { srv.Process.Kill(); srv.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err, serr.String())
	e.base = regexp.MustCompile(`http://127\.0\.0\.1:\d+/`).FindString(line)
	require.NotEmpty(t, e.base, line)
}

func (e *verdictEnv) get(path string) []byte {
	e.t.Helper()
	r, err := http.Get(e.base + path)
	require.NoError(e.t, err)
	defer r.Body.Close()
	b, err := io.ReadAll(r.Body)
	require.NoError(e.t, err)
	require.Equal(e.t, 200, r.StatusCode, "%s: %s", path, b)
	return b
}

// views reads job id's card verdicts from every consumer. stdout is the
// last run's --json output ("" when it was killed: no summary, no
// card_done); from is the index of the first notification of that run.
func (e *verdictEnv) views(id int64, stdout string, from int) verdictViews {
	t := e.t
	t.Helper()
	v := verdictViews{}
	if stdout != "" {
		sum, events := e2e.LastSummary(t, stdout)
		for _, c := range sum.Cards {
			v.put("summary", c.Label, truth{c.State, c.SafeToFormat})
		}
		safeEv := map[string]bool{}
		for _, ev := range events {
			switch ev["type"] {
			case "safe_to_format":
				safeEv[ev["card"].(string)] = true
			case "card_done":
				c := ev["card"].(string)
				st := ev["state"].(string)
				v.put("events", c, truth{st, safeEv[c]})
			}
		}
	}
	var jobs []struct {
		JobID int64 `json:"job_id"`
		Cards []struct {
			Label string `json:"label"`
			State string `json:"state"`
			Safe  bool   `json:"safe_to_format"`
		} `json:"cards"`
	}
	r := e.run(nil, "jobs", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &jobs))
	for _, j := range jobs {
		if j.JobID == id {
			for _, c := range j.Cards {
				v.put("jobs", c.Label, truth{c.State, c.Safe})
			}
		}
	}
	var show struct {
		Cards []struct {
			Label string `json:"label"`
			State string `json:"state"`
			Safe  bool   `json:"safe_to_format"`
		} `json:"cards"`
	}
	r = e.run(nil, "job", "show", e2e.Itoa(id), "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &show))
	for _, c := range show.Cards {
		v.put("job show", c.Label, truth{c.State, c.Safe})
	}
	var day struct {
		Safe []struct {
			JobID        int64  `json:"job_id"`
			Label, State string // the card in the engine's one shape
		} `json:"safe_to_format"`
		NotYet []struct {
			JobID        int64  `json:"job_id"`
			Label, State string // the card in the engine's one shape
		} `json:"not_yet"`
	}
	r = e.run(nil, "day", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &day))
	for _, c := range day.Safe {
		if c.JobID == id {
			v.put("day", c.Label, truth{c.State, true})
		}
	}
	for _, c := range day.NotYet {
		if c.JobID == id {
			v.put("day", c.Label, truth{c.State, false})
		}
	}
	e.serve()
	var st struct {
		Jobs []struct {
			ID    int64 `json:"job_id"`
			Cards []struct {
				Label string `json:"label"`
				Hop   int    `json:"hop"`
				State string `json:"state"`
				Safe  bool   `json:"safe_to_format"`
			} `json:"cards"`
		} `json:"jobs"`
	}
	require.NoError(t, json.Unmarshal(e.get("api/status"), &st))
	for _, j := range st.Jobs {
		for _, c := range j.Cards {
			if j.ID == id && c.Hop <= 1 {
				v.put("api/status", c.Label, truth{c.State, c.Safe})
			}
		}
	}
	metrics := string(e.get("metrics"))
	job := fmt.Sprintf(`job="%d"`, id)
	for _, l := range strings.Split(metrics, "\n") {
		if !strings.Contains(l, job) {
			continue
		}
		card := regexp.MustCompile(`card="([^"]*)"`).FindStringSubmatch(l)
		if card == nil || strings.HasSuffix(card[1], "(second run)") {
			continue
		}
		tr := v["metrics"][card[1]]
		switch {
		case strings.HasPrefix(l, "dit_card_state{") && strings.HasSuffix(l, " 1"):
			tr.State = regexp.MustCompile(`state="([^"]*)"`).FindStringSubmatch(l)[1]
		case strings.HasPrefix(l, "dit_card_safe_to_format{"):
			tr.Safe = strings.HasSuffix(l, " 1")
		default:
			continue
		}
		v.put("metrics", card[1], tr)
	}
	msgs := e.hook.Got()
	for _, m := range msgs[min(from, len(msgs)):] {
		switch m["kind"] {
		case "safe_to_format", "failure":
			if c, _ := m["card"].(string); c != "" {
				st, _ := m["state"].(string)
				v.put("notify", c, truth{st, m["kind"] == "safe_to_format"})
			}
		case "job_done":
			cards, _ := m["cards"].([]any)
			for _, x := range cards {
				c := x.(map[string]any)
				v.put("notify job_done", c["card"].(string), truth{c["state"].(string), c["safe_to_format"].(bool)})
			}
		}
	}
	out := filepath.Join(e.dir, fmt.Sprintf("report-%d.json", id))
	if r = e.run(nil, "report", e2e.Itoa(id), "--format", "json", "--out", out); r.Code == 0 {
		var rep struct {
			Cards []struct {
				Label string `json:"label"`
				State string `json:"state"`
				Safe  bool   `json:"safe_to_format"`
			} `json:"cards"`
		}
		b, err := os.ReadFile(out)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(b, &rep))
		for _, c := range rep.Cards {
			v.put("report", c.Label, truth{c.State, c.Safe})
		}
	}
	return v
}

// same asserts every consumer shows each card of want as want says, and
// that the consumers listed in need all showed it.
func (v verdictViews) same(t *testing.T, want map[string]truth, need ...string) {
	t.Helper()
	for _, c := range need {
		require.Contains(t, v, c, "consumer %s showed nothing; saw %v", c, v)
	}
	var lines []string
	for consumer, cards := range v {
		for card, w := range want {
			got, ok := cards[card]
			if consumer == "notify" && !ok {
				continue // a card interrupted or still working sends no card message
			}
			if !ok || got != w {
				lines = append(lines, fmt.Sprintf("%s: card %s shows %v, want %v", consumer, card, got, w))
			}
		}
	}
	sort.Strings(lines)
	require.Empty(t, lines, "every consumer shows the same verdict:\n%s", strings.Join(lines, "\n"))
}

// historiesVerify checks the ASC MHL history of each card folder under the
// destinations dirs with dit mhl verify and then the ASC reference tool
// (which skips the rest of the test, saying why, where it cannot be
// installed: call it last).
func (e *verdictEnv) historiesVerify(layout string, dirs ...string) {
	t := e.t
	t.Helper()
	var folders []string
	for _, d := range dirs {
		ms, _ := filepath.Glob(filepath.Join(d, layout, "*", "ascmhl"))
		for _, m := range ms {
			folders = append(folders, filepath.Dir(m))
		}
	}
	require.NotEmpty(t, folders, "histories under %v", dirs)
	for _, f := range folders {
		r := e.run(nil, "mhl", "verify", f)
		require.Equal(t, 0, r.Code, "dit mhl verify %s:\n%s%s", f, r.Stdout, r.Stderr)
	}
	bin := e2e.ReferenceTool(t)
	for _, f := range folders {
		res := e2e.RunTool(t, filepath.Join(bin, "ascmhl-debug"), "verify", f)
		require.Equal(t, 0, res.Code, "ascmhl-debug verify %s:\n%s", f, res.Out)
	}
}

// One truth about every card: over a matrix of scenarios, the summary,
// the event stream, dit jobs, dit job show, dit day, dit serve's
// /api/status and /metrics, the notifications and the report all show the
// same verdict per card: the verdict model's.
func TestOneVerdictEverywhere(t *testing.T) {
	safe := truth{"safe_to_format", true}
	failed := truth{"failed", false}
	interrupted := truth{"interrupted", false}
	all := []string{"summary", "events", "jobs", "job show", "day", "api/status", "metrics", "notify", "notify job_done", "report"}
	ended := []string{"jobs", "job show", "day", "api/status", "metrics"}

	cards := func(e *verdictEnv, n int, size string) []string {
		out := filepath.Join(e.dir, "cards")
		r := e.run(nil, "testdata", "cards", "--out", out, "--cards", e2e.Itoa(int64(n)), "--size", size, "--seed", "41")
		require.Equal(e.t, 0, r.Code, r.Stderr)
		var paths []string
		for _, l := range []string{"A001", "A002", "A003"}[:n] {
			paths = append(paths, filepath.Join(out, l))
		}
		return paths
	}
	mkdir := func(e *verdictEnv, names ...string) []string {
		var out []string
		for _, n := range names {
			p := filepath.Join(e.dir, n)
			require.NoError(e.t, os.MkdirAll(p, 0o755))
			out = append(out, p)
		}
		return out
	}

	t.Run("plain", func(t *testing.T) {
		e := newVerdictEnv(t)
		src := cards(e, 2, "4MB")
		d := mkdir(e, "raid", "shuttle")
		r := e.run(nil, append([]string{"offload", "--json", "--name", "plain", "-d", d[0], "-d", d[1]}, src...)...)
		require.Equal(t, 0, r.Code, r.Stderr)
		e.views(1, r.Stdout, 0).same(t, map[string]truth{"A001": safe, "A002": safe}, all...)
	})

	t.Run("cascade", func(t *testing.T) {
		e := newVerdictEnv(t)
		src := cards(e, 1, "4MB")
		d := mkdir(e, "raid", "shuttle")
		r := e.run(nil, "offload", "--json", "--name", "cascade", "-d", d[0], "--then", d[1], src[0])
		require.Equal(t, 0, r.Code, r.Stderr)
		_, events := e2e.LastSummary(t, r.Stdout)
		var order []string
		for _, ev := range events {
			if ev["type"] == "card_free" || ev["type"] == "safe_to_format" || ev["type"] == "card_done" {
				order = append(order, ev["type"].(string))
			}
		}
		require.Equal(t, []string{"card_free", "safe_to_format", "card_done"}, order,
			"a cascade's card is free, then safe, then done: never done (verified) before its second run")
		e.views(1, r.Stdout, 0).same(t, map[string]truth{"A001": safe}, all...)
		e.historiesVerify("cascade", d...)
	})

	// A cascade resumed after it finished, and one killed at each crash
	// point after the card was free: every resume ends safe to format
	// everywhere, and a resume of a finished job writes nothing.
	t.Run("cascade resumed", func(t *testing.T) {
		e := newVerdictEnv(t)
		src := cards(e, 1, "4MB")
		d := mkdir(e, "raid", "shuttle")
		r := e.run(nil, "offload", "--json", "--name", "cascade", "-d", d[0], "--then", d[1], src[0])
		require.Equal(t, 0, r.Code, r.Stderr)
		before := e2e.Tree(t, e.dir)
		for i := 0; i < 2; i++ {
			from := len(e.hook.Got())
			r = e.run(nil, "offload", "--json", "--resume", "1")
			require.Equal(t, 0, r.Code, "resume %d: %s", i+1, r.Stderr)
			e.views(1, r.Stdout, from).same(t, map[string]truth{"A001": safe}, "summary", "jobs", "job show", "day", "api/status", "metrics", "report")
		}
		after := e2e.Tree(t, e.dir)
		for p, h := range before {
			if strings.Contains(p, string(filepath.Separator)+"ascmhl"+string(filepath.Separator)) {
				require.Equal(t, h, after[p], "%s unchanged by a resume", p)
			}
		}
		for p := range after {
			if strings.HasSuffix(p, ".mhl") {
				require.Contains(t, before, p, "a resume of a finished cascade writes no new generation: %s", p)
			}
		}
		e.historiesVerify("cascade", d...)
	})
	// "card: sealing recorded#2" is the second run's sealing.
	for _, at := range []string{"cascade: second run recorded", "card: sealing recorded#2", "job: finishing recorded"} {
		t.Run("cascade killed at "+at, func(t *testing.T) {
			e := newVerdictEnv(t)
			src := cards(e, 1, "4MB")
			d := mkdir(e, "raid", "shuttle")
			env := append(e.env[len(os.Environ()):], "DIT_CRASH_AT="+at)
			r, killed := e2e.DitCrash(t, e.db, env, "offload", "--json", "--name", "cascade", "-d", d[0], "--then", d[1], src[0])
			require.True(t, killed, "killed at %s: %s", at, r.Stderr)
			v := e.views(1, "", 0)
			want := interrupted
			if at == "job: finishing recorded" {
				want = safe // every card ended; only the reports were left
			}
			v.same(t, map[string]truth{"A001": want}, ended...)
			for i := 0; i < 2; i++ {
				from := len(e.hook.Got())
				r = e.run(nil, "offload", "--json", "--resume", "1")
				require.Equal(t, 0, r.Code, "resume %d: %s\n%s", i+1, r.Stderr, e2e.Tail(r.Stdout))
				e.views(1, r.Stdout, from).same(t, map[string]truth{"A001": safe}, "summary", "jobs", "job show", "day", "api/status", "metrics", "report")
			}
			e.historiesVerify("cascade", d...)
		})
	}

	// dit verify on a cascade keeps the verdict when every copy matches
	// and withdraws it, everywhere, when one differs.
	t.Run("cascade then dit verify", func(t *testing.T) {
		e := newVerdictEnv(t)
		src := cards(e, 1, "4MB")
		d := mkdir(e, "raid", "shuttle")
		r := e.run(nil, "offload", "--json", "--name", "cv", "-d", d[0], "--then", d[1], src[0])
		require.Equal(t, 0, r.Code, r.Stderr)
		run := r.Stdout
		r = e.run(nil, "verify", "1")
		require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
		e.views(1, run, 0).same(t, map[string]truth{"A001": safe}, all...)
		e2e.FlipByte(t, filepath.Join(d[1], "cv", "A001", filepath.FromSlash(e2e.BigFiles(t, filepath.Join(d[1], "cv", "A001"))[0])))
		r = e.run(nil, "verify", "1")
		require.Equal(t, 3, r.Code, r.Stdout+r.Stderr)
		e.views(1, "", len(e.hook.Got())).same(t, map[string]truth{"A001": failed}, "jobs", "job show", "day", "api/status", "metrics", "report")
	})

	// The first copy damaged after the card was free: the second run
	// proves it different from the card; the card fails everywhere.
	t.Run("first copy corrupted before the second run", func(t *testing.T) {
		e := newVerdictEnv(t)
		src := cards(e, 1, "4MB")
		d := mkdir(e, "raid", "shuttle")
		cmd := exec.Command(e2e.Bin, "offload", "--json", "--name", "fc", "--then-parallel", "1", "-d", d[0], "--then", d[1], src[0])
		cmd.Env = e.env
		out, err := cmd.StdoutPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			if strings.Contains(sc.Text(), `"type":"card_free"`) {
				cmd.Process.Signal(os.Interrupt)
			}
		}
		cmd.Wait()
		first := filepath.Join(d[0], "fc", "A001")
		e2e.FlipByte(t, filepath.Join(first, filepath.FromSlash(e2e.BigFiles(t, first)[0])))
		from := len(e.hook.Got())
		r := e.run(nil, "offload", "--json", "--resume", "1")
		require.Equal(t, 3, r.Code, r.Stdout+r.Stderr)
		e.views(1, r.Stdout, from).same(t, map[string]truth{"A001": failed}, all...)
	})

	t.Run("failed file", func(t *testing.T) {
		e := newVerdictEnv(t)
		src := cards(e, 2, "4MB")
		d := mkdir(e, "raid")
		// A different file already where A002's first clip goes: dit
		// never overwrites, so that file fails and A002 is not safe.
		var clip string
		require.NoError(t, filepath.WalkDir(src[1], func(p string, de os.DirEntry, err error) error {
			if err == nil && clip == "" && !de.IsDir() && !strings.HasPrefix(de.Name(), ".") && strings.HasSuffix(strings.ToUpper(p), ".MOV") {
				clip = p
			}
			return err
		}))
		require.NotEmpty(t, clip)
		rel, _ := filepath.Rel(src[1], clip)
		taken := filepath.Join(d[0], "failed", "A002", rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(taken), 0o755))
		require.NoError(t, os.WriteFile(taken, []byte("not the clip"), 0o644))
		r := e.run(nil, append([]string{"offload", "--json", "--name", "failed", "--layout", "{job}/{card}", "-d", d[0]}, src...)...)
		require.Equal(t, 3, r.Code, r.Stderr)
		v := e.views(1, r.Stdout, 0)
		v.same(t, map[string]truth{"A001": safe, "A002": failed}, all...)
		r = e.run(nil, "jobs", "--json")
		require.Contains(t, r.Stdout, `"state": "failed"`, "the job ended failed, not done")
	})

	t.Run("interrupted then resumed", func(t *testing.T) {
		e := newVerdictEnv(t)
		src := cards(e, 2, "4MB")
		d := mkdir(e, "raid")
		r, killed := e2e.DitCrash(t, e.db, append(e.env[len(os.Environ()):], "DIT_CRASH_AT=card: sealing recorded"),
			append([]string{"offload", "--json", "--name", "killed", "-d", d[0]}, src...)...)
		require.True(t, killed, "killed at the crash point: %s", r.Stderr)
		e.views(1, "", 0).same(t, map[string]truth{"A001": interrupted, "A002": interrupted}, ended...)
		from := len(e.hook.Got())
		r = e.run(nil, "offload", "--json", "--resume", "1")
		require.Equal(t, 0, r.Code, r.Stderr)
		e.views(1, r.Stdout, from).same(t, map[string]truth{"A001": safe, "A002": safe}, all...)
	})

	t.Run("fsync EIO on a destination", func(t *testing.T) {
		e := newVerdictEnv(t)
		src := cards(e, 1, "4MB")
		d := mkdir(e, "raid", "backing")
		bad := faultfuse.Mount(t, d[1])
		bad.FailFsync(true)
		r := e.run(nil, "offload", "--json", "--name", "eio", "-d", d[0], "-d", bad.Dir(), src[0])
		require.Equal(t, 3, r.Code, "copies that cannot be made durable fail: %s\n%s", r.Stderr, e2e.Tail(r.Stdout))
		e.views(1, r.Stdout, 0).same(t, map[string]truth{"A001": failed}, all...)
		for _, args := range [][]string{{"jobs"}, {"job", "show", "1"}} {
			out := e.run(nil, args...).Stdout
			require.NotContains(t, out, "finishing", "dit %v: an ended job is not finishing", args)
		}
	})

	t.Run("destination full", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("needs root to mount a small tmpfs as a destination that fills up")
		}
		e := newVerdictEnv(t)
		src := cards(e, 1, "40MB")
		d := mkdir(e, "raid", "small")
		if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=120m", "tmpfs", d[1]).CombinedOutput(); err != nil {
			t.Skipf("cannot mount a tmpfs (%v: %s): skipping the full-destination case", err, out)
		}
		t.Cleanup(func() { exec.Command("umount", "-l", d[1]).Run() })
		// Read at 8 MB/s; at the first file copied, someone fills the
		// small destination (1 MB left): the rest fail there with ENOSPC.
		cmd := exec.Command(e2e.Bin, "offload", "--json", "--name", "full", "--throttle", "8MB/s", "-d", d[0], "-d", d[1], src[0])
		cmd.Env = e.env
		stdout, err := cmd.StdoutPipe()
		require.NoError(t, err)
		var errb bytes.Buffer
		cmd.Stderr = &errb
		require.NoError(t, cmd.Start())
		var out strings.Builder
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		filled := false
		for sc.Scan() {
			out.WriteString(sc.Text() + "\n")
			if !filled && strings.Contains(sc.Text(), `"type":"file"`) {
				filled = true
				e2e.FillUp(t, filepath.Join(d[1], "filler.bin"), 1<<20)
			}
		}
		cmd.Wait()
		r := e2e.Result{Stdout: out.String(), Stderr: errb.String(), Code: cmd.ProcessState.ExitCode()}
		require.Equal(t, 3, r.Code, r.Stderr)
		v := e.views(1, r.Stdout, 0)
		v.same(t, map[string]truth{"A001": failed}, all...)
		for _, args := range [][]string{{"jobs"}, {"jobs", "--json"}, {"job", "show", "1"}} {
			out := e.run(nil, args...).Stdout
			require.NotContains(t, out, "finishing", "dit %v: an ended job is not finishing", args)
			require.NotContains(t, out, `"state": "sealing"`, "dit %v", args)
		}
		msgs := e.hook.Got()
		var fail map[string]any
		for _, m := range msgs {
			if m["kind"] == "failure" && m["card"] == "A001" {
				fail = m
			}
		}
		require.NotNil(t, fail, "a failure notification for A001")
		require.NotEmpty(t, fail["station"], "the notification names the station")
		require.Contains(t, fail["text"], "destination full", "a short reason, not temp paths")
		require.NotContains(t, fail["text"], ".dit-tmp", "no temporary paths")
		var full bool
		for _, x := range fail["destinations"].([]any) {
			dd := x.(map[string]any)
			if dd["failed"].(float64) > 0 {
				full = full || strings.Contains(dd["reason"].(string), "full")
			}
		}
		require.True(t, full, "the full destination is named with its reason: %v", fail["destinations"])
	})
}
