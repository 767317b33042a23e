package mhl

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
)

// hashLists lists the hash lists in a card's folder: "ascmhl" for an ASC
// MHL history, "v1" for each MHL v1.1 file.
func hashLists(t *testing.T, cardDir string) []string {
	t.Helper()
	ents, err := os.ReadDir(cardDir)
	require.NoError(t, err)
	var out []string
	for _, e := range ents {
		switch {
		case e.IsDir() && e.Name() == "ascmhl":
			out = append(out, "ascmhl")
		case !e.IsDir() && strings.HasSuffix(e.Name(), ".mhl"):
			out = append(out, "v1")
		}
	}
	return out
}

// A job keeps its --mhl choice across a kill and a resume without --mhl;
// a resume with a different --mhl is refused, naming both.
func TestResumeKeepsMHLChoice(t *testing.T) {
	for _, tc := range []struct {
		mhl  string
		want []string
	}{
		{"none", nil},
		{"v1", []string{"v1"}},
	} {
		t.Run(tc.mhl, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			db := filepath.Join(dir, "catalog.db")
			cards := filepath.Join(dir, "cards")
			r := e2e.Dit(t, db, "testdata", "cards", "--out", cards, "--size", "12MB", "--style", "clips", "--seed", "3")
			require.Equal(t, 0, r.Code, r.Stderr)
			d1, d2 := filepath.Join(dir, "raid"), filepath.Join(dir, "shuttle")
			require.NoError(t, os.Mkdir(d1, 0o755))
			require.NoError(t, os.Mkdir(d2, 0o755))
			a, b := filepath.Join(cards, "A001"), filepath.Join(cards, "A002")
			jobID := e2e.StartAndKill(t, db, 2, "--name", "day01", "--mhl", tc.mhl, "--throttle", "4MB/s", "-d", d1, "-d", d2, a, b)

			other := "asc"
			bad := e2e.Dit(t, db, "offload", "--resume", e2e.Itoa(jobID), "--mhl", other)
			require.Equal(t, 2, bad.Code, bad.Stdout+bad.Stderr)
			require.Contains(t, bad.Stderr, "started with --mhl "+tc.mhl+", not --mhl "+other)
			require.Contains(t, bad.Stderr, "resume without --mhl")

			res := e2e.Dit(t, db, "offload", "--json", "--resume", e2e.Itoa(jobID))
			require.Equal(t, 0, res.Code, "resume: %s\n%s", res.Stderr, e2e.Tail(res.Stdout))
			for _, d := range []string{d1, d2} {
				for _, c := range []string{"A001", "A002"} {
					cardDir := filepath.Join(d, "day01", c)
					got := e2e.WithoutHistory(e2e.Tree(t, cardDir))
					for k := range got {
						if strings.HasSuffix(k, ".mhl") && !strings.Contains(k, "/") {
							delete(got, k)
						}
					}
					require.Equal(t, e2e.Footage(e2e.Tree(t, filepath.Join(cards, c))), got, cardDir)
					require.Equal(t, tc.want, hashLists(t, cardDir), "hash lists in %s after the resume", cardDir)
				}
			}
			// The same choice given again is accepted.
			again := e2e.Dit(t, db, "offload", "--json", "--resume", e2e.Itoa(jobID), "--mhl", tc.mhl)
			require.Equal(t, 0, again.Code, again.Stdout+again.Stderr)

			// dit jobs and dit job show name the job's choice.
			jobs := e2e.Dit(t, db, "jobs", "--json")
			require.Equal(t, 0, jobs.Code, jobs.Stderr)
			var list []struct {
				JobID int64  `json:"job_id"`
				MHL   string `json:"mhl"`
			}
			require.NoError(t, json.Unmarshal([]byte(jobs.Stdout), &list))
			require.Len(t, list, 1)
			require.Equal(t, jobID, list[0].JobID)
			require.Equal(t, tc.mhl, list[0].MHL, "dit jobs --json")
			jobs = e2e.Dit(t, db, "jobs")
			require.Equal(t, 0, jobs.Code, jobs.Stderr)
			lines := strings.Split(strings.TrimSpace(jobs.Stdout), "\n")
			require.Len(t, lines, 2, jobs.Stdout)
			require.Equal(t, "MHL", strings.Fields(lines[0])[6], "dit jobs header: %s", lines[0])
			require.Regexp(t, `\s`+tc.mhl+`\s+A001: safe to format`, lines[1], "dit jobs")
			show := e2e.Dit(t, db, "job", "show", e2e.Itoa(jobID), "--json")
			require.Equal(t, 0, show.Code, show.Stderr)
			var s struct {
				MHL string `json:"mhl"`
			}
			require.NoError(t, json.Unmarshal([]byte(show.Stdout), &s))
			require.Equal(t, tc.mhl, s.MHL, "dit job show --json")
			show = e2e.Dit(t, db, "job", "show", e2e.Itoa(jobID))
			require.Equal(t, 0, show.Code, show.Stderr)
			require.Contains(t, show.Stdout, ", hash lists (--mhl) "+tc.mhl+"\n", "dit job show")
		})
	}
}
