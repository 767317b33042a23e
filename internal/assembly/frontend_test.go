package assembly

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
)

// A job's proxies in words, as dit job show and dit-gui's History say
// them: made first, each state with proxies; nothing for none.
func TestProxyCount(t *testing.T) {
	cat, err := catalog.Open(filepath.Join(t.TempDir(), "c.db"))
	require.NoError(t, err)
	defer cat.Close()
	j := &catalog.Job{Name: "d", State: catalog.JobDone, Hashes: "xxh64", VerifyMode: "dest", VerifyHashes: "fastest",
		Layout: "{job}/{card}", OnConflict: "fail", Started: time.Now()}
	require.NoError(t, cat.CreateJob(j))
	k := &catalog.Card{JobID: j.ID, Label: "A001", Path: "/cards/A001", State: "verified"}
	require.NoError(t, cat.AddCard(k))
	n, err := ProxyCount(cat, j.ID)
	require.NoError(t, err)
	require.Empty(t, n, "no proxies asked")

	// Asked, none recorded: said once the job ended, not while it runs.
	jp := &catalog.Job{Name: "p", State: catalog.JobRunning, Hashes: "xxh64", VerifyMode: "dest", VerifyHashes: "fastest",
		Layout: "{job}/{card}", OnConflict: "fail", Started: time.Now(), Proxies: "h264,burnin"}
	require.NoError(t, cat.CreateJob(jp))
	n, err = ProxyCount(cat, jp.ID)
	require.NoError(t, err)
	require.Empty(t, n, "running: its proxies may still come")
	require.NoError(t, cat.SetJobState(jp.ID, catalog.JobDone, time.Now(), ""))
	n, err = ProxyCount(cat, jp.ID)
	require.NoError(t, err)
	require.Equal(t, "none made (the job asked for h264,burnin)", n)
	add := func(clip, dest, st string) {
		require.NoError(t, cat.AddProxy(&catalog.Proxy{JobID: j.ID, CardID: k.ID, Clip: clip, Dest: dest, Preset: "h264", State: st, MadeAt: time.Now()}))
	}
	add("c1", "/raid", catalog.ProxyMade)
	n, err = ProxyCount(cat, j.ID)
	require.NoError(t, err)
	require.Equal(t, "1 made for 1 clip", n)
	// 8 clips, each made on 2 destinations (one of them a cloud one),
	// and one clip whose proxy failed: 16 proxies for 8 clips, not "16
	// made" as if 16 clips.
	for i := 2; i <= 8; i++ {
		add(fmt.Sprintf("c%d", i), "/raid", catalog.ProxyMade)
	}
	for i := 1; i <= 8; i++ {
		add(fmt.Sprintf("c%d", i), "rclone:s3:rushes/px", catalog.ProxyMade)
	}
	add("c9", "", catalog.ProxyFailed)
	n, err = ProxyCount(cat, j.ID)
	require.NoError(t, err)
	require.Equal(t, "16 made for 8 clips on 2 destinations, 1 failed", n)
	require.Equal(t, "h264,burnin", ProxySpec("h264", true))
	require.Equal(t, "", ProxySpec("", true))
	require.Contains(t, ProxyPresetList(), "prores-proxy")
}
