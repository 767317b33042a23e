package catalog

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestCosts(t *testing.T) { eachBackend(t, testCosts) }

func testCosts(t *testing.T, b backend) {
	c, err := Open(b.loc(t))
	require.NoError(t, err)
	defer c.Close()
	got, err := c.RecentCosts("fs-uuid:never", 5)
	require.NoError(t, err)
	require.Empty(t, got)
	f := func(v float64) *float64 { return &v }
	day := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	for i := range 4 {
		k := &Costs{Volume: "fs-uuid:1234", Kind: "folder", Path: "/media/dit/SHUTTLE", T: day.Add(time.Duration(i) * time.Hour),
			Station: "cart-1", JobUUID: "u1", Card: "A001", Hop: 1, Files: 3000 + i, Bytes: 1e9,
			PerFile: f(0.002 * float64(i+1)), Start: f(0.1), Fixed: f(0.5), Detail: "byte rate 0.5 GB/s"}
		if i == 3 {
			k.PerFile = nil // not measured
		}
		require.NoError(t, c.AddCosts(k))
		require.NotZero(t, k.ID)
	}
	require.NoError(t, c.AddCosts(&Costs{Volume: "rclone:s3", Kind: "cloud", Path: "rclone:s3:shots", T: day, Files: 1, Bytes: 5, Fixed: f(6)}))
	got, err = c.RecentCosts("fs-uuid:1234", 2)
	require.NoError(t, err)
	require.Len(t, got, 2, "the newest two")
	require.Equal(t, 3003, got[0].Files)
	require.Nil(t, got[0].PerFile)
	require.Nil(t, got[0].VerifyPerFile)
	require.InDelta(t, 0.006, *got[1].PerFile, 1e-12)
	require.InDelta(t, 0.5, *got[1].Fixed, 1e-12)
	require.Equal(t, day.Add(2*time.Hour), got[1].T.UTC())
	require.Equal(t, "byte rate 0.5 GB/s", got[1].Detail)
	cl, err := c.RecentCosts("rclone:s3", 5)
	require.NoError(t, err)
	require.Len(t, cl, 1)
	require.Equal(t, 1, cl[0].Hop, "hop 1 when not given")
}
