package assembly

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/sched"
)

// A job without a bus budget (no topology, limit or simulation) is
// planned all the same, from the volumes it finds: the plan is recorded
// beside what happened (what dit job show sets against the run) and the
// job is not held back by it; once it ends, what its destination cost
// it is measured for the next plans, whichever front end ran it.
func TestPlainJobRecordsItsPlanAndLearnsItsCosts(t *testing.T) {
	e := newEnv(t)
	card := e.folder("A001")
	for i := range 30 {
		p := filepath.Join(card, "CLIPS", fmt.Sprintf("F%03d.R3D", i))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(strings.Repeat(fmt.Sprint(i), 20_000+i)), 0o644))
	}
	dest := e.folder("RAID")
	p, j, sum := e.run(e.settings([]string{card}, []string{dest}))
	require.True(t, sum.Cards[0].SafeToFormat)
	require.Nil(t, j.Plan(), "a plan that is not enforced is not shown as the job's bus budget")
	require.Nil(t, p.opts.Limiter, "nothing holds a job without a bus budget back")

	plans, err := e.cat.Plans(j.ID())
	require.NoError(t, err)
	require.NotEmpty(t, plans, "the job's plan is recorded")
	require.Len(t, plans[0].Cards, 1)
	require.Equal(t, "A001", plans[0].Cards[0].Name)
	ks, err := e.cat.Cards(j.ID())
	require.NoError(t, err)
	require.Equal(t, ks[0].ID, plans[0].Cards[0].CardID)
	require.NotNil(t, plans[0].Cards[0].ETASeconds, "the plan has a time for the card")
	require.Positive(t, *plans[0].Cards[0].ETASeconds)

	require.NoError(t, j.LearnErr())
	costs, err := e.cat.RecentCosts(sched.CostVolume(dest), 5)
	require.NoError(t, err)
	require.NotEmpty(t, costs, "the job's costs are learned for the next plans")
	require.Equal(t, j.ID(), mustJobOf(t, e, costs[0].JobUUID))
}

func mustJobOf(t *testing.T, e *env, uuid string) int64 {
	js, err := e.cat.Jobs()
	require.NoError(t, err)
	for _, j := range js {
		if j.UUID == uuid {
			return j.ID
		}
	}
	t.Fatalf("no job of uuid %s", uuid)
	return 0
}
