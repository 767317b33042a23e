package main

import (
	"bytes"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
)

// dit job show's proxies line: a job that asked for proxies and has none
// says so, without pointing at a list that is empty; one with proxies
// points at --proxies.
func TestJobShowProxyLine(t *testing.T) {
	cat, err := catalog.Open(filepath.Join(t.TempDir(), "c.db"))
	require.NoError(t, err)
	defer cat.Close()
	j := &catalog.Job{Name: "p", State: catalog.JobRunning, Hashes: "xxh64", VerifyMode: "dest", VerifyHashes: "fastest",
		Layout: "{job}/{card}", OnConflict: "fail", Started: time.Now(), Proxies: "h264"}
	require.NoError(t, cat.CreateJob(j))
	require.NoError(t, cat.SetJobState(j.ID, catalog.JobDone, time.Now(), ""))
	var b bytes.Buffer
	writeProxyCount(&b, cat, j.ID, nil)
	require.Equal(t, "\nProxies: none made (the job asked for h264)\n", b.String())

	k := &catalog.Card{JobID: j.ID, Label: "A001", Path: "/cards/A001", State: "verified"}
	require.NoError(t, cat.AddCard(k))
	require.NoError(t, cat.AddProxy(&catalog.Proxy{JobID: j.ID, CardID: k.ID, Clip: "c", Dest: "/raid", Preset: "h264", State: catalog.ProxyMade, MadeAt: time.Now()}))
	b.Reset()
	writeProxyCount(&b, cat, j.ID, nil)
	require.Equal(t, "\nProxies: 1 made for 1 clip (dit job show 1 --proxies lists them)\n", b.String())
}
