package jobreport

import (
	"bytes"
	"html"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/hashing"
)

// A card streamed to a cloud destination where the storage's MD5
// verified one object (s3-etag:md5, 100 bytes) and the other was read
// back (readback:md5, a multipart object, 200 bytes), in a real catalog
// file: the report says how each was verified and counts 200 bytes read
// back. The verify samples count both (the engine marks the first
// verified in no time): the time spent reading back is not told apart,
// so no verify time, rate or TB/hour is given, and it says why.
func TestReportMixedVerificationHasNoMadeUpRate(t *testing.T) {
	cat, err := catalog.Open(filepath.Join(t.TempDir(), "catalog.db"))
	require.NoError(t, err)
	t.Cleanup(func() { cat.Close() })
	j := &catalog.Job{Name: "Day 2", State: catalog.JobRunning, Hashes: "xxh64,md5", VerifyMode: "dest", VerifyHashes: "fastest",
		Layout: "{job}/{card}", OnConflict: "fail", Started: t0}
	require.NoError(t, cat.CreateJob(j))
	d := &catalog.Dest{JobID: j.ID, Seq: 0, Path: "rclone:s3:rushes/show"}
	require.NoError(t, cat.AddDest(d))
	k := &catalog.Card{JobID: j.ID, Seq: 0, Label: "A002", Path: "/media/A002", Bytes: 300, Files: 2, State: "verified",
		CopyStarted: at(0), CopyFinished: at(2), VerifyStarted: at(2), VerifyFinished: at(3), DoneAt: at(3)}
	require.NoError(t, cat.AddCard(k))
	_, err = cat.StartRun(j.ID, t0)
	require.NoError(t, err)
	for rel, c := range map[string]struct {
		size int64
		how  string
	}{"a.mov": {100, "s3-etag:md5"}, "b.mov": {200, "readback:md5"}} {
		cat.PutFile(&catalog.File{CardID: k.ID, Rel: rel, Size: c.size, Mtime: t0, State: "verified",
			Sums: hashing.Bytes([]hashing.Algo{hashing.MD5}, []byte(rel))})
		cat.PutCopy(k.ID, rel, &catalog.Copy{DestID: d.ID, Path: "Day 2/A002/" + rel, State: "verified", Written: true, VerifyAlgos: c.how, VerifiedAt: at(3)})
	}
	cat.PutSample(j.ID, catalog.Sample{CardID: k.ID, T: at(2), Bytes: 300, Rate: 150, Phase: "copy", Seconds: 2})
	cat.PutSample(j.ID, catalog.Sample{CardID: k.ID, T: at(3), Bytes: 300, Rate: 300, Phase: "verify", Seconds: 1})
	cat.PutSample(j.ID, catalog.Sample{CardID: k.ID, DestID: d.ID, T: at(3), Bytes: 300, Rate: 300, Phase: "verify", Seconds: 1})
	require.NoError(t, cat.Flush())
	require.NoError(t, cat.SetJobState(j.ID, catalog.JobDone, at(4), ""))

	r, err := Build(cat, j.ID, Options{})
	require.NoError(t, err)
	want := VerifiedBy{StorageMD5: 1, StorageMD5Bytes: 100, ReadBack: 1, ReadBackBytes: 200}
	require.Equal(t, want, r.Destinations[0].VerifiedBy)
	require.Equal(t, want, r.Cards[0].Destinations[0].VerifiedBy)
	require.Zero(t, r.Destinations[0].ReadBackRate, "300 B/s would count bytes not read back")
	c := r.Cards[0]
	require.Equal(t, notReadBackMixed, c.VerifyNotApplicable)
	require.Equal(t, int64(200), c.BytesVerified, "the read-back copy's bytes")
	require.Zero(t, c.VerifySeconds)
	require.Zero(t, c.VerifyTBPerHour)
	require.Zero(t, c.VerifyRate)
	require.Equal(t, notReadBackMixed, r.Totals.VerifyNotApplicable)
	require.Equal(t, int64(200), r.Totals.BytesVerified)
	require.Zero(t, r.Totals.VerifyTBPerHour)
	for _, p := range c.series {
		require.NotEqual(t, "verify", p.phase, "no read-back line on the chart")
	}

	var b bytes.Buffer
	require.NoError(t, r.WriteHTML(&b))
	page := html.UnescapeString(b.String())
	require.Contains(t, page, "<td>verified by the storage's own MD5 (S3 ETag): 1 file; read back: 1 file</td>")
	require.Contains(t, page, "— (not measured: part of the copies verified by the storage's own MD5 (S3 ETag), not read back)")
	require.Contains(t, page, "200 B read back; the rest: S3 ETag (storage MD5)")
}
