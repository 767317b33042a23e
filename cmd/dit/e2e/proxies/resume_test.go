package proxies

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
)

// crashedJob starts job 1 with --proxies prores-proxy,burnin and
// --proxies-to the shuttle, to the raid and the shuttle, and kills it
// (DIT_CRASH_AT "card: sealed") once its card is verified, before the
// card's proxies were begun.
func crashedJob(t *testing.T) (dir, db, card, raid, shuttle string) {
	dir = t.TempDir()
	db = filepath.Join(dir, "catalog.db")
	card = makeCard(t, dir)
	raid, shuttle = filepath.Join(dir, "raid"), filepath.Join(dir, "shuttle")
	require.NoError(t, os.Mkdir(raid, 0o755))
	require.NoError(t, os.Mkdir(shuttle, 0o755))
	r, killed := e2e.DitCrash(t, db, []string{"DIT_CRASH_AT=card: sealed#1"}, "offload", "--json", "--name", "day01", "--hash", "md5,xxh64",
		"--proxies", "prores-proxy,burnin", "--proxies-to", shuttle, "-d", raid, "-d", shuttle, card)
	require.True(t, killed, "killed once the card was verified: %d\n%s", r.Code, e2e.Tail(r.Stdout+r.Stderr))
	require.Empty(t, showProxies(t, db, 1).Proxies, "no proxy begun before the kill")
	require.NoDirExists(t, filepath.Join(shuttle, "proxies"))
	return dir, db, card, raid, shuttle
}

// A job killed before its proxies were made: a resume that gives other
// proxies is refused (exit 2), naming both; a resume without --proxies
// makes the proxies the job started with (the preset with burn-in, on
// its --proxies-to destination only), in the catalog and playable.
func TestResumeMakesTheJobsProxies(t *testing.T) {
	t.Parallel()
	_, db, card, raid, shuttle := crashedJob(t)
	r := e2e.Dit(t, db, "offload", "--resume", "1", "--proxies", "h264")
	require.Equal(t, 2, r.Code, r.Stdout+r.Stderr)
	require.Contains(t, r.Stderr, "job 1 was started with --proxies prores-proxy,burnin, not --proxies h264")
	r = e2e.Dit(t, db, "offload", "--resume", "1", "--proxies-to", raid)
	require.Equal(t, 2, r.Code, r.Stdout+r.Stderr)
	require.Contains(t, r.Stderr, "job 1 was started with --proxies-to "+shuttle+", not --proxies-to "+raid)
	require.Empty(t, showProxies(t, db, 1).Proxies, "a refused resume makes nothing")

	r = e2e.Dit(t, db, "offload", "--json", "--resume", "1")
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	sum, events := e2e.LastSummary(t, r.Stdout)
	require.Equal(t, int64(1), sum.JobID)
	require.Equal(t, "safe_to_format", sum.Cards[0].State)
	proxyEvents := 0
	for _, e := range events {
		if e["type"] == "proxy" {
			proxyEvents++
		}
	}
	require.Equal(t, len(srcClips)+1, proxyEvents, "each clip once, and the unreadable one failed")
	s := showProxies(t, db, 1)
	checkProxies(t, s, card, ".mov", shuttle)
	for _, p := range s.Proxies {
		require.Equal(t, "prores-proxy,burnin", p.Preset)
	}
	require.NoDirExists(t, filepath.Join(raid, "proxies"), "only where the job said")
	checkReports(t, shuttle, len(srcClips), 1)
}

// Resumed where there is no ffmpeg, the job's footage is finished all
// the same (the card safe to format) and a warning says its proxies are
// not made.
func TestResumeWithoutFFmpegFinishesTheFootage(t *testing.T) {
	t.Parallel()
	dir, db, _, _, _ := crashedJob(t)
	r := e2e.RunDit(t, []string{"DIT_DB=" + db, "PATH=" + filepath.Join(dir, "empty"), "HOME=" + dir}, "offload", "--json", "--resume", "1")
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	require.Contains(t, r.Stdout+r.Stderr, "job 1's proxies (--proxies prores-proxy,burnin) are not made by this resume")
	sum, _ := e2e.LastSummary(t, r.Stdout)
	require.Equal(t, "safe_to_format", sum.Cards[0].State)
	require.Empty(t, showProxies(t, db, 1).Proxies)
}
