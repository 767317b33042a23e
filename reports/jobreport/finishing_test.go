package jobreport

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
)

// The reports are written while the job is "finishing" (every card ended,
// the process still at work): their state is the verdict read model's,
// done, never the stored "finishing", in the PDF header and the JSON.
func TestReportOfAFinishingJobSaysDone(t *testing.T) {
	cat, id := cascadeFixture(t)
	require.NoError(t, cat.SetJobState(id, catalog.JobFinishing, at(1040), ""))
	j, err := cat.Job(id)
	require.NoError(t, err)
	require.True(t, j.Active, "a process at work on it (another host's)")
	r, err := Build(cat, id, Options{Now: func() time.Time { return generated }})
	require.NoError(t, err)
	require.Equal(t, "done", r.Job.State)
	pages := pdfAllText(t, writePDF(t, r))
	require.Contains(t, pages[0], "Job 1 (done)")
	for _, p := range pages {
		require.NotContains(t, p, "finishing")
	}
}
