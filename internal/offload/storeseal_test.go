//go:build unix

package offload

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/cloud"
	"github.com/dit-org/dit/internal/cloud/s3test"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload/dest/remote"
	"github.com/dit-org/dit/raid"
)

// stageSeal is a Seal hook that, for a cloud destination, extends the
// staged chain and adds a manifest (what the ASC MHL sealer does there),
// and fails while *fail is set; it records each stage it saw.
func stageSeal(fail *bool, stages *[]SealInfo) func(context.Context, SealInfo) error {
	return func(_ context.Context, info SealInfo) error {
		if info.Stage == "" {
			return nil // a folder destination: not this test's
		}
		*stages = append(*stages, info)
		if *fail {
			return errors.New("sealer broke")
		}
		chain := filepath.Join(info.Stage, "ascmhl", "ascmhl_chain.xml")
		old, err := os.ReadFile(chain)
		if err != nil {
			return err
		}
		if err := os.WriteFile(chain, append(old, fmt.Sprintf("+gen2 of job %d", info.JobID)...), 0o644); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(info.Stage, "ascmhl", fmt.Sprintf("0002-job%d.mhl", info.JobID)), []byte("gen2 of "+info.CardDir), 0o644)
	}
}

// A card that carries a history, to the cloud alone and in a cascade (its
// first copy in a folder, or on a dit array, read through it): the
// seal writes in a stage holding the card's (the first copy's) history,
// never on the card; the stage goes up; the one chain object is the
// extended one (the card's chain is not uploaded as a file), its copy
// recorded as verified with the history. A seal that fails leaves the
// card sealing, not safe to format, and the chain's copy failed; a resume
// seals it and changes no object already there.
func TestCloudSealStagesAndUploads(t *testing.T) {
	s := s3test.Start(t, "ditcloud", "shots")
	for _, name := range []string{"direct", "cascade", "array"} {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			card := testCard(t, e.dir, "A001", map[string]string{
				"clip.mov": bigContent(120<<10, 21), "ascmhl/ascmhl_chain.xml": "chain1", "ascmhl/0001.mhl": "gen1",
			})
			dest := "rclone:ditcloud:shots/" + name
			o := e.opts([]string{card}, []string{dest})
			switch name {
			case "cascade":
				o = e.opts([]string{card}, []string{e.dest("raid")})
				o.Then = []string{dest}
			case "array": // the first copy streamed through the array
				o = e.opts([]string{card}, []string{makeArray(t, e, raid.RAID4, 3)[0]})
				o.Then = []string{dest}
			}
			o.Remote = remote.Settings{Rclone: &cloud.Rclone{Env: s.Env}}
			fail := true
			var stages []SealInfo
			o.Seal = stageSeal(&fail, &stages)
			s1, err := e.run(o)
			require.NoError(t, err)
			require.False(t, s1.Cards[0].SafeToFormat, s1.Cards[0].Verdict)
			require.Len(t, stages, 1)
			require.Equal(t, dest+"/day01/A001", stages[0].CardDir)
			_, err = os.Stat(stages[0].Stage)
			require.True(t, os.IsNotExist(err), "the stage is removed")
			objs, err := rcloneOf(o).List(context.Background(), cloud.Dest{Remote: "ditcloud", Path: "shots/" + name}, "day01/A001")
			require.NoError(t, err)
			require.NotContains(t, objs, "ascmhl/ascmhl_chain.xml", "the card's chain is not uploaded as a file")
			require.Contains(t, objs, "ascmhl/0001.mhl")

			fail = false
			o2 := e.opts(nil, nil)
			o2.Remote, o2.Seal = o.Remote, o.Seal
			j, err := Resume(context.Background(), e.cat, s1.JobID, o2)
			require.NoError(t, err)
			s2, err := j.Run(context.Background())
			require.NoError(t, err)
			require.True(t, s2.Cards[0].SafeToFormat, s2.Cards[0].Verdict)
			after, err := rcloneOf(o).List(context.Background(), cloud.Dest{Remote: "ditcloud", Path: "shots/" + name}, "day01/A001")
			require.NoError(t, err)
			for rel, ob := range objs {
				require.Equal(t, ob, after[rel], rel)
			}
			want := hashing.Bytes([]hashing.Algo{hashing.MD5}, []byte(fmt.Sprintf("chain1+gen2 of job %d", s1.JobID))).Get(hashing.MD5)
			require.Equal(t, want, after["ascmhl/ascmhl_chain.xml"].ServerMD5(), "the extended chain")
			require.Equal(t, hashing.Bytes([]hashing.Algo{hashing.MD5}, []byte("gen2 of "+dest+"/day01/A001")).Get(hashing.MD5), after[fmt.Sprintf("ascmhl/0002-job%d.mhl", s1.JobID)].ServerMD5())

			k, err := e.cat.Cards(s1.JobID)
			require.NoError(t, err)
			files, err := e.cat.Files(k[len(k)-1].ID)
			require.NoError(t, err)
			var chain bool
			for _, f := range files {
				require.Equal(t, StateVerified, f.State, f.Rel)
				if f.Rel != "ascmhl/ascmhl_chain.xml" {
					continue
				}
				chain = true
				cp := f.Copies[len(f.Copies)-1]
				require.Equal(t, "day01/A001/ascmhl/ascmhl_chain.xml", cp.Path)
				require.Equal(t, "history:s3-etag:md5", cp.VerifyAlgos)
				require.Equal(t, "the storage's own md5 (S3 ETag), as the chain of the card's ASC MHL history extended by dit", RemoteVerifiedBy(cp.VerifyAlgos))
			}
			require.True(t, chain)
			b, err := os.ReadFile(filepath.Join(card, "ascmhl", "ascmhl_chain.xml"))
			require.NoError(t, err)
			require.Equal(t, "chain1", string(b), "the card is never written to")

			// Another job to the same folder: its generation cannot go
			// on the chain there (never replaced), and nothing of its
			// history is sent; the card is not safe by this job.
			s3, err := e.run(o)
			require.NoError(t, err)
			require.False(t, s3.Cards[0].SafeToFormat, s3.Cards[0].Verdict)
			again, err := rcloneOf(o).List(context.Background(), cloud.Dest{Remote: "ditcloud", Path: "shots/" + name}, "day01/A001")
			require.NoError(t, err)
			require.Equal(t, after, again, "nothing on the remote changed")
			msgs := strings.Join(s3.Warnings, "\n")
			require.Contains(t, msgs, "ascmhl/ascmhl_chain.xml is there and differs from the history dit wrote for this card")
			require.Contains(t, msgs, "the folder holds an ASC MHL history already")
		})
	}
}
