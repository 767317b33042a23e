package summary

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/verdict"
)

// A cascade's second run whose cloud history this job wrote already, with
// more to write since (HistoryWritten): its verdict says the copies are
// checked and what to do, not that a resume writes the history; one whose
// history waits for a failed file says that.
func TestCascadeCloudHistoryVerdicts(t *testing.T) {
	free := time.Date(2026, 11, 27, 9, 30, 0, 0, time.Local)
	j := &catalog.Job{ID: 7}
	facts := verdict.Facts{JobStored: catalog.JobFailed}
	for _, tc := range []struct {
		err    string
		failed int
		want   string
	}{
		{"hash lists not written in rclone:s3:x/day01/A001: uploading the ASC MHL history to rclone:s3:x/day01/A001: rclone:s3:x/day01/A001/ascmhl " + HistoryWritten + " once every file was verified ...", 0,
			"Second run: copies checked, but the card's cloud history, written by this job before, cannot list them all (card free since 09:30:00): NOT safe to format by this job: keep the card (offload it again to another cloud folder)"},
		{"2 file(s) failed; " + HistoryWaits + "rclone:s3:x/day01/A001: 2 files not verified there (a.mov, b.mov): ...", 2,
			"Second run FAILED (card free since 09:30:00): 2 files not verified in the cloud, so the card's history is not written there: NOT safe to format: keep the card (dit offload --resume 7 uploads them and writes the history)"},
	} {
		cs := &CardSummary{FirstRun: verdict.Verified}
		k := &catalog.Card{DoneAt: free}
		h := &catalog.Card{State: catalog.CardSealing, Error: tc.err}
		cascadeVerdict(j, facts, cs, k, h, func(*catalog.Card) (CardSummary, error) {
			return CardSummary{CardFigures: CardFigures{Failed: tc.failed}, FirstRun: verdict.Failed}, nil
		})
		require.Equal(t, tc.want, cs.Verdict)
		require.False(t, cs.SafeToFormat)
	}
}
