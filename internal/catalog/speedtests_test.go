package catalog

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestSpeedTests(t *testing.T) { eachBackend(t, testSpeedTests) }

func testSpeedTests(t *testing.T, b backend) {
	c, err := Open(b.loc(t))
	require.NoError(t, err)
	defer c.Close()
	got, err := c.LatestSpeedTest("fs-uuid:never", false)
	require.NoError(t, err)
	require.Nil(t, got)
	day1 := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	old := &SpeedTest{Volume: "fs-uuid:1234", Kind: "folder", Path: "/media/dit/SHUTTLE", T: day1, Link: "usb3.2-gen2",
		Size: 64e9, Block: 1 << 20, Streams: 1, Write: 0.9e9, Read: 1.0e9, Sustained: 0.45e9, CliffAt: 21e9, Direct: true, Detail: `{"x":1}`}
	require.NoError(t, c.AddSpeedTest(old))
	newer := *old
	newer.T, newer.Path, newer.Write, newer.Sustained, newer.CliffAt, newer.Direct = day1.Add(48*time.Hour), "/media/other/SHUTTLE", 0.8e9, 0, 0, false
	require.NoError(t, c.AddSpeedTest(&newer))
	other := *old
	other.Volume, other.T = "array:abcd", day1.Add(72*time.Hour)
	require.NoError(t, c.AddSpeedTest(&other))

	card := *old
	card.T, card.Kind, card.Write, card.Sustained = day1.Add(50*time.Hour), "card", 0, 0
	require.NoError(t, c.AddSpeedTest(&card))
	got, err = c.LatestSpeedTest("fs-uuid:1234", false)
	require.NoError(t, err)
	require.Equal(t, card.ID, got.ID, "the latest of any kind")
	got, err = c.LatestSpeedTest("fs-uuid:1234", true)
	require.NoError(t, err)
	require.NotNil(t, got)
	require.Equal(t, newer.ID, got.ID)
	require.Equal(t, "/media/other/SHUTTLE", got.Path)
	require.Equal(t, day1.Add(48*time.Hour), got.T)
	require.Equal(t, 0.8e9, got.Write)
	require.False(t, got.Direct)
	require.Equal(t, int64(64e9), got.Size)
	got, err = c.LatestSpeedTest("array:abcd", true)
	require.NoError(t, err)
	require.True(t, got.Direct)
	require.Equal(t, 0.45e9, got.Sustained)
	require.Equal(t, int64(21e9), got.CliffAt)
	require.Equal(t, `{"x":1}`, got.Detail)
}
