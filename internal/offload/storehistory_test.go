//go:build unix

package offload

import (
	"context"
	"github.com/dit-org/dit/internal/live"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/cloud"
	"github.com/dit-org/dit/internal/cloud/s3test"
	"github.com/dit-org/dit/internal/format/ascmhl"
	"github.com/dit-org/dit/internal/offload/dest/remote"
)

// chainSeal is a seal writing a one-generation ASC MHL history into the
// stage: a manifest and the chain that records its C4.
func chainSeal(_ context.Context, info SealInfo) error {
	if info.Stage == "" {
		return nil
	}
	dir := filepath.Join(info.Stage, ascmhl.HistoryDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	name := ascmhl.ManifestName(1, "A001", time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC))
	body := []byte("<hashlist>generation of job " + info.CardDir + "</hashlist>\n")
	if err := os.WriteFile(filepath.Join(dir, name), body, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, ascmhl.ChainFile), ascmhl.MarshalChain([]ascmhl.ChainEntry{{Seq: 1, Path: name, C4: ascmhl.C4(body)}}), 0o644)
}

// dit verify reads back the ASC MHL history dit wrote in the cloud: the
// chain and every manifest it lists, each as the chain records it. A
// manifest overwritten on the server, or a chain, fails the chain's copy,
// naming the object, and the card is no longer safe to format.
func TestRecheckCloudHistory(t *testing.T) {
	s := s3test.Start(t, "ditcloud", "shots")
	for _, victim := range []string{"manifest", "chain"} {
		t.Run(victim, func(t *testing.T) {
			e := newEnv(t)
			card := testCard(t, e.dir, "A001", map[string]string{"clip.mov": bigContent(120<<10, 21)})
			dest := "rclone:ditcloud:shots/hist-" + victim
			o := e.opts([]string{card}, []string{dest})
			o.Remote = remote.Settings{Rclone: &cloud.Rclone{Env: s.Env}}
			o.Seal = chainSeal
			sum, err := e.run(o)
			require.NoError(t, err)
			require.True(t, sum.Cards[0].SafeToFormat, sum.Cards[0].Verdict)

			var notes, bad []RecheckResult
			onResult := func(r RecheckResult) {
				switch r.State {
				case StateVerified:
				case "resealed":
					notes = append(notes, r)
				default:
					bad = append(bad, r)
				}
			}
			ok, err := RecheckWith(context.Background(), e.cat, nil, sum.JobID, RecheckOptions{Remote: o.Remote, OnResult: onResult})
			require.NoError(t, err)
			require.True(t, ok, "%+v", bad)
			require.Len(t, notes, 1)
			require.Contains(t, notes[0].Error, "the ASC MHL history dit wrote in the cloud: read back, its chain and the 1 manifests it lists agree (c4)")

			folder := "shots/hist-" + victim + "/day01/A001/ascmhl/"
			name := ascmhl.ManifestName(1, "A001", time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC))
			target, want := name, "differs from what its chain records (c4 "
			if victim == "chain" {
				target, want = ascmhl.ChainFile, "is not the ASC MHL chain dit wrote"
			}
			garbage := filepath.Join(e.dir, "garbage")
			require.NoError(t, os.WriteFile(garbage, []byte("garbage"), 0o644))
			s.Rclone(t, "copyto", garbage, "ditcloud:"+folder+target, "--ignore-times")

			notes, bad = nil, nil
			ok, err = RecheckWith(context.Background(), e.cat, nil, sum.JobID, RecheckOptions{Remote: o.Remote, OnResult: onResult})
			require.NoError(t, err)
			require.False(t, ok)
			require.Len(t, bad, 1, "%+v", bad)
			require.Equal(t, StateFailed, bad[0].State)
			require.Contains(t, bad[0].Error, "rclone:ditcloud:"+folder+target+" "+want)
			s2, err := LoadSummary(e.cat, sum.JobID)
			require.NoError(t, err)
			require.False(t, s2.Cards[0].SafeToFormat, s2.Cards[0].Verdict)
		})
	}
}

// dit verify of a card streamed to the cloud lists its objects and
// checks each by the storage's own MD5: the progress counts them as
// checked, with no byte to read back and none read; with --all every
// object is read back and counted in bytes.
func TestRecheckCloudProgressCountsChecks(t *testing.T) {
	s := s3test.Start(t, "ditcloud", "shots")
	e := newEnv(t)
	card := testCard(t, e.dir, "A001", map[string]string{"a.mov": bigContent(100<<10, 1), "b.mov": bigContent(50<<10, 2)})
	o := e.opts([]string{card}, []string{"rclone:ditcloud:shots/prog"})
	o.Remote = remote.Settings{Rclone: &cloud.Rclone{Env: s.Env}}
	o.Seal = nil
	sum, err := e.run(o)
	require.NoError(t, err)
	require.True(t, sum.Cards[0].SafeToFormat, sum.Cards[0].Verdict)
	for _, all := range []bool{false, true} {
		var first, last RecheckProgress
		n := 0
		ok, err := RecheckWith(context.Background(), e.cat, nil, sum.JobID, RecheckOptions{All: all, Remote: o.Remote, OnProgress: func(p RecheckProgress) {
			if n == 0 {
				first = p
			}
			n++
			last = p
		}})
		require.NoError(t, err)
		require.True(t, ok)
		if all {
			require.Equal(t, RecheckProgress{Copies: 2, Bytes: 150 << 10}, first)
			// Every copy read: nothing left, known (the engine's estimate).
			// The rate is measured once the read-back has lasted long
			// enough (a loaded machine): any, never negative.
			require.GreaterOrEqual(t, last.Rate, 0.0)
			last.Rate = 0
			require.Equal(t, RecheckProgress{Copies: 2, CopiesDone: 2, Bytes: 150 << 10, BytesRead: 150 << 10, ETA: live.In(0)}, last)
		} else {
			require.Equal(t, RecheckProgress{Copies: 2, Checked: 2}, first)
			require.Equal(t, RecheckProgress{Copies: 2, CopiesDone: 2, Checked: 2}, last)
		}
	}
}
