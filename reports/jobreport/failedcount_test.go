//go:build unix

package jobreport

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/cloud"
	"github.com/dit-org/dit/internal/cloud/s3test"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/offload/dest/remote"
)

// Two uploads cut by rclone (--max-transfer through the environment, as
// a user's rclone could be): the card's failures list the two files and
// a "(hash lists)" line (its history is not written while a file is
// missing). Page 1, the card's PDF page and the HTML all give the job
// model's count of failed files (2), not the length of that list (3).
func TestReportCountsFailedFilesAsTheModel(t *testing.T) {
	s := s3test.Start(t, "ditcloud", "shots")
	dir := t.TempDir()
	cat, err := catalog.Open(filepath.Join(dir, "catalog.db"))
	require.NoError(t, err)
	t.Cleanup(func() { cat.Close() })
	card := filepath.Join(dir, "A001")
	files := map[string]int{"big1.mov": 3 << 20, "big2.mov": 3 << 20, "sound.wav": 1000, "ascmhl/ascmhl_chain.xml": 10}
	for rel, n := range files {
		p := filepath.Join(card, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, bytes.Repeat([]byte(rel), n/len(rel)+1)[:n], 0o644))
	}
	o := offload.Options{
		JobSpec: offload.JobSpec{Name: "day01", Cards: []string{card}, Dests: []string{"rclone:ditcloud:shots/failed"},
			Hashes: []hashing.Algo{hashing.XXH64}},
		// A seal that writes nothing: the history waits all the same.
		Hooks: offload.Hooks{Seal: func(context.Context, offload.SealInfo) error { return nil }},
		Env: offload.Env{Catalog: cat, BlockSize: 64 << 10, Buffers: 4,
			Remote: remote.Settings{Rclone: &cloud.Rclone{Env: append(append([]string(nil), s.Env...), "RCLONE_MAX_TRANSFER=2M"), Tries: 1}}},
	}
	j, err := offload.New(context.Background(), o)
	require.NoError(t, err)
	sum, err := j.Run(context.Background())
	require.NoError(t, err)
	c := sum.Cards[0]
	require.Equal(t, 2, c.Failed, "%+v", c.Failures)
	require.Equal(t, 2, sum.Failed)
	var hashLists bool
	for _, f := range c.Failures {
		hashLists = hashLists || f.Path == "(hash lists)"
	}
	require.True(t, hashLists, "the list has a line that is not a file: %+v", c.Failures)
	require.Len(t, c.Failures, 3)

	r, err := Build(cat, sum.JobID, Options{})
	require.NoError(t, err)
	want := fmt.Sprintf("0 skipped, %d failed", c.Failed)
	pages := pdfAllText(t, writePDF(t, r))
	require.Contains(t, pages[0], want, "page 1")
	var cardPage string
	for _, p := range pages {
		if strings.Contains(p, "Card A001") {
			cardPage = p
		}
	}
	require.Contains(t, cardPage, "Files 4 files, ")
	require.Contains(t, cardPage, want, "the card's page")

	var b bytes.Buffer
	require.NoError(t, r.WriteHTML(&b))
	require.Contains(t, html.UnescapeString(b.String()), want+"</td>", "the HTML's card")
}
