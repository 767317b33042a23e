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
	require.Empty(t, n)
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
