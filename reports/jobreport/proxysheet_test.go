package jobreport

import (
	"bytes"
	"encoding/csv"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/hashing"
)

// proxiesFixture is a finished job in a real SQLite catalog: a card to a
// folder, cascaded to a cloud destination, with proxies of a clip whose
// name is any Unicode (NFD, emoji, CJK, a comma and quotes) on both, and
// a clip whose proxy failed with a two-line error.
func proxiesFixture(t *testing.T) (*catalog.Catalog, int64, []catalog.Proxy) {
	t.Helper()
	cat, err := catalog.Open(filepath.Join(t.TempDir(), "catalog.db"))
	require.NoError(t, err)
	t.Cleanup(func() { cat.Close() })
	j := &catalog.Job{Name: "Day 1 🎬", State: catalog.JobRunning, Host: "dit-test-host", ToolVersion: "1.0.0-test",
		Hashes: "xxh64", VerifyMode: "dest", VerifyHashes: "fastest", Layout: "{job}/{card}", OnConflict: "fail", Started: t0,
		Proxies: "h264", ProxiesTo: []string{"/mnt/raid", "rclone:s3:rushes/show"}}
	require.NoError(t, cat.CreateJob(j))
	raid := &catalog.Dest{JobID: j.ID, Seq: 0, Path: "/mnt/raid"}
	bucket := &catalog.Dest{JobID: j.ID, Seq: 1, Path: "rclone:s3:rushes/show", Hop: 2}
	require.NoError(t, cat.AddDest(raid))
	require.NoError(t, cat.AddDest(bucket))
	a := &catalog.Card{JobID: j.ID, Seq: 0, Label: "A001 🎬", Path: "/media/A001", Bytes: 4, Files: 1, State: "verified",
		CopyStarted: at(0), CopyFinished: at(10), VerifyStarted: at(1), VerifyFinished: at(11), DoneAt: at(12)}
	require.NoError(t, cat.AddCard(a))
	h := &catalog.Card{JobID: j.ID, Seq: 1, Label: "A001 🎬", Path: "/mnt/raid/Day 1 🎬/A001 🎬", Bytes: 4, Files: 1, State: "verified",
		Hop: 2, FromCard: a.ID, CopyStarted: at(20), CopyFinished: at(30), VerifyStarted: at(21), VerifyFinished: at(31), DoneAt: at(32)}
	require.NoError(t, cat.AddCard(h))
	sums := hashing.Bytes([]hashing.Algo{hashing.XXH64, hashing.MD5}, []byte("clip"))
	for _, k := range []*catalog.Card{a, h} {
		cat.PutFile(&catalog.File{CardID: k.ID, Rel: "clip.mov", Size: 4, Mtime: t0, State: "verified", Sums: sums})
	}
	cat.PutCopy(a.ID, "clip.mov", &catalog.Copy{DestID: raid.ID, Path: "x/clip.mov", State: "verified", Written: true, VerifyAlgos: "xxh64", VerifiedAt: at(11)})
	cat.PutCopy(h.ID, "clip.mov", &catalog.Copy{DestID: bucket.ID, Path: "x/clip.mov", State: "verified", Written: true, VerifyAlgos: "s3-etag:md5", VerifiedAt: at(31)})
	clip := "場景 🎬 Cafe\u0301, take \"2\""
	psums := hashing.Bytes([]hashing.Algo{hashing.XXH64, hashing.MD5}, []byte("the proxy"))
	rows := []catalog.Proxy{
		{JobID: j.ID, CardID: a.ID, Clip: clip, Source: "/mnt/raid/Day 1 🎬/A001 🎬/" + clip + ".mov", Dest: "/mnt/raid",
			Path: "proxies/Day 1 🎬/A001 🎬/" + clip + ".mp4", Preset: "h264", TCStart: "10:00:01:00", Sums: psums, Size: 9,
			State: catalog.ProxyMade, MadeAt: at(40).Add(123456789)},
		{JobID: j.ID, CardID: a.ID, Clip: clip, Source: "/mnt/raid/Day 1 🎬/A001 🎬/" + clip + ".mov", Dest: "rclone:s3:rushes/show",
			Path: "proxies/Day 1 🎬/A001 🎬/" + clip + " (2).mp4", Preset: "h264", TCStart: "10:00:01:00", Sums: psums, Size: 9,
			State: catalog.ProxyMade, MadeAt: at(41), VerifyAlgos: "s3-etag:md5"},
		{JobID: j.ID, CardID: a.ID, Clip: "#bad", Source: "/mnt/raid/Day 1 🎬/A001 🎬/#bad.mov", Dest: "/mnt/raid", Preset: "h264",
			State: catalog.ProxyFailed, MadeAt: at(42), Error: "Invalid data found when processing input,\nConversion failed"},
	}
	for i := range rows {
		require.NoError(t, cat.AddProxy(&rows[i]))
	}
	require.NoError(t, cat.Flush())
	require.NoError(t, cat.SetJobState(j.ID, catalog.JobDone, at(50), ""))
	return cat, j.ID, rows
}

// The proxies sheet has a row per proxy, read from the catalog: its
// card, clip (the exact bytes of any Unicode name), preset, state,
// destination (a cloud one too), full path, source, start timecode,
// size, hashes (md5 added to the job's: the job has a cloud
// destination), how it was verified, when, and the error; quoted so that
// a CSV reader gets the fields back. It is one of the job's reports.
func TestProxySheetFromCatalog(t *testing.T) {
	cat, id, rows := proxiesFixture(t)
	r, err := Build(cat, id, Options{Now: func() time.Time { return generated }})
	require.NoError(t, err)
	require.True(t, slices.Contains(r.Outputs(), ProxySheetFormat), "written with the job's reports: %v", r.Outputs())
	require.Equal(t, "dit-report_job1_Day 1 🎬_proxies.csv", r.OutputName(ProxySheetFormat))
	var b bytes.Buffer
	require.NoError(t, r.Write(ProxySheetFormat, &b))
	all, err := csv.NewReader(bytes.NewReader(b.Bytes())).ReadAll()
	require.NoError(t, err, b.String())
	require.Equal(t, []string{"card", "clip", "preset", "state", "destination", "path", "source", "tc_start", "size_bytes",
		"xxh64", "md5", "verified_by", "made_utc", "error"}, all[0])
	require.Len(t, all, 1+len(rows))
	for i, p := range rows {
		path := ""
		if p.Path != "" {
			path = p.Dest + "/" + p.Path
		}
		made := "" // a proxy that failed was not made: no time
		if p.State == catalog.ProxyMade {
			made = p.MadeAt.UTC().Format(time.RFC3339Nano)
		}
		want := []string{"A001 🎬", p.Clip, "h264", p.State, p.Dest, path, p.Source, p.TCStart, strconv.FormatInt(p.Size, 10),
			p.Sums.Get(hashing.XXH64), p.Sums.Get(hashing.MD5), p.VerifyAlgos, made, p.Error}
		require.Equal(t, want, all[i+1], "row %d", i+1)
	}
	require.Equal(t, "場景 🎬 Cafe\u0301, take \"2\"", all[1][1], "the clip's name byte for byte (NFD kept)")
	require.Equal(t, []string{"failed", ""}, []string{all[3][3], all[3][12]}, "a failed proxy's made_utc is empty")

	// Without proxies, no sheet among the reports.
	r.Cards[0].Proxies = nil
	require.False(t, slices.Contains(r.Outputs(), ProxySheetFormat))
}

// A catalog that fails while the sheet is written ends it with a
// "# INCOMPLETE" row and an error naming the job.
func TestProxySheetIncomplete(t *testing.T) {
	cat, id, _ := proxiesFixture(t)
	r, err := Build(cat, id, Options{})
	require.NoError(t, err)
	require.NoError(t, cat.Close())
	var b bytes.Buffer
	err = r.WriteProxySheet(&b)
	require.ErrorContains(t, err, "reading the proxies of job 1 from the catalog")
	require.Contains(t, b.String(), "\n# INCOMPLETE: ")
}
