package report

import (
	"testing"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
)

// kill -9 at every step of writing the reports and recording the job's
// end, on a job to a plain folder and a RAID 4 array, then resume: the
// card is never "safe to format" without a history that dit and the ASC
// reference tool accept, the resume finishes the job (one generation per
// card folder, no temps left, reports written), and a resume after that
// writes nothing.
func TestCrashAtEveryReportStep(t *testing.T) {
	if testing.Short() {
		t.Skip("kills dit at every report step")
	}
	e2e.CrashAtEveryStep(t, e2e.ReportStep, []string{
		"job: finishing recorded#1", "store: temp written dit-report_jobN_dayNN.pdf#2", "job: done recorded#1"})
}
