package jobreport

import (
	"bytes"
	"context"
	"encoding/csv"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/format/ale"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/testcards"
	"github.com/dit-org/dit/internal/testneeds"
)

// The reports a job writes at its end (the Clipper's, with what ffprobe
// read of each clip's sound and where a sidecar disagreed with the
// media) and the same reports built later from the catalog alone (a
// new Catalog on the file, a Build with no Clipper: what dit report
// does) are the same: the ALE's Tracks (VA1A2 for two channels, V where
// nothing read the sound), the clip sheet's audio and conflicts, the
// HTML's disagreements. The family cards (testcards) are the media: an
// ARRI MXF with two and four PCM tracks, Sony MP4s whose M01.XML says 60
// frames and 4 channels of a clip of 48 and 2, a BRAW and an R3D nothing
// reads the sound of.
func TestReportFromCatalogAloneKeepsSound(t *testing.T) {
	ffmpeg := testneeds.Tool(t, "ffmpeg", "Debian: apt-get install ffmpeg")
	testneeds.Tool(t, "ffprobe", "Debian: apt-get install ffmpeg")
	ctx := context.Background()
	dir := t.TempDir()
	cards, err := testcards.MakeFamilyCards(ctx, ffmpeg, filepath.Join(dir, "cards"))
	require.NoError(t, err)
	// The BRAW's sidecar says what the camera was set to, as Blackmagic
	// writes it (white balance a bare number of kelvin).
	braw := filepath.Join(cards[2].Path, "C001_08151432_C001.sidecar")
	side, err := os.ReadFile(braw)
	require.NoError(t, err, cards[2].Family)
	side = bytes.Replace(side, []byte("{"), []byte(`{"iso": 800, "white_balance_kelvin": 5600, "lens_type": "Zeiss CP.3 50mm T2.1", `), 1)
	require.NoError(t, os.WriteFile(braw, side, 0o644))
	dbPath := filepath.Join(dir, "catalog.db")
	cat, err := catalog.Open(dbPath)
	require.NoError(t, err)
	defer func() { cat.Close() }()
	raidDir := filepath.Join(dir, "raid")
	id := copiedJob(t, cat, raidDir, cards)

	// The job's end: the Clipper reads the copies, then writes the reports.
	c := NewClipper(ctx, cat)
	c.ALE = true
	require.True(t, c.FFmpeg())
	require.NoError(t, c.AfterJob(nil)(ctx, &offload.Summary{JobID: id}, nil))
	require.NoError(t, cat.Close())

	// Later, from the catalog alone.
	cat, err = catalog.Open(dbPath)
	require.NoError(t, err)
	later, err := Build(cat, id, Options{ALE: true, Now: func() time.Time { return generated }})
	require.NoError(t, err)
	// What the GUI's History lists, read without building the report:
	// the report's clips, poster frames and note.
	byLabel, note, err := JobClips(cat, id, Options{})
	require.NoError(t, err)
	require.Equal(t, later.ThumbnailsNote, note)
	posters := 0
	for _, c := range later.Cards {
		require.Equal(t, c.Clips, byLabel[c.Label], c.Label)
		for _, k := range byLabel[c.Label] {
			if len(k.jpeg) > 0 {
				posters++
			}
		}
	}
	require.Positive(t, posters, "poster frames read from the reports folder")
	var labels []string
	for _, k := range cards {
		labels = append(labels, k.Label)
	}
	j, err := cat.Job(id)
	require.NoError(t, err)
	reports := filepath.Join(raidDir, filepath.FromSlash(Dir(j.Layout, j.Name, j.Started, labels)))

	outs := later.Outputs()
	require.Contains(t, outs, ClipSheetFormat)
	var ales []string
	for _, f := range outs {
		if f == ClipSheetFormat || strings.HasPrefix(f, "ale") {
			ales = append(ales, f)
		}
	}
	require.Greater(t, len(ales), 2, "the clip sheet and an ALE per rate: %q", outs)
	tracks := map[string]string{}
	for _, f := range ales {
		atEnd, err := os.ReadFile(filepath.Join(reports, later.OutputName(f)))
		require.NoError(t, err, "the job's %s", f)
		var b bytes.Buffer
		require.NoError(t, later.Write(f, &b))
		require.Equal(t, string(atEnd), b.String(), "%s: the job's and one built later from the catalog", f)
		if f == ClipSheetFormat {
			continue
		}
		_, cols, rows, err := ale.Read(&b)
		require.NoError(t, err, f)
		name, tr := colIndex(t, cols, "Name"), colIndex(t, cols, "Tracks")
		for _, r := range rows {
			tracks[r[name]] = r[tr]
			if r[name] == "C001_08151432_C001" {
				shot := []string{r[colIndex(t, cols, "ISO")], r[colIndex(t, cols, "White Balance")], r[colIndex(t, cols, "Lens")]}
				require.Equal(t, []string{"800", "5600K", "Zeiss CP.3 50mm T2.1"}, shot, "the ALE says what the camera was set to")
			}
		}
	}
	n := 0
	for _, k := range cards {
		for _, clip := range k.Clips {
			require.Equal(t, ale.Tracks(max(clip.Channels, 0)), tracks[clip.Name], "%s of %s", clip.Name, k.Family)
			n++
		}
	}
	require.Equal(t, n, len(tracks))
	require.Equal(t, "VA1A2A3A4", tracks["A001C002_230512_R2EC"], "the ARRI clip of four tracks")

	var b bytes.Buffer
	require.NoError(t, later.Write(ClipSheetFormat, &b))
	recs, err := csv.NewReader(&b).ReadAll()
	require.NoError(t, err)
	name, audio, conflicts := colIndex(t, recs[0], "name"), colIndex(t, recs[0], "audio"), colIndex(t, recs[0], "conflicts")
	sheet := map[string][2]string{}
	for _, r := range recs[1:] {
		sheet[r[name]] = [2]string{r[audio], r[conflicts]}
	}
	require.Equal(t, [2]string{"2 ch, AAC, 48 kHz", "audio channels: sidecar 4, media 2 (the media's kept); frames: sidecar 60, media 48 (the media's kept)"}, sheet["C0001"])
	require.Equal(t, [2]string{"4 ch, 24-bit PCM, 48 kHz", ""}, sheet["A001C002_230512_R2EC"])
	require.Equal(t, [2]string{"", ""}, sheet["C001_08151432_C001"], "nothing read the sound of the BRAW")
	iso, wb, lens := colIndex(t, recs[0], "iso"), colIndex(t, recs[0], "white_balance"), colIndex(t, recs[0], "lens")
	for _, r := range recs[1:] {
		want := []string{"", "", ""}
		if r[name] == "C001_08151432_C001" {
			want = []string{"800", "5600K", "Zeiss CP.3 50mm T2.1"}
		}
		require.Equal(t, want, []string{r[iso], r[wb], r[lens]}, "%s: what its sidecar said the camera was set to, or nothing", r[name])
	}

	html, err := os.ReadFile(filepath.Join(reports, later.OutputName("html")))
	require.NoError(t, err)
	b.Reset()
	require.NoError(t, later.Write("html", &b))
	for _, h := range []string{string(html), b.String()} {
		require.Contains(t, h, "<li>C0001: frames: sidecar 60, media 48 (the media&#39;s kept)</li>")
		require.Contains(t, h, "<p class=\"note\">Camera settings (as the clips&#39; sidecars say them):</p>\n<ul class=\"note\">\n"+
			"<li>C001_08151432_C001: ISO 800, WB 5600K, lens Zeiss CP.3 50mm T2.1</li>\n</ul>", "only the clip whose sidecar says them")
	}
	if _, err := exec.LookPath("pdftotext"); err == nil {
		pdf, err := exec.Command("pdftotext", "-raw", filepath.Join(reports, later.OutputName("pdf")), "-").Output()
		require.NoError(t, err)
		require.Contains(t, string(pdf), "C001_08151432_C001: ISO 800, WB 5600K, lens Zeiss CP.3 50mm T2.1")
	}
}

// colIndex is the index of column name in head.
func colIndex(t *testing.T, head []string, name string) int {
	t.Helper()
	for i, h := range head {
		if h == name {
			return i
		}
	}
	t.Fatalf("no column %s in %q", name, head)
	return -1
}

// copiedJob records in cat a finished job "day01" that copied cards into
// folder dest ({job}/{card}) and verified every copy, and makes those
// copies.
func copiedJob(t *testing.T, cat *catalog.Catalog, dest string, cards []testcards.FamilyCard) int64 {
	t.Helper()
	j := &catalog.Job{Name: "day01", State: catalog.JobRunning, Host: "dit-test-host", ToolVersion: "1.0.0-test",
		Hashes: "xxh64", VerifyMode: "dest", VerifyHashes: "fastest", Layout: "{job}/{card}", OnConflict: "fail", Started: t0}
	require.NoError(t, cat.CreateJob(j))
	d := &catalog.Dest{JobID: j.ID, Path: dest}
	require.NoError(t, cat.AddDest(d))
	run, err := cat.StartRun(j.ID, t0)
	require.NoError(t, err)
	for i, fc := range cards {
		k := &catalog.Card{JobID: j.ID, Seq: i, Label: fc.Label, Path: fc.Path, State: "pending"}
		require.NoError(t, cat.AddCard(k))
		err := filepath.WalkDir(fc.Path, func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return err
			}
			rel, err := filepath.Rel(fc.Path, p)
			if err != nil {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out := filepath.Join(dest, "day01", fc.Label, rel)
			if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(out, b, 0o644); err != nil {
				return err
			}
			rel = filepath.ToSlash(rel)
			cat.PutFile(&catalog.File{CardID: k.ID, Rel: rel, Size: int64(len(b)), Mtime: t0, State: "verified"})
			cat.PutCopy(k.ID, rel, &catalog.Copy{DestID: d.ID, Path: "day01/" + fc.Label + "/" + rel, State: "verified", Written: true,
				VerifyAlgos: "xxh64", VerifiedAt: at(10)})
			k.Files++
			k.Bytes += int64(len(b))
			return nil
		})
		require.NoError(t, err)
		k.State, k.CopyStarted, k.CopyFinished, k.VerifyStarted, k.VerifyFinished = "verified", at(0), at(5), at(1), at(10)
		cat.UpdateCard(k)
	}
	require.NoError(t, cat.EndRun(j.ID, run, at(20)))
	require.NoError(t, cat.Flush())
	require.NoError(t, cat.SetJobState(j.ID, catalog.JobDone, at(20), ""))
	return j.ID
}
