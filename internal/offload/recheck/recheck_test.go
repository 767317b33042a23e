package recheck

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload/summary"
)

// recorded records, in a real catalog, a finished job that copied card
// A001's one file to a folder and verified it there, and writes that
// copy; it returns the catalog, the job, and the copy's path.
func recorded(t *testing.T, state string) (*catalog.Catalog, *catalog.Job, string) {
	t.Helper()
	dir := t.TempDir()
	cat, err := catalog.Open(filepath.Join(dir, "dit.db"))
	require.NoError(t, err)
	t.Cleanup(func() { cat.Close() })
	content := []byte("the card's only clip, as it was read")
	j := &catalog.Job{Name: "day01", State: state, Hashes: "xxh64", VerifyMode: "dest", VerifyHashes: "fastest", Layout: "{card}", MHL: "none", Started: time.Now()}
	require.NoError(t, cat.CreateJob(j))
	root := filepath.Join(dir, "raid")
	d := &catalog.Dest{JobID: j.ID, Path: root}
	require.NoError(t, cat.AddDest(d))
	k := &catalog.Card{JobID: j.ID, Label: "A001", Path: filepath.Join(dir, "A001"), State: summary.StateVerified}
	require.NoError(t, cat.AddCard(k))
	sums := hashing.Bytes([]hashing.Algo{hashing.XXH64}, content)
	cat.PutFile(&catalog.File{CardID: k.ID, Rel: "C001.mov", Size: int64(len(content)), Mtime: time.Now(), State: summary.StateVerified, Sums: sums})
	cat.PutCopy(k.ID, "C001.mov", &catalog.Copy{DestID: d.ID, Path: "A001/C001.mov", State: summary.StateVerified, Written: true, VerifyAlgos: "xxh64", VerifiedAt: time.Now()})
	require.NoError(t, cat.Flush())
	p := filepath.Join(root, "A001", "C001.mov")
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, content, 0o644))
	return cat, j, p
}

// dit verify reads a recorded copy back: whole, it verifies; with one
// byte changed, it fails naming the hash that differs, and the catalog
// then records the file failed, so no reader of it says the card is
// safe.
func TestJobReadsBackWhatTheJobRecorded(t *testing.T) {
	cat, j, p := recorded(t, catalog.JobDone)
	var got []Result
	ok, err := Job(context.Background(), cat, nil, j.ID, false, func(r Result) { got = append(got, r) })
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, []Result{{Card: "A001", Path: p, State: summary.StateVerified}}, got)

	b, err := os.ReadFile(p)
	require.NoError(t, err)
	b[3] ^= 1
	require.NoError(t, os.WriteFile(p, b, 0o644))
	got = nil
	ok, err = Job(context.Background(), cat, nil, j.ID, false, func(r Result) { got = append(got, r) })
	require.NoError(t, err)
	require.False(t, ok)
	require.Len(t, got, 1)
	require.Equal(t, summary.StateFailed, got[0].State)
	require.Contains(t, got[0].Error, "xxh64 differs")
	cards, err := cat.Cards(j.ID)
	require.NoError(t, err)
	files, err := cat.Files(cards[0].ID)
	require.NoError(t, err)
	require.Equal(t, summary.StateFailed, files[0].State)
	require.Contains(t, files[0].Error, "dit verify: copy at "+p)
}

// A job still running is not read back: its copies are still being
// written and recorded.
func TestJobRefusesARunningJob(t *testing.T) {
	cat, j, _ := recorded(t, catalog.JobRunning)
	_, err := Job(context.Background(), cat, nil, j.ID, false, nil)
	require.ErrorContains(t, err, "is still running")
}
