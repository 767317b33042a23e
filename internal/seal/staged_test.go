package seal

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/format/ascmhl"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload"
)

// A card's folder on a cloud destination is sealed in a local stage: the
// generation lists the files whose cloud copy is verified, with the
// card's hashes (never read: they are not on this machine), in the
// folders holding them at the card's times; a failed copy and an empty
// folder (an object store keeps none) are left out; only the history is
// written in the stage.
func TestSealStagedCloudFolder(t *testing.T) {
	stage := t.TempDir()
	verified := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	dirTime := time.Date(2026, 11, 20, 7, 0, 0, 0, time.UTC)
	sums := func(content string) hashing.Sums {
		return hashing.Bytes([]hashing.Algo{hashing.MD5, hashing.XXH64}, []byte(content))
	}
	nfd := "A/B/Sce\u0301ne.wav"
	info := offload.SealInfo{JobID: 7, JobName: "day01", Host: "vm", ToolVersion: "1.2.3-test", Started: verified,
		Algos: []hashing.Algo{hashing.MD5, hashing.XXH64}, Card: catalog.Card{Label: "A001"}, CardRoot: "/cards/A001",
		DestRoot: "rclone:s3:shots", CardDir: "rclone:s3:shots/day01/A001", Finished: verified.Add(time.Minute),
		Stage: stage, DirTimes: map[string]time.Time{"A": dirTime, "A/B": dirTime, "Empty": dirTime},
		Files: offload.SealFileList([]offload.SealFile{
			{Rel: nfd, Size: 5, Mtime: mtime, Sums: sums("scene"), State: offload.StateVerified, Verified: verified},
			{Rel: "A/clip.mov", Size: 4, Mtime: mtime, Sums: sums("clip"), State: offload.StateVerified, Verified: verified},
			{Rel: "ascmhl/ascmhl_chain.xml", Size: 9, Mtime: mtime, Sums: sums("the chain")},
			{Rel: "bad.mov", Size: 3, Mtime: mtime, Sums: sums("bad"), State: offload.StateFailed, Error: "differs"},
		})}
	err := (&Sealer{Format: Format{ASC: true}}).Seal(context.Background(), info)
	var w *offload.SealWarning
	if err != nil {
		require.ErrorAs(t, err, &w) // bad.mov cannot be read back: left out
	}
	ents, err := os.ReadDir(stage)
	require.NoError(t, err)
	require.Len(t, ents, 1)
	require.Equal(t, "ascmhl", ents[0].Name(), "only the history is written in the stage")

	st, err := ascmhl.OpenOSStore(stage)
	require.NoError(t, err)
	defer st.Close()
	h, err := ascmhl.LoadHistory(st)
	require.NoError(t, err)
	require.Empty(t, h.Problems)
	require.Len(t, h.Generations, 1)
	m := h.Generations[0].Manifest
	require.Contains(t, m.Comment, "dit job 7 \"day01\": card A001 copied from /cards/A001 to rclone:s3:shots/day01/A001;")
	got := map[string]ascmhl.File{}
	for _, f := range m.Files {
		got[f.Path] = f
	}
	require.Len(t, got, 2)
	require.Contains(t, got, nfd, "the name byte for byte")
	for _, h := range got["A/clip.mov"].Hashes {
		require.Equal(t, sums("clip").Get(h.Algo), h.Value, h.Algo)
		require.Equal(t, ascmhl.Original, h.Action)
		require.True(t, h.Date.Equal(verified))
	}
	var dirs []string
	for _, d := range m.Dirs {
		dirs = append(dirs, d.Path)
		require.True(t, d.Mtime.Equal(dirTime), d.Path)
		require.NotEmpty(t, d.Hashes, d.Path)
	}
	require.ElementsMatch(t, []string{"A", "A/B"}, dirs)
	require.NotEmpty(t, m.Root)
	_, err = os.Stat(filepath.Join(stage, "A"))
	require.True(t, os.IsNotExist(err), "the card's folders are not made in the stage")
}
