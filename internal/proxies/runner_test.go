package proxies

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/offload"
)

// cardJob is a done job of one card A001 copied to the folder dest
// (its copy: copy, dest/Day01/A001), recorded in a SQLite catalog.
type cardJob struct {
	cat        *catalog.Catalog
	path       string // the catalog's
	job        *catalog.Job
	card       *catalog.Card
	dest, copy string
}

// newCardJob records the job with n files (gen(i): the i-th's path and
// state), each with a copy on dest in that state.
func newCardJob(t *testing.T, n int, gen func(int) (string, string)) *cardJob {
	t.Helper()
	dir := t.TempDir()
	c := &cardJob{path: filepath.Join(dir, "catalog.db"), dest: filepath.Join(dir, "dest")}
	c.copy = filepath.Join(c.dest, "Day01", "A001")
	require.NoError(t, os.MkdirAll(c.copy, 0o755))
	var err error
	c.cat, err = catalog.Open(c.path)
	require.NoError(t, err)
	t.Cleanup(func() {
		if c.cat != nil {
			c.cat.Close()
		}
	})
	c.job = &catalog.Job{Name: "Day01", Layout: "{job}/{card}", State: catalog.JobDone, Hashes: "xxh64", VerifyMode: "full",
		Started: time.Date(2026, 12, 4, 9, 0, 0, 0, time.UTC)}
	require.NoError(t, c.cat.CreateJob(c.job))
	d := &catalog.Dest{JobID: c.job.ID, Path: c.dest}
	require.NoError(t, c.cat.AddDest(d))
	c.card = &catalog.Card{JobID: c.job.ID, Seq: 1, Label: "A001", Path: "/cards/A001", State: offload.StateVerified}
	require.NoError(t, c.cat.AddCard(c.card))
	for i := range n {
		rel, state := gen(i)
		c.cat.PutFile(&catalog.File{CardID: c.card.ID, Rel: rel, Size: 512, State: state})
		c.cat.PutCopy(c.card.ID, rel, &catalog.Copy{DestID: d.ID, Path: rel, State: state})
	}
	c.card.Files = n
	c.cat.UpdateCard(c.card)
	require.NoError(t, c.cat.Flush())
	return c
}

// proxiesOf are the proxies recorded of the job, by clip.
func (c *cardJob) proxiesOf(t *testing.T) map[string]catalog.Proxy {
	t.Helper()
	ps, err := c.cat.Proxies(c.job.ID)
	require.NoError(t, err)
	out := map[string]catalog.Proxy{}
	for _, p := range ps {
		require.NotContains(t, out, p.Clip, "one proxy a clip")
		out[p.Clip] = p
	}
	return out
}

func newMaker(t *testing.T, c *cardJob, o Options) *Maker {
	t.Helper()
	tools(t)
	spec, err := ParseSpec("h264")
	require.NoError(t, err)
	o.Spec, o.Catalog = spec, c.cat
	m, err := New(context.Background(), o)
	require.NoError(t, err)
	return m
}

// A card's clips get their proxies by their files' states in the
// catalog: a movie whose files (its sidecar too) are all verified gets
// one, made from the copy; a movie whose sidecar failed, and a frame
// sequence with a frame only copied, get none ("not verified"); a
// verified frame sequence is skipped as one (no proxy of frames), its
// poster its first frame.
func TestCardProxiesByFileStates(t *testing.T) {
	files := []struct{ rel, state string }{
		{"CLIPS/A001C001.mov", offload.StateVerified},
		{"CLIPS/A001C001.xml", offload.StateVerified},
		{"CLIPS/A001C002.mov", offload.StateVerified},
		{"CLIPS/A001C002.xml", offload.StateFailed},
	}
	for i := range 30 {
		files = append(files, struct{ rel, state string }{fmt.Sprintf("A001C003/A001C003.%07d.ari", 86400+i), offload.StateVerified})
		state := offload.StateVerified
		if i == 17 {
			state = offload.StateCopied
		}
		files = append(files, struct{ rel, state string }{fmt.Sprintf("A001C004/A001C004.%07d.ari", 86400+i), state})
	}
	c := newCardJob(t, len(files), func(i int) (string, string) { return files[i].rel, files[i].state })
	require.NoError(t, os.MkdirAll(filepath.Join(c.copy, "CLIPS"), 0o755))
	clip(t, filepath.Join(c.copy, "CLIPS"), "A001C001.mov", "-f", "lavfi", "-i", "testsrc=d=0.4:s=320x180:r=25", "-c:v", "mpeg4")
	require.NoError(t, os.WriteFile(filepath.Join(c.copy, "CLIPS", "A001C001.xml"), []byte("<Clip/>"), 0o644))

	var counts [][2]int
	m := newMaker(t, c, Options{OnCount: func(label string, made, total int) {
		require.Equal(t, "A001", label)
		counts = append(counts, [2]int{made, total})
	}})
	require.NoError(t, m.Card(context.Background(), c.job.ID, c.card.ID))
	require.Equal(t, [][2]int{{0, 4}, {1, 4}, {2, 4}, {3, 4}, {4, 4}}, counts)

	ps := c.proxiesOf(t)
	require.Len(t, ps, 4)
	made := ps["A001C001"]
	require.Equal(t, catalog.ProxyMade, made.State, made.Error)
	require.Equal(t, "proxies/Day01/A001/A001C001.mp4", made.Path)
	require.Equal(t, filepath.Join(c.copy, "CLIPS", "A001C001.mov"), made.Source, "read from the copy")
	fi, err := os.Stat(filepath.Join(c.dest, filepath.FromSlash(made.Path)))
	require.NoError(t, err)
	require.Equal(t, made.Size, fi.Size())
	for _, name := range []string{"A001C002", "A001C004"} {
		require.Equal(t, catalog.ProxyFailed, ps[name].State, name)
		require.Equal(t, "not verified: a proxy is made only from a verified copy", ps[name].Error, name)
	}
	seq := ps["A001C003"]
	require.Equal(t, catalog.ProxySkipped, seq.State)
	require.Equal(t, "a frame sequence (ARRIRAW): no proxy made of frames yet", seq.Error)
	require.Equal(t, filepath.Join(c.copy, "A001C003", "A001C003.0086400.ari"), seq.Source, "its first frame")
}

// The proxies of a card of frames hold no file of it: the live heap's
// peak, sampled as each clip is counted and recorded, is the same for a
// card of N frames and of 10 N (ten sequences either way). Listing the
// card whole took a few hundred bytes a frame.
func TestCardProxiesMemoryFlatInFiles(t *testing.T) {
	n := 2000
	if testing.Short() {
		n = 500
	}
	var peaks []uint64
	for _, files := range []int{n, 10 * n} {
		c := newCardJob(t, files, func(i int) (string, string) {
			clip := i % 10
			return fmt.Sprintf("A001C%03d/A001C%03d.%07d.ari", clip, clip, i/10), offload.StateVerified
		})
		// Read as dit offload --resume reads it: not in the process
		// whose catalog writer recorded the files.
		require.NoError(t, c.cat.Close())
		var err error
		c.cat, err = catalog.Open(c.path)
		require.NoError(t, err)

		var mu sync.Mutex
		var peak uint64
		sample := func() {
			mu.Lock()
			defer mu.Unlock()
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
		}
		m := newMaker(t, c, Options{
			OnCount: func(string, int, int) { sample() },
			OnProxy: func(catalog.Proxy) { sample() },
		})
		sample()
		require.NoError(t, m.Card(context.Background(), c.job.ID, c.card.ID))
		ps := c.proxiesOf(t)
		require.Len(t, ps, 10)
		for _, p := range ps {
			require.Equal(t, catalog.ProxySkipped, p.State, p.Error)
		}
		peaks = append(peaks, peak)
		require.NoError(t, c.cat.Close())
		c.cat = nil // its write queue not counted in the next
	}
	per := float64(int64(peaks[1])-int64(peaks[0])) / float64(9*n)
	t.Logf("live heap peak: %d files %d kB, %d files %d kB (%.1f bytes a file more)", n, peaks[0]/1000, 10*n, peaks[1]/1000, per)
	require.Less(t, float64(peaks[1]), 1.25*float64(peaks[0]), "the peak grows with the files")
	require.Less(t, per, 20.0, "bytes held a file")
}
