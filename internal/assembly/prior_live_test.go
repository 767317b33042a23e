package assembly

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/live"
	"github.com/dit-org/dit/internal/plan"
	"github.com/dit-org/dit/internal/sched"
)

// A card re-planned away once copied keeps the prior the plan gave its
// runs: its read-back and hash lists, and a cascade's second run not yet
// started, are still estimated from the plan (their "safe in" was
// unknown from the card's copy to their own first measurements). A card
// no plan ever had gets none.
func TestPlanPriorOfACardCopied(t *testing.T) {
	top, err := plan.ParseTopology("t.yaml", []byte(`
sources:
  - {name: A001, media: cfast2, size: 11GB}
  - {name: A002, media: cfast2, size: 22GB}
destinations:
  - {name: raid, write_rate: 2.2GB/s, read_rate: 2.6GB/s}
  - {name: s1, write_rate: 0.5GB/s, read_rate: 0.5GB/s, run: 2}
`))
	require.NoError(t, err)
	s, err := sched.New(sched.Config{Topology: top, Observe: true})
	require.NoError(t, err)
	require.NoError(t, s.Start(nil, 0, []sched.Card{{Label: "A001", Bytes: 11e9}, {Label: "A002", Bytes: 22e9}}))
	start := s.RunPlan()
	want1, want2 := priorIn(start, "A001", 1), priorIn(start, "A001", 2)
	require.Greater(t, want1.Rate, 0.0)
	require.Greater(t, want2.Rate, 0.0, "the second run's planned rate")

	prior := planPrior(s)
	require.Greater(t, prior("A002", 1).Rate, 0.0, "asked of the other card only, before")
	require.NoError(t, s.CardCopied(0))
	_, still := s.RunPlan().Prior("A001")
	require.False(t, still, "the plan in force no longer has A001")
	require.Equal(t, want1, prior("A001", 1))
	require.Equal(t, want2, prior("A001", 2))
	require.Equal(t, priorIn(s.RunPlan(), "A002", 1), prior("A002", 1), "A002 from the plan in force")
	require.Equal(t, live.Prior{}, prior("B001", 1), "a card no plan had")
}
