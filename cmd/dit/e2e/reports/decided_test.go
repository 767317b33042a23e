package reports

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
	"github.com/dit-org/dit/internal/offload"
)

// The verdict comes first: the summary with every card's verdict is
// printed the moment the last card is decided, before the reports are
// written (and listed); in the event stream job_decided comes before
// the reports event, and says what the final summary says.
func TestVerdictBeforeTheReports(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "c.db")
	cards := filepath.Join(dir, "cards")
	r := e2e.Dit(t, db, "testdata", "cards", "--out", cards, "--cards", "2", "--size", "4MB", "--seed", "5")
	require.Equal(t, 0, r.Code, r.Stderr)
	d1 := filepath.Join(dir, "d1")
	require.NoError(t, os.Mkdir(d1, 0o755))

	r = e2e.Dit(t, db, "offload", "--name", "day", "-d", d1, filepath.Join(cards, "A001"), filepath.Join(cards, "A002"))
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	out := r.Stdout
	safe, reports := strings.Index(out, "[SAFE] A002"), strings.Index(out, "\nReports:")
	require.Positive(t, safe, out)
	require.Positive(t, reports, out)
	require.Less(t, safe, reports, "the verdicts are printed before the reports are listed")
	require.Less(t, strings.Index(out, "The verdicts above are final"), reports)
	require.Equal(t, 1, strings.Count(out, `Job 1 "day"`), "the summary once:\n%s", out)

	d2 := filepath.Join(dir, "d2")
	require.NoError(t, os.Mkdir(d2, 0o755))
	r = e2e.Dit(t, db, "offload", "--json", "--again", "--name", "day2", "-d", d2, filepath.Join(cards, "A001"))
	require.Equal(t, 0, r.Code, r.Stderr)
	var decided *offload.Summary
	var final struct {
		Type string `json:"type"`
		offload.Summary
	}
	sawReports := false
	sc := bufio.NewScanner(strings.NewReader(r.Stdout))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var ev offload.Event
		require.NoError(t, json.Unmarshal(sc.Bytes(), &ev))
		switch ev.Type {
		case offload.EvDecided:
			require.False(t, sawReports, "job_decided comes before the reports")
			decided = ev.Job
		case "reports":
			sawReports = true
		case "summary":
			require.NoError(t, json.Unmarshal(sc.Bytes(), &final))
		}
	}
	require.True(t, sawReports)
	require.NotNil(t, decided, "a job_decided event")
	require.Equal(t, final.Status, decided.Status, "the decided state is the final one")
	require.Equal(t, final.ExitCode, decided.ExitCode)
	require.Len(t, decided.Cards, 1)
	require.Equal(t, final.Cards[0].Status, decided.Cards[0].Status)
	require.True(t, decided.Cards[0].SafeToFormat)
}
