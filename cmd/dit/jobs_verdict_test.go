package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload"
)

// sealingFixture records an ended job whose one card A001 stayed
// "sealing" (its hash lists not written) with the error cardErr and
// failed of its four files failed on the cloud destination.
func sealingFixture(t *testing.T, db string, failed int, cardErr string) int64 {
	cat, err := catalog.Open(db)
	require.NoError(t, err)
	defer cat.Close()
	host, _ := os.Hostname()
	j := &catalog.Job{Name: "Day02", State: catalog.JobFailed, Host: host, Hashes: "xxh64", VerifyMode: "dest", VerifyHashes: "fastest",
		Layout: "{job}/{card}", OnConflict: "fail", Started: time.Unix(1e9, 0), Finished: time.Unix(1e9+60, 0)}
	require.NoError(t, cat.CreateJob(j))
	d := &catalog.Dest{JobID: j.ID, Seq: 0, Path: "rclone:s3:rushes/hv", Hop: 1}
	require.NoError(t, cat.AddDest(d))
	k := &catalog.Card{JobID: j.ID, Seq: 0, Label: "A002", Path: "/media/A002", State: catalog.CardSealing, Files: 4, Hop: 1}
	require.NoError(t, cat.AddCard(k))
	k.Error = cardErr
	cat.UpdateCard(k)
	for i := range 4 {
		f := &catalog.File{CardID: k.ID, Rel: fmt.Sprintf("C%03d.mov", i), Size: 1000, Mtime: time.Unix(1e9, 0), State: "verified"}
		f.Sums.Set(hashing.XXH64, fmt.Sprintf("%016x", i))
		st, why := "verified", ""
		if i < failed {
			f.State, st, why = "failed", "failed", "upload failed"
		}
		cat.PutFile(f)
		cat.PutCopy(k.ID, f.Rel, &catalog.Copy{DestID: d.ID, Path: "Day02/A002/" + f.Rel, State: st, VerifyAlgos: "s3-etag:md5", Error: why})
	}
	return j.ID
}

// dit jobs gives a card the job model's verdict (dit job show's words):
// files that failed come first, "hash lists not written" only when none
// did.
func TestJobsSaysTheModelsVerdict(t *testing.T) {
	for _, c := range []struct {
		name    string
		failed  int
		cardErr string
		want    string
	}{
		{"cloud history waits", 3, offload.HistoryWaits + "rclone:s3:rushes/hv/Day02/A002: 3 files not verified there (C000.mov, C001.mov, C002.mov): dit offload --resume 1 uploads them and writes the history",
			"A002: FAILED: 3 files not verified in the cloud, so the card's history is not written there: NOT safe"},
		{"files failed, lists not written", 2, "hash lists not written: disk full",
			"A002: FAILED, and hash lists not written: NOT safe"},
		{"only the lists", 0, "hash lists not written: disk full",
			"A002: Copies checked, hash lists not written: NOT safe"},
	} {
		t.Run(c.name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "c.db")
			id := sealingFixture(t, db, c.failed, c.cardErr)
			var jobs, show bytes.Buffer
			require.NoError(t, runJobs(JobsOptions{}, &GlobalOptions{DB: db, stdout: &jobs, stderr: os.Stderr}))
			require.Contains(t, jobs.String(), c.want)
			if c.failed > 0 {
				require.NotContains(t, jobs.String(), "A002: NOT safe (hash lists not written)")
			}
			// The same words as dit job show and the model.
			cat, err := catalog.OpenExisting(db)
			require.NoError(t, err)
			s, err := offload.LoadSummary(cat, id)
			cat.Close()
			require.NoError(t, err)
			require.Equal(t, c.failed, s.Cards[0].Failed)
			why := strings.TrimSuffix(strings.TrimPrefix(c.want, "A002: "), ": NOT safe")
			require.True(t, strings.HasPrefix(s.Cards[0].Verdict, why+": NOT safe to format"), s.Cards[0].Verdict)
			require.NoError(t, runJobShow(JobShowOptions{}, &GlobalOptions{DB: db, stdout: &show, stderr: os.Stderr}, id))
			require.Contains(t, show.String(), why+": NOT safe to format")
		})
	}
}
