package catalog

import (
	"path/filepath"
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
	other := &Card{JobID: j.ID, Seq: 1, Label: "A024", Path: "/cards/A024", State: "verified"}
	require.NoError(t, c.AddCard(other))
	third := Proxy{JobID: j.ID, CardID: other.ID, Clip: "c", Preset: "h264", State: ProxyFailed, MadeAt: at}
	require.NoError(t, c.AddProxy(&third))
	var mine []Proxy
	require.NoError(t, c.EachCardProxy(j.ID, k.ID, func(p Proxy) error { mine = append(mine, p); return nil }))
	require.Equal(t, got, mine, "the card's own, not the other card's")
	none, err := c.Proxies(j.ID + 1)
	require.NoError(t, err)
	require.Empty(t, none)
	require.NoError(t, c.DeleteJob(j.ID))
	got, err = c.Proxies(j.ID)
	require.NoError(t, err)
	require.Empty(t, got)
}

// A job's proxies go with it to the shared catalog (dit catalog push): a
// cloud destination's and a local one's, with their hashes and how they
// were verified, their cards' ids mapped to the target's; pushed again,
// they are held once. The cart is a SQLite file; the shared catalog each
// backend (PostgreSQL: skipped, saying why, without a server).
func TestProxiesPush(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		cart := open(t, filepath.Join(t.TempDir(), "cart.db"))
		shared := open(t, b.loc(t))
		fillJob(t, shared, "lab-job") // ids differ between the two
		j := fillJob(t, cart, "day07")
		cards, err := cart.Cards(j.ID)
		require.NoError(t, err)
		var sums hashing.Sums
		sums.Set(hashing.XXH64, "0123456789abcdef")
		sums.Set(hashing.MD5, "00112233445566778899aabbccddeeff")
		at := time.Date(2026, 11, 27, 14, 0, 0, 0, time.UTC)
		rows := []Proxy{
			{JobID: j.ID, CardID: cards[0].ID, Clip: "A001C001", Source: "/raid/day07/A001/A001C001.mov", Dest: "/raid",
				Path: "proxies/day07/A001/A001C001.mp4", Preset: "h264", TCStart: "10:00:00:00", Sums: sums, Size: 4321, State: ProxyMade, MadeAt: at},
			{JobID: j.ID, CardID: cards[0].ID, Clip: "A001C001", Source: "/raid/day07/A001/A001C001.mov", Dest: "rclone:s3:rushes/show",
				Path: "proxies/day07/A001/A001C001 (2).mp4", Preset: "h264", TCStart: "10:00:00:00", Sums: sums, Size: 4321, State: ProxyMade,
				MadeAt: at, VerifyAlgos: "s3-etag:md5"},
			{JobID: j.ID, CardID: cards[0].ID, Clip: "場景 🎬", Dest: "rclone:s3:rushes/show", Preset: "h264", State: ProxyFailed,
				Error: "rclone copyto: exit status 1", MadeAt: at},
		}
		for i := range rows {
			require.NoError(t, cart.AddProxy(&rows[i]))
		}
		r, err := cart.PushJob(j.ID, shared)
		require.NoError(t, err)
		require.Equal(t, 3, r.Proxies)
		require.Contains(t, r.String(), "3 proxies")
		require.NoError(t, cart.SetJobState(j.ID, JobDone, at, ""))
		r2, err := cart.PushJob(j.ID, shared)
		require.NoError(t, err)
		require.Equal(t, r.ID, r2.ID)
		require.False(t, r2.Unchanged)

		got, err := shared.Proxies(r.ID)
		require.NoError(t, err)
		require.Len(t, got, 3, "pushed twice, held once")
		there, err := shared.Cards(r.ID)
		require.NoError(t, err)
		for i := range got {
			want := rows[i]
			want.ID, want.JobID, want.CardID = got[i].ID, r.ID, there[0].ID
			require.Equal(t, want, got[i])
		}
		require.Equal(t, "A001", there[0].Label)
		lab, err := shared.Proxies(1)
		require.NoError(t, err)
		require.Empty(t, lab, "the lab's own job has none")
	})
}
