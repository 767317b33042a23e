package summary

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
)

// A job that moved nothing has no rate.
func TestNothingMovedHasNoRate(t *testing.T) {
	a := activity(nil, nil, []catalog.Run{{Seq: 1, Started: time.Unix(100, 0), Finished: time.Unix(160, 0)}}, nil)
	require.Zero(t, a.EndToEndTBPerHour())
	require.Zero(t, a.CopyTBPerHour())
	require.Zero(t, a.VerifyTBPerHour())
	require.Equal(t, time.Minute, a.Active)
}
