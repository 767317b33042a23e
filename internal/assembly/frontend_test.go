package assembly

import (
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
	for _, st := range []string{catalog.ProxyFailed, catalog.ProxyMade, catalog.ProxyMade} {
		require.NoError(t, cat.AddProxy(&catalog.Proxy{JobID: j.ID, CardID: k.ID, Clip: "c", Dest: "/raid", Preset: "h264", State: st, MadeAt: time.Now()}))
	}
	n, err = ProxyCount(cat, j.ID)
	require.NoError(t, err)
	require.Equal(t, "2 made, 1 failed", n)
	require.Equal(t, "h264,burnin", ProxySpec("h264", true))
	require.Equal(t, "", ProxySpec("", true))
	require.Contains(t, ProxyPresetList(), "prores-proxy")
}
