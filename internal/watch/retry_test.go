package watch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/assembly"

	"github.com/dit-org/dit/internal/offload"
)

// runningJob is a job the watch runs, as far as a card that appears goes.
type runningJob struct {
	retryErr error
	mu       sync.Mutex
	added    []string
}

func (j *runningJob) ID() int64 { return 7 }
func (j *runningJob) AddCard(path string) (string, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.added = append(j.added, path)
	return filepath.Base(path), nil
}
func (j *runningJob) RetryCard(string) error          { return j.retryErr }
func (j *runningJob) CardRemoved(string, string) bool { return false }
func (j *runningJob) Run(context.Context) (*offload.Summary, error) {
	return nil, errors.New("not run in this test")
}

// A card that appears while a job runs is first offered to the job as a
// card coming back (RetryCard); the engine's "not in the job" (by its
// sentinel error, not its text) makes it join instead; any other refusal
// is said as an error and the card does not join.
func TestAppearedCardJoinsOrRetries(t *testing.T) {
	root := t.TempDir()
	card := filepath.Join(root, "A001")
	require.NoError(t, os.MkdirAll(filepath.Join(card, "DCIM", "100CANON"), 0o755))
	preset := &Preset{Spec: assembly.Spec{Dests: []string{filepath.Join(root, "RAID")}}}
	for _, tc := range []struct {
		retryErr error
		action   Action
		joined   bool
	}{
		{fmt.Errorf("cannot retry %s in job 7: %w", card, offload.ErrCardNotInJob), Joined, true},
		{fmt.Errorf("cannot retry %s: %w", card, offload.ErrNotRunning), Joined, true},
		{errors.New("card A001 is still copying in job 7"), Errored, false},
		{errors.New("card " + card + " is not in job 7"), Errored, false}, // the text alone means nothing
		{nil, Retried, false},
	} {
		job := &runningJob{retryErr: tc.retryErr}
		var said []Event
		w := &Watcher{Preset: preset, Say: func(e Event) { said = append(said, e) }}
		w.vols, w.unfinished, w.job = map[string]Volume{}, map[string]int64{}, job
		w.appeared(context.Background(), Volume{Path: card, Label: "A001"})
		require.Len(t, said, 1, "%v", tc.retryErr)
		require.Equal(t, tc.action, said[0].Action, "%v: %s", tc.retryErr, said[0].Message)
		if tc.joined {
			require.Equal(t, []string{card}, job.added)
		} else {
			require.Empty(t, job.added)
		}
	}
}
