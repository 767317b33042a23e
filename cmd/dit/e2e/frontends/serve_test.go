package frontends

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
)

// chromiumBin finds a headless-capable Chromium, or skips saying why.
func chromiumBin(t *testing.T) string {
	for _, n := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	t.Skip("status page browser test skipped: no chromium on PATH (apt-get install chromium)")
	return ""
}

// headless runs chromium headless on url with args (--dump-dom,
// --screenshot=...) and returns its stdout. The page closes its event
// stream after ?until=N updates, so the load ends and virtual time runs
// out; the budget is only an upper bound.
func headless(t *testing.T, bin, url string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	home := t.TempDir()
	a := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
		"--user-data-dir=" + filepath.Join(home, "profile"), "--virtual-time-budget=60000"}, args...)
	cmd := exec.CommandContext(ctx, bin, append(a, url)...)
	cmd.Env = append(os.Environ(), "HOME="+home)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	require.NoError(t, cmd.Run(), "chromium: %s", errb.String())
	return out.String()
}

// dit serve over a catalog two carts are writing: 401 without the token;
// in a real headless browser the page shows both stations' running cards
// and their bytes growing through the event stream; a screenshot of it.
func TestServeStatusPageInHeadlessChromium(t *testing.T) {
	chromium := chromiumBin(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	cards := filepath.Join(dir, "cards")
	r := e2e.Dit(t, db, "testdata", "cards", "--out", cards, "--cards", "2", "--size", "120MB", "--seed", "9")
	require.Equal(t, 0, r.Code, r.Stderr)

	// Two carts writing one catalog, throttled so that they run while the
	// page is looked at.
	var offloads []*exec.Cmd
	for i, station := range []string{"main-unit", "second-unit"} {
		card := filepath.Join(cards, []string{"A001", "A002"}[i])
		dest := filepath.Join(dir, "raid-"+station)
		require.NoError(t, os.Mkdir(dest, 0o755))
		cmd := exec.Command(e2e.Bin, "offload", "--json", "--station", station, "--name", "day14", "--throttle", "12MB/s", "-d", dest, card)
		cmd.Env = append(os.Environ(), "DIT_DB="+db)
		out, err := cmd.StdoutPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		// Wait for the job's first file event: the job is in the catalog.
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.Contains(sc.Text(), `"type":"file"`) || strings.Contains(sc.Text(), `"type":"progress"`) {
				break
			}
		}
		go func() {
			for sc.Scan() {
			}
		}()
		offloads = append(offloads, cmd)
	}

	srv := exec.Command(e2e.Bin, "serve", "--listen", "127.0.0.1:0", "--token", "on-set-42", "--poll", "200ms")
	srv.Env = append(os.Environ(), "DIT_DB="+db)
	sout, err := srv.StdoutPipe()
	require.NoError(t, err)
	var serr bytes.Buffer
	srv.Stderr = &serr
	require.NoError(t, srv.Start())
	t.Cleanup(func() { srv.Process.Kill(); srv.Wait() })
	line, err := bufio.NewReader(sout).ReadString('\n')
	require.NoError(t, err, serr.String())
	base := regexp.MustCompile(`http://127\.0\.0\.1:\d+/`).FindString(line)
	require.NotEmpty(t, base, line)
	require.Contains(t, line, base+"?token=on-set-42", "the address to open, with the token")

	resp, err := http.Get(base)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	resp, err = http.Post(base+"api/status?token=on-set-42", "application/json", strings.NewReader("{}"))
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)

	dom := headless(t, chromium, base+"?token=on-set-42&until=4", "--dump-dom")
	attr := func(name string) int64 {
		m := regexp.MustCompile(name + `="(\d+)"`).FindStringSubmatch(dom)
		require.NotNil(t, m, "%s in the page:\n%s", name, dom)
		n, _ := strconv.ParseInt(m[1], 10, 64)
		return n
	}
	require.Equal(t, int64(4), attr("data-updates"), "four status events reached the page")
	require.Greater(t, attr("data-last-done"), attr("data-first-done"), "the cards' bytes grew on the page as the jobs ran")
	for _, want := range []string{"main-unit", "second-unit", `data-card="A001"`, `data-card="A002"`, `data-state="copying"`} {
		require.Contains(t, dom, want)
	}

	// The API agrees with the catalog's jobs.
	req, _ := http.NewRequest("GET", base+"api/status", nil)
	req.Header.Set("Authorization", "Bearer on-set-42")
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	var st struct {
		Jobs []struct {
			Station string `json:"station"`
		} `json:"jobs"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&st))
	resp.Body.Close()
	require.Len(t, st.Jobs, 2)

	for _, c := range offloads {
		require.NoError(t, c.Wait())
	}
	require.NoError(t, srv.Process.Signal(syscall.SIGINT))
	require.NoError(t, srv.Wait(), serr.String())
}
