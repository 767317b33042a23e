package catalog

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/hashing"
)

// Proxies round-trip on both backends (a made one with its hashes, a
// failed one with ffmpeg's line), by card in the order recorded, and go
// with their job when it is deleted.
func TestProxies(t *testing.T) { eachBackend(t, testProxies) }

func testProxies(t *testing.T, b backend) {
	c := open(t, b.loc(t))
	j := &Job{Name: "day03", State: JobDone, Hashes: "xxh64,md5", VerifyMode: "dest", VerifyHashes: "fastest",
		Layout: "{job}/{card}", OnConflict: "fail", Started: time.Now()}
	require.NoError(t, c.CreateJob(j))
	k := &Card{JobID: j.ID, Label: "A023", Path: "/cards/A023", State: "verified"}
	require.NoError(t, c.AddCard(k))
	var sums hashing.Sums
	sums.Set(hashing.XXH64, "0123456789abcdef")
	sums.Set(hashing.MD5, "00112233445566778899aabbccddeeff")
	at := time.Date(2026, 11, 27, 14, 0, 0, 0, time.UTC)
	made := Proxy{JobID: j.ID, CardID: k.ID, Clip: "場景🎬", Source: "/raid/day03/A023/場景🎬.mov", Dest: "/raid",
		Path: "proxies/day03/A023/場景🎬.mov", Preset: "prores-proxy,burnin", TCStart: "10:00:01:00", Sums: sums, Size: 1234,
		State: ProxyMade, MadeAt: at}
	failed := Proxy{JobID: j.ID, CardID: k.ID, Clip: "bad", Dest: "/raid", Preset: "prores-proxy,burnin", State: ProxyFailed,
		Error: "Error opening input files: Invalid data found when processing input", MadeAt: at}
	require.NoError(t, c.AddProxy(&made))
	require.NoError(t, c.AddProxy(&failed))
	got, err := c.Proxies(j.ID)
	require.NoError(t, err)
	require.Len(t, got, 2)
	made.ID, failed.ID = got[0].ID, got[1].ID
	require.Equal(t, made, got[0])
	require.Equal(t, failed, got[1])
	none, err := c.Proxies(j.ID + 1)
	require.NoError(t, err)
	require.Empty(t, none)
	require.NoError(t, c.DeleteJob(j.ID))
	got, err = c.Proxies(j.ID)
	require.NoError(t, err)
	require.Empty(t, got)
}
