package offload

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/fsys"
)

// Reports that panic (or fail) never stop a job: the panic is recovered
// and named, the locks are released, the job ends done (every card is
// verified), and a resume writes the reports again.
func TestAfterJobPanicLeavesADoneJobThatResumes(t *testing.T) {
	e := newEnv(t)
	card := testCard(t, e.dir, "A001", map[string]string{"CLIP/A.mov": "aaaa", "CLIP/B.mov": "bbbbbb"})
	dest := e.dest("raid")
	o := e.opts([]string{card}, []string{dest})
	calls := 0
	o.AfterJob = func(context.Context, *Summary, fsys.FS) error {
		calls++
		var m map[string]int
		//lint:ignore SA5000 the test needs a runtime panic, as a bug in a report writer would make
		m["pdf"]++ // panics
		return nil
	}
	s, err := e.run(o)
	require.NoError(t, err)
	require.Equal(t, 1, calls)
	require.Equal(t, catalog.JobDone, s.State)
	require.Equal(t, ExitOK, s.ExitCode)
	require.Len(t, s.Warnings, 1)
	require.Contains(t, s.Warnings[0], "reports not written")
	require.Contains(t, s.Warnings[0], "crashed: assignment to entry in nil map")
	require.Contains(t, s.Warnings[0], "dit offload --resume 1")
	_, err = os.Stat(filepath.Join(dest, LockName))
	require.True(t, os.IsNotExist(err), "the lock is released")
	rec, err := e.cat.Job(s.JobID)
	require.NoError(t, err)
	require.Equal(t, catalog.JobDone, rec.State)

	// The resume writes the reports again, and then the job is done clean.
	o.AfterJob = func(context.Context, *Summary, fsys.FS) error { calls++; return nil }
	j, err := Resume(context.Background(), e.cat, s.JobID, o)
	require.NoError(t, err)
	s, err = j.Run(context.Background())
	require.NoError(t, err)
	require.Equal(t, 2, calls)
	require.Equal(t, catalog.JobDone, s.State)
	rec, err = e.cat.Job(s.JobID)
	require.NoError(t, err)
	require.Empty(t, rec.Error)
	_, err = os.Stat(filepath.Join(dest, LockName))
	require.True(t, os.IsNotExist(err))
}
