//go:build unix

package offload

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/cloud"
	"github.com/dit-org/dit/internal/cloud/s3test"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload/dest/remote"
	"github.com/dit-org/dit/raid"
)

// A file that does not reach the cloud holds the card's history back on
// that destination (its chain object can be written only once): nothing
// of the history is sent, the card is not safe to format and its verdict
// and failures say why and what to do. The resume uploads the file, then
// writes the history once, its generation listing every file verified.
// The upload is cut by rclone itself (--max-transfer, given through the
// environment as a user's rclone could be: an upload past 2 MiB is
// aborted mid-way, as a dropped connection would leave it): clip.mov
// (3 MiB) fails, the small files go up. Streamed from the card, from a
// cascade's first copy in a folder (rclone copy), and from one on a dit
// array (streamed through the array).
func TestCloudHistoryWaitsForEveryFile(t *testing.T) {
	// A process per transfer: --max-transfer then cuts clip.mov alone.
	// Through the job's one rclone (rcd) the limit counts every byte of
	// the daemon, so which files it cuts would follow the upload order
	// (the e2e cloud tests hold the history back through the daemon).
	t.Setenv("DIT_RCLONE_DAEMON", "0")
	s := s3test.Start(t, "ditcloud", "shots")
	clip := bigContent(3<<20, 7)
	for _, name := range []string{"direct", "cascade", "array"} {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			card := testCard(t, e.dir, "A001", map[string]string{
				"clip.mov": clip, "sound.wav": "tiny", "ascmhl/ascmhl_chain.xml": "chain1", "ascmhl/0001.mhl": "gen1",
			})
			dest := "rclone:ditcloud:shots/" + name
			o := e.opts([]string{card}, []string{dest})
			switch name {
			case "cascade":
				o = e.opts([]string{card}, []string{e.dest("raid")})
				o.Then = []string{dest}
			case "array":
				o = e.opts([]string{card}, []string{makeArray(t, e, raid.RAID4, 3)[0]})
				o.Then = []string{dest}
			}
			o.Remote = remote.Settings{Rclone: &cloud.Rclone{Env: append(append([]string(nil), s.Env...), "RCLONE_MAX_TRANSFER=2M"), Tries: 1}}
			fail := false
			var stages []SealInfo
			o.Seal = stageSeal(&fail, &stages)
			s1, err := e.run(o)
			require.NoError(t, err)
			c1 := s1.Cards[0]
			require.False(t, c1.SafeToFormat, c1.Verdict)
			require.Empty(t, stages, "no history staged while a file is not verified in the cloud")
			at := cloud.Dest{Remote: "ditcloud", Path: "shots/" + name}
			objs, err := rcloneOf(o).List(context.Background(), at, "day01/A001")
			require.NoError(t, err)
			require.NotContains(t, objs, "clip.mov")
			require.Contains(t, objs, "sound.wav")
			require.NotContains(t, objs, "ascmhl/ascmhl_chain.xml", "no chain object")
			for rel := range objs {
				require.False(t, strings.HasPrefix(rel, "ascmhl/") && rel != "ascmhl/0001.mhl", "%s: only the card's own manifest, with the footage", rel)
			}

			waits := fmt.Sprintf("history not written to %s/day01/A001: 1 file not verified there (clip.mov): dit offload --resume %d uploads it and writes the history", dest, s1.JobID)
			failures, verdict := c1.Failures, fmt.Sprintf("FAILED: 1 file not verified in the cloud, so the card's history is not written there: NOT safe to format (dit offload --resume %d uploads it and writes the history)", s1.JobID)
			if name != "direct" {
				require.NotNil(t, c1.Then)
				failures = c1.Then.Failures
				verdict = fmt.Sprintf("Second run FAILED (card free since %s): 1 file not verified in the cloud, so the card's history is not written there: NOT safe to format: keep the card (dit offload --resume %d uploads it and writes the history)",
					c1.FreeAt.Local().Format("15:04:05"), s1.JobID)
			}
			require.Equal(t, verdict, c1.Verdict)
			require.Contains(t, failures, Failure{Path: "(hash lists)", Error: waits})
			require.NotContains(t, strings.Join(s1.Warnings, "\n"), waits, "a failure, listed with the card's, not a warning")
			var said bool
			e.mu.Lock()
			for _, ev := range e.events {
				said = said || ev.Type == EvWarning && ev.Message == waits
			}
			e.mu.Unlock()
			require.True(t, said, "said as it happens")
			// The same from the catalog (dit job show, the GUI, serve).
			l1, err := LoadSummary(e.cat, s1.JobID)
			require.NoError(t, err)
			require.Equal(t, verdict, l1.Cards[0].Verdict)

			o2 := e.opts(nil, nil)
			o2.Remote, o2.Seal = remote.Settings{Rclone: &cloud.Rclone{Env: s.Env}}, o.Seal
			j, err := Resume(context.Background(), e.cat, s1.JobID, o2)
			require.NoError(t, err)
			s2, err := j.Run(context.Background())
			require.NoError(t, err)
			require.True(t, s2.Cards[0].SafeToFormat, s2.Cards[0].Verdict)
			require.Len(t, stages, 1, "the history is written once")
			var listed []string
			staged, err := stages[0].Files.List()
			require.NoError(t, err)
			for _, f := range staged {
				listed = append(listed, f.Rel)
				if f.Rel != "ascmhl/ascmhl_chain.xml" {
					require.Equal(t, StateVerified, f.State, f.Rel)
				}
			}
			sort.Strings(listed)
			require.Equal(t, []string{"ascmhl/0001.mhl", "ascmhl/ascmhl_chain.xml", "clip.mov", "sound.wav"}, listed)

			after, err := rcloneOf(o2).List(context.Background(), at, "day01/A001")
			require.NoError(t, err)
			for rel, ob := range objs {
				require.Equal(t, ob, after[rel], "%s is as the first run left it", rel)
			}
			md5 := func(b string) string { return hashing.Bytes([]hashing.Algo{hashing.MD5}, []byte(b)).Get(hashing.MD5) }
			require.Equal(t, md5(clip), after["clip.mov"].ServerMD5())
			require.Equal(t, md5(fmt.Sprintf("chain1+gen2 of job %d", s1.JobID)), after["ascmhl/ascmhl_chain.xml"].ServerMD5(), "the extended chain")
			require.Contains(t, after, fmt.Sprintf("ascmhl/0002-job%d.mhl", s1.JobID))
			b, err := os.ReadFile(filepath.Join(card, "ascmhl", "ascmhl_chain.xml"))
			require.NoError(t, err)
			require.Equal(t, "chain1", string(b), "the card is never written to")
		})
	}
}
