//go:build unix

package jobreport

import (
	"bytes"
	"context"
	"encoding/json"
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

// cloudJob offloads a card of three files (one empty) to the S3 folder
// rclone:ditcloud:shots/PREFIX of a real S3 server (moto) with the real
// rclone, beside the folders dests, into a real catalog; it returns the
// catalog, the job and the card's bytes.
func cloudJob(t *testing.T, s *s3test.Server, prefix string, dests ...string) (*catalog.Catalog, *offload.Summary, int64) {
	cat, sum, size, _ := cloudJobOpts(t, s, prefix, dests...)
	return cat, sum, size
}

// cloudJobOpts is cloudJob that returns the job's options too.
func cloudJobOpts(t *testing.T, s *s3test.Server, prefix string, dests ...string) (*catalog.Catalog, *offload.Summary, int64, offload.Options) {
	t.Helper()
	dir := t.TempDir()
	cat, err := catalog.Open(filepath.Join(dir, "catalog.db"))
	require.NoError(t, err)
	t.Cleanup(func() { cat.Close() })
	card := filepath.Join(dir, "A001")
	files := map[string]int{"clip1.mov": 300 << 10, "sub/clip2.mov": 100 << 10, "empty.txt": 0}
	var size int64
	for rel, n := range files {
		p := filepath.Join(card, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, bytes.Repeat([]byte(rel), n/len(rel)+1)[:n], 0o644))
		size += int64(n)
	}
	o := offload.Options{
		JobSpec: offload.JobSpec{Name: "day01", Cards: []string{card}, Dests: append(dests, "rclone:ditcloud:shots/"+prefix),
			Hashes: []hashing.Algo{hashing.XXH64}},
		Env: offload.Env{Catalog: cat, BlockSize: 64 << 10, Buffers: 4, Remote: remote.Settings{Rclone: &cloud.Rclone{Env: s.Env}}},
	}
	return cat, runJob(t, o), size, o
}

// runJob runs the job of o, which must succeed.
func runJob(t *testing.T, o offload.Options) *offload.Summary {
	t.Helper()
	j, err := offload.New(context.Background(), o)
	require.NoError(t, err)
	sum, err := j.Run(context.Background())
	require.NoError(t, err)
	require.Equal(t, offload.ExitOK, sum.ExitCode, "%+v", sum.Cards)
	return sum
}

// A card streamed to S3 only: every copy verified by the storage's own
// MD5 (copies.verify_algos s3-etag:md5), nothing read back. The reports
// say so per destination and give no read-back bytes, time or rate; the
// PDF says dit report writes the CSV and JSON (no folder got them).
func TestReportCloudVerifiedByStorage(t *testing.T) {
	s := s3test.Start(t, "ditcloud", "shots")
	cat, sum, size := cloudJob(t, s, "etag")
	k, err := cat.Cards(sum.JobID)
	require.NoError(t, err)
	fs, err := cat.Files(k[0].ID)
	require.NoError(t, err)
	require.Len(t, fs, 3)
	for _, f := range fs {
		require.Equal(t, "s3-etag:md5", f.Copies[0].VerifyAlgos, f.Rel) // the ground truth the report tells
	}
	r, err := Build(cat, sum.JobID, Options{})
	require.NoError(t, err)

	// JSON: verified_by per destination, no read-back figures.
	var b bytes.Buffer
	require.NoError(t, r.WriteJSON(&b))
	var js struct {
		Totals       map[string]any   `json:"totals"`
		Destinations []map[string]any `json:"destinations"`
		Cards        []map[string]any `json:"cards"`
	}
	require.NoError(t, json.Unmarshal(b.Bytes(), &js))
	d := js.Destinations[0]
	require.Equal(t, map[string]any{"storage_md5": 3.0, "storage_md5_bytes": float64(size), "read_back": 0.0, "read_back_bytes": 0.0}, d["verified_by"])
	require.NotContains(t, d, "read_back_rate")
	c := js.Cards[0]
	require.NotContains(t, c, "verify_seconds")
	require.NotContains(t, c, "verify_rate")
	require.Equal(t, 0.0, c["bytes_verified"])
	require.Equal(t, 0.0, c["verify_tb_per_hour"])
	require.Equal(t, "not read back: verified by the storage's own MD5 (S3 ETag)", c["verify_not_applicable"])
	cd := c["destinations"].([]any)[0].(map[string]any)
	require.NotContains(t, cd, "read_back_rate")
	require.Equal(t, 3.0, cd["verified_by"].(map[string]any)["storage_md5"])
	require.Equal(t, 0.0, js.Totals["bytes_verified"])
	require.Equal(t, 0.0, js.Totals["verify_tb_per_hour"])
	require.Equal(t, "not read back: verified by the storage's own MD5 (S3 ETag)", js.Totals["verify_not_applicable"])

	// HTML.
	b.Reset()
	require.NoError(t, r.WriteHTML(&b))
	page := html.UnescapeString(b.String())
	for _, want := range []string{
		"<td>verified by the storage's own MD5 (S3 ETag): 3 files; read back: 0 files</td>",
		"copied, not read back: the storage's MD5 (S3 ETag)</div>",
		`<div class="label">Verify, TB/hour</div><div class="value">—</div>`,
		"<td colspan=\"7\">— (not read back: verified by the storage's own MD5 (S3 ETag))</td>",
		"<td class=\"num\">— (not read back)</td>",
	} {
		require.Contains(t, page, want)
	}
	require.NotContains(t, page, " read back</div>", "no bytes said read back")

	// PDF.
	pages := pdfAllText(t, writePDF(t, r))
	all := strings.Join(pages, "\n")
	for _, want := range []string{
		"Verify, TB/hour — not read back: the storage's MD5 (S3 ETag)",
		"rclone:ditcloud:shots/etag: verified by the storage's own MD5 (S3 ETag): 3 files; read back: 0 files",
		"Verify (reading the copies back) 0 B — — — — — — 0",
		"Verify: not read back: verified by the storage's own MD5 (S3 ETag): no read-back time or rate.",
		"not written at the end of this job, which has no folder destination: dit report 1 writes them.",
	} {
		require.Contains(t, all, want)
	}
	require.NotContains(t, all, "written with it into each")
	require.NotContains(t, all, "KB read back")
}

// A cascade, folder then S3: the folder's copies were read back (its
// figures stand), the cloud's verified by the storage's MD5; the PDF's
// CSV and JSON are in the folder's reports folder.
func TestReportCloudCascadeSaysHowEachDestVerified(t *testing.T) {
	s := s3test.Start(t, "ditcloud", "shots")
	raid := t.TempDir()
	cat, sum, size := cloudJob(t, s, "casc", raid)
	r, err := Build(cat, sum.JobID, Options{})
	require.NoError(t, err)
	require.Len(t, r.Destinations, 2)
	require.Equal(t, VerifiedBy{ReadBack: 3, ReadBackBytes: size}, r.Destinations[0].VerifiedBy)
	require.Equal(t, VerifiedBy{StorageMD5: 3, StorageMD5Bytes: size}, r.Destinations[1].VerifiedBy)
	c := r.Cards[0]
	require.Empty(t, c.VerifyNotApplicable, "the first run read its copies back")
	require.Empty(t, r.Totals.VerifyNotApplicable)
	require.Zero(t, r.Destinations[1].ReadBackRate, "nothing read back from the cloud")
	all := strings.Join(pdfAllText(t, writePDF(t, r)), "\n")
	for _, want := range []string{
		raid + ": read back: 3 files",
		"rclone:ditcloud:shots/casc: verified by the storage's own MD5 (S3 ETag): 3 files; read back: 0 files",
		"written with it into each folder destination's reports folder.",
	} {
		require.Contains(t, all, want)
	}
}

// The card offloaded again to the cloud folder that holds it: read and
// hashed, nothing sent (bytes_copied 0, the job model's figure: bytes
// read from the card and sent). Its TB/hour reads "nothing copied", not a
// bare dash.
func TestReportNothingCopied(t *testing.T) {
	s := s3test.Start(t, "ditcloud", "shots")
	cat, first, _, o := cloudJobOpts(t, s, "again")
	require.NotZero(t, first.BytesCopied)
	second := runJob(t, o)
	require.Zero(t, second.BytesCopied, "nothing sent again")
	require.Zero(t, second.TBPerHour)
	r, err := Build(cat, second.JobID, Options{})
	require.NoError(t, err)
	require.Zero(t, r.Totals.BytesCopied)
	var b bytes.Buffer
	require.NoError(t, r.WriteHTML(&b))
	page := html.UnescapeString(b.String())
	require.Contains(t, page, `<div class="label">Copy, TB/hour</div><div class="value">—</div><div class="more">nothing copied</div>`)
	require.Contains(t, page, `<div class="label">End to end, TB/hour</div><div class="value">—</div><div class="more">nothing copied</div>`)
	p1 := pdfAllText(t, writePDF(t, r))[0]
	require.Contains(t, p1, "Copy, TB/hour — nothing copied")
	require.Contains(t, p1, "End to end, TB/hour — nothing copied")
}
