package frontends

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
)

// rawFloat is a number no formatter of dit prints: four decimals or more
// ("364.1281317037921 B/s").
var rawFloat = regexp.MustCompile(`\d+\.\d{4,}`)

// pageText is what a person reads of a page's DOM: no script, style or
// tags.
func pageText(dom string) string {
	for _, re := range []string{`(?s)<script.*?</script>`, `(?s)<style.*?</style>`, `<[^>]*>`} {
		dom = regexp.MustCompile(re).ReplaceAllString(dom, " ")
	}
	return dom
}

// dit serve on every address of the cart over a finished job and one read
// very slowly (tiny rates): it prints the addresses a phone opens, with the
// token, never 0.0.0.0; the first event already carries the time it was
// read; the page in a real headless browser prints every figure as dit's
// units do (no raw float, no zero date); the finished job's PDF report says
// done, not finishing. The screenshot is docs/dit-serve.png
// (DIT_SERVE_SCREENSHOT=$PWD/docs/dit-serve.png).
func TestServePageFiguresOfASlowJob(t *testing.T) {
	chromium := chromiumBin(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	cards := filepath.Join(dir, "cards")
	r := e2e.Dit(t, db, "testdata", "cards", "--out", cards, "--cards", "2", "--size", "2MB", "--seed", "14")
	require.Equal(t, 0, r.Code, r.Stderr)
	for _, d := range []string{"raid-main-unit", "raid-second-unit"} {
		require.NoError(t, os.Mkdir(filepath.Join(dir, d), 0o755))
	}

	// The main unit's card, offloaded to the end: its report says done.
	r = e2e.Dit(t, db, "--station", "main-unit", "offload", "--name", "day14", "-d", filepath.Join(dir, "raid-main-unit"), filepath.Join(cards, "A001"))
	require.Equal(t, 0, r.Code, r.Stderr)
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Log("pdftotext not installed (Debian: apt-get install poppler-utils): the PDF's header is not checked")
	} else {
		pdfs, _ := filepath.Glob(filepath.Join(dir, "raid-main-unit", "day14", "reports", "*.pdf"))
		require.Len(t, pdfs, 1)
		out, err := exec.Command("pdftotext", pdfs[0], "-").Output()
		require.NoError(t, err)
		require.Contains(t, string(out), "Job 1 (done)", "the header of a finished job's report:\n%s", out)
		require.NotContains(t, string(out), "finishing")
	}

	// The second unit's card, read at a couple of kB/s.
	slow := exec.Command(e2e.Bin, "--station", "second-unit", "offload", "--json", "--name", "day14", "--throttle", "2kB/s",
		"--block-size", "4KiB", "-d", filepath.Join(dir, "raid-second-unit"), filepath.Join(cards, "A002"))
	slow.Env = append(os.Environ(), "DIT_DB="+db)
	out, err := slow.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, slow.Start())
	t.Cleanup(func() { slow.Process.Kill(); slow.Wait() })
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for moved := 0; moved < 2 && sc.Scan(); {
		if strings.Contains(sc.Text(), `"type":"progress"`) && !strings.Contains(sc.Text(), `"bytes_copied":0,`) {
			moved++ // two samples that moved: a rate to show
		}
	}
	go func() {
		for sc.Scan() {
		}
	}()

	srv := exec.Command(e2e.Bin, "serve", "--listen", "0.0.0.0:0", "--token", "on-set-42", "--poll", "200ms")
	srv.Env = append(os.Environ(), "DIT_DB="+db)
	sout, err := srv.StdoutPipe()
	require.NoError(t, err)
	var serr bytes.Buffer
	srv.Stderr = &serr
	require.NoError(t, srv.Start())
	t.Cleanup(func() { srv.Process.Kill(); srv.Wait() })
	lines := bufio.NewReader(sout)
	head, err := lines.ReadString('\n')
	require.NoError(t, err, serr.String())
	first, err := lines.ReadString('\n')
	require.NoError(t, err, serr.String())
	require.Contains(t, head, "every address", head)
	u := strings.TrimSpace(first)
	require.Regexp(t, `^http://[0-9a-f.:\[\]]+:\d+/\?token=on-set-42$`, u, "an address to open, with the token")
	require.NotContains(t, head+first, "0.0.0.0", "an address another device can open")
	require.NotContains(t, head+first, "[::]")
	base := strings.TrimSuffix(u, "?token=on-set-42")

	// The first event: the status with the time it was read.
	req, _ := http.NewRequest("GET", base+"events", nil)
	req.Header.Set("Authorization", "Bearer on-set-42")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	ev := bufio.NewScanner(resp.Body)
	ev.Buffer(nil, 1<<20)
	var data string
	for data == "" && ev.Scan() {
		if d, ok := strings.CutPrefix(ev.Text(), "data: "); ok {
			data = d
		}
	}
	resp.Body.Close()
	require.NotContains(t, data, "0001-01-01", "no zero time in the first event")
	var st struct {
		Generated time.Time `json:"generated"`
	}
	require.NoError(t, json.Unmarshal([]byte(data), &st), data)
	require.False(t, st.Generated.IsZero(), data)

	dom := headless(t, chromium, base+"?token=on-set-42&until=3", "--dump-dom")
	text := pageText(dom)
	require.Contains(t, text, "second-unit", dom)
	require.Contains(t, text, "safe to format", "the main unit's card")
	require.Regexp(t, `copying.*· [\d.]+ (B|kB|MB) of 2\.\d\d MB`, text, "the slow card's progress in decimal units")
	require.NotRegexp(t, rawFloat, text, "a figure printed raw")
	for _, bad := range []string{"0001-01-01", "Invalid Date", "NaN", "undefined"} {
		require.NotContains(t, text, bad)
	}
	require.Regexp(t, `Updated\s+\d{1,2}:\d\d:\d\d`, text, "the time the status was read")

	shot := filepath.Join(t.TempDir(), "dit-serve.png")
	if p := os.Getenv("DIT_SERVE_SCREENSHOT"); p != "" {
		shot = p
	}
	headless(t, chromium, base+"?token=on-set-42&until=2", "--screenshot="+shot, "--window-size=430,640")
	png, err := os.ReadFile(shot)
	require.NoError(t, err)
	require.True(t, bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")), "a PNG screenshot")
	require.Greater(t, len(png), 5000)

	require.NoError(t, srv.Process.Signal(syscall.SIGINT))
	require.NoError(t, srv.Wait(), serr.String())
}
