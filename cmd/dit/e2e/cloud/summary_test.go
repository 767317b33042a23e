//go:build unix

package cloud

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
)

// A job with only cloud destinations writes no reports folder: its
// summary says so and names the command that writes them. The same card
// offloaded again to the folder that holds it sends nothing: its summary,
// dit job show and dit jobs say "nothing copied", not a bare "-".
func TestCloudOnlySummaryReportsAndNothingCopied(t *testing.T) {
	t.Parallel()
	_, bk, env, dir, card := setup(t, "2MB", "clips")
	db := filepath.Join(dir, "catalog.db")
	r := e2e.RunDit(t, env, "offload", "--name", "day01", "-d", "rclone:ditcloud:"+bk+"/again", card)
	require.Equal(t, 0, r.Code, "%s\n%s", r.Stderr, e2e.Tail(r.Stdout))
	require.Contains(t, r.Stdout, "\nReports: not written (no folder destination): dit report 1 --db "+db+" --out DIR writes them\n")
	require.NotContains(t, r.Stdout, "nothing copied")
	require.Regexp(t, `Job 1 "day01" done in [^:]+: 17 files, [0-9.]+ [kM]B, [0-9.]+ TB/hour end to end\n`, r.Stdout)
	// The command it names writes them; the PDF says that is where the
	// CSV and JSON are.
	out := filepath.Join(dir, "rep")
	require.NoError(t, os.Mkdir(out, 0o755))
	rep := e2e.RunDit(t, env, "report", "1", "--out", out)
	require.Equal(t, 0, rep.Code, rep.Stderr)
	for _, ext := range []string{"csv", "json", "html", "pdf"} {
		require.FileExists(t, filepath.Join(out, "dit-report_job1_day01."+ext))
	}
	if _, err := exec.LookPath("pdftotext"); err == nil {
		txt, err := exec.Command("pdftotext", "-raw", filepath.Join(out, "dit-report_job1_day01.pdf"), "-").Output()
		require.NoError(t, err)
		flat := strings.Join(strings.Fields(string(txt)), " ")
		require.Contains(t, flat, "not written at the end of this job, which has no folder destination: dit report 1 writes them.")
		require.Contains(t, flat, "rclone:ditcloud:"+bk+"/again: verified by the storage's own MD5 (S3 ETag): 17 files; read back: 0 files")
	} else {
		t.Log("pdftotext not installed (poppler-utils): the PDF's words not checked")
	}

	r = e2e.RunDit(t, env, "offload", "--name", "day01", "-d", "rclone:ditcloud:"+bk+"/again", card)
	require.Equal(t, 0, r.Code, "%s\n%s", r.Stderr, e2e.Tail(r.Stdout))
	require.Regexp(t, `Job 2 "day01" done in [^:]+: 17 files, [0-9.]+ [kM]B, nothing copied\n`, r.Stdout)
	require.Regexp(t, `from \S+: 17 files, [0-9.]+ [kM]B, [0-9]+ skipped, 0 failed, nothing copied\n`, r.Stdout)
	require.NotContains(t, r.Stdout, "- TB/hour")

	show := e2e.RunDit(t, env, "job", "show", "2")
	require.Equal(t, 0, show.Code, show.Stderr)
	require.Contains(t, show.Stdout, ": 17 files, ")
	require.Contains(t, show.Stdout, ", nothing copied\n")
	jobs := e2e.RunDit(t, env, "jobs")
	require.Equal(t, 0, jobs.Code, jobs.Stderr)
	require.Regexp(t, regexp.MustCompile(`(?m)^2 +day01 +done .* nothing copied +asc `), jobs.Stdout)
}

// A cascade to the cloud: its second run sends the card's files and the
// first copy's hash lists (ascmhl/); its progress counts both, its
// summary the card's files and says how many hash-list files went with
// them, so that the two add up.
func TestCascadeSecondRunCountsItsHashLists(t *testing.T) {
	t.Parallel()
	_, bk, env, dir, card := setup(t, "2MB", "clips")
	r := e2e.RunDit(t, env, "offload", "--json", "--name", "day01", "-d", filepath.Join(dir, "raid"), "--then", "rclone:ditcloud:"+bk+"/casc", card)
	require.Equal(t, 0, r.Code, "%s\n%s", r.Stderr, e2e.Tail(r.Stdout))
	hist, err := os.ReadDir(filepath.Join(dir, "raid", "day01", "A001", "ascmhl"))
	require.NoError(t, err)
	require.Len(t, hist, 2, "the first copy's history: a manifest and the chain")
	var cards int
	for _, l := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
		var ev struct {
			Type     string `json:"type"`
			Progress *struct {
				Cards []struct {
					Hop   int `json:"hop"`
					Files int `json:"files"`
				} `json:"cards"`
			} `json:"progress"`
			Cards []struct {
				Files int `json:"files"`
				Then  *struct {
					Files         int `json:"files"`
					HashListFiles int `json:"hash_list_files"`
				} `json:"then"`
			} `json:"cards"`
		}
		require.NoError(t, json.Unmarshal([]byte(l), &ev), l)
		if ev.Progress != nil {
			for _, c := range ev.Progress.Cards {
				if c.Hop == 2 { // progress comes once a second: a small job may have none
					require.Equal(t, 17+len(hist), c.Files, "the second run's progress: the card's files and the history's")
				}
			}
		}
		if ev.Type == "summary" {
			cards++
			require.Equal(t, 17, ev.Cards[0].Files)
			require.Equal(t, 17, ev.Cards[0].Then.Files, "the card's files")
			require.Equal(t, len(hist), ev.Cards[0].Then.HashListFiles)
		}
	}
	require.Equal(t, 1, cards, "one summary")
	show := e2e.RunDit(t, env, "job", "show", "1")
	require.Equal(t, 0, show.Code, show.Stderr)
	require.Contains(t, show.Stdout, "(second run, verified): 17 files (and 2 of the first copy's hash lists), ")
}
