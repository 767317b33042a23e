package offload

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

// interrupted runs a throttled job of 12 files to two folders and stops
// it once 3 files are verified; it returns the job, its card and the
// copies the catalog records verified.
func interrupted(t *testing.T, e *env) (int64, string, int) {
	files := map[string]string{}
	for i := range 12 {
		files[fmt.Sprintf("CLIPS/C%02d.mov", i)] = bigContent(64_000, byte(i))
	}
	a := testCard(t, filepath.Join(e.dir, "c1"), "A001", files)
	o := e.opts([]string{a}, []string{e.dest("d1"), e.dest("d2")})
	o.BlockSize, o.Throttle = 16<<10, 400_000
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	verified := make(chan struct{}, 100)
	o.OnEvent = func(ev Event) {
		if ev.Type == EvFile && ev.State == StateVerified {
			verified <- struct{}{}
		}
	}
	j, err := New(ctx, o)
	require.NoError(t, err)
	go func() {
		for range 3 {
			<-verified
		}
		cancel()
	}()
	s, err := j.Run(ctx)
	require.NoError(t, err)
	require.Equal(t, ExitInterrupted, s.ExitCode)
	cards, err := e.cat.Cards(s.JobID)
	require.NoError(t, err)
	fs, err := e.cat.Files(cards[0].ID)
	require.NoError(t, err)
	n := 0
	for _, f := range fs {
		for _, cp := range f.Copies {
			if cp.State == StateVerified {
				n++
				if runtime.GOOS == "linux" || runtime.GOOS == "darwin" {
					require.NotEmpty(t, cp.Identity, "a verified copy's identity is recorded")
				}
				require.NotContains(t, cp.Identity, "~")
			}
		}
	}
	require.GreaterOrEqual(t, n, 6)
	return s.JobID, a, n
}

func resumeOf(t *testing.T, e *env, id int64) *Summary {
	j, err := Resume(context.Background(), e.cat, id, e.opts(nil, nil))
	require.NoError(t, err)
	s, err := j.Run(context.Background())
	require.NoError(t, err)
	require.Equal(t, ExitOK, s.ExitCode, "%+v", s.Cards[0])
	require.NotNil(t, s.Resumed)
	return s
}

// A copy verified with its identity recorded, and still that file, is
// trusted by a resume: nothing is re-checked.
func TestResumeTrustsAnUnchangedIdentity(t *testing.T) {
	e := newEnv(t)
	id, _, _ := interrupted(t, e)
	s := resumeOf(t, e, id)
	require.Zero(t, s.Resumed.Changed)
	require.Zero(t, s.Resumed.Unvouched)
}

// Copies with no identity recorded (an older dit, a medium without one)
// verified by a run that died (kill -9: the run never ended) are read
// again and compared with the card; after a run that ended (an
// interrupt) their size and time are trusted, as before.
func TestResumeRechecksWhatADeadRunVerifiedUnvouched(t *testing.T) {
	for _, died := range []bool{true, false} {
		t.Run(fmt.Sprintf("died=%v", died), func(t *testing.T) {
			e := newEnv(t)
			id, a, n := interrupted(t, e)
			_, err := e.cat.Exec(`UPDATE copies SET identity=''`)
			require.NoError(t, err)
			if died {
				_, err = e.cat.Exec(`UPDATE runs SET finished=NULL WHERE job_id=?`, id)
				require.NoError(t, err)
			}
			s := resumeOf(t, e, id)
			require.Zero(t, s.Resumed.Changed)
			if died {
				require.Equal(t, n, s.Resumed.Unvouched, "every copy the dead run verified is re-checked")
			} else {
				require.Zero(t, s.Resumed.Unvouched)
			}
			require.True(t, s.Cards[0].SafeToFormat)
			for _, d := range []string{"d1", "d2"} {
				require.Equal(t, treeHashes(t, a), treeHashes(t, filepath.Join(e.dir, d, "day01", "A001")))
			}
		})
	}
}
