package jobreport

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/clips"
	"github.com/dit-org/dit/internal/format/ale"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/testneeds"
)

// mediaReport is a job of one card whose clips' sound the media said:
// two mono PCM tracks, none (MOS), and one nothing read; the first
// disagreed with its sidecar.
func mediaReport() *Report {
	return &Report{Job: Job{ID: 5, Name: "day05", Layout: "{job}/{card}"}, Destinations: []DestTotals{{Path: "/Volumes/RAID"}},
		Cards: []Card{{CardFigures: offload.CardFigures{Label: "A001"}, Clips: []Clip{
			{Name: "A001C001", FPS: "25", Frames: 96, TCStart: "10:00:00:00", TCEnd: "10:00:03:21", SourceFile: "A001C001.mxf",
				Audio:     &clips.Audio{Streams: 2, Channels: 2, Rate: 48000, Bits: 24, Codec: "PCM"},
				Conflicts: []string{"frames: sidecar 120, media 96 (the media's kept)"}},
			{Name: "A001C002", FPS: "25", Frames: 50, TCStart: "11:00:00:00", TCEnd: "11:00:02:00", SourceFile: "A001C002.mxf", Audio: &clips.Audio{}},
			{Name: "A001C003", FPS: "25", Frames: 25, TCStart: "12:00:00:00", TCEnd: "12:00:01:00", SourceFile: "A001C003.braw"},
		}}}, ale: true}
}

// The ALE's Tracks are the media's: picture and one A per audio channel
// (VA1A2), V for a clip without sound and for one nothing read the sound
// of; the EDL's track is B (picture and sound) for the clip with sound,
// the FCPXML's asset says its channels and rate.
func TestEditorialListsCarryTheMediasSound(t *testing.T) {
	r := mediaReport()
	var b bytes.Buffer
	require.NoError(t, r.Write("ale", &b))
	_, cols, rows, err := ale.Read(&b)
	require.NoError(t, err)
	tracks := -1
	for i, c := range cols {
		if c == "Tracks" {
			tracks = i
		}
	}
	require.Equal(t, []string{"VA1A2", "V", "V"}, []string{rows[0][tracks], rows[1][tracks], rows[2][tracks]})

	b.Reset()
	require.NoError(t, r.Write("edl", &b))
	var events []string
	for _, l := range strings.Split(b.String(), "\n") {
		if f := strings.Fields(l); len(f) == 8 && f[3] == "C" {
			events = append(events, f[2])
		}
	}
	require.Equal(t, []string{"B", "V", "V"}, events, b.String())

	b.Reset()
	require.NoError(t, r.Write("fcpxml", &b))
	x := b.String()
	require.Contains(t, x, `name="A001C001" start="90000000/2500s" duration="9600/2500s" hasVideo="1" hasAudio="1" audioSources="1" audioChannels="2" audioRate="48k"`)
	require.Equal(t, 1, strings.Count(x, "hasAudio"), "only the clip with sound has audio:\n%s", x)
}

// Where the media and a sidecar disagreed, the clip sheet, the HTML and
// the PDF say so under the card's clips; the clip sheet and the HTML
// give each clip's sound.
func TestReportsShowConflictsAndSound(t *testing.T) {
	r := mediaReport()
	var b bytes.Buffer
	require.NoError(t, r.Write(ClipSheetFormat, &b))
	recs, err := csv.NewReader(&b).ReadAll()
	require.NoError(t, err)
	head := recs[0]
	col := func(name string) int {
		for i, h := range head {
			if h == name {
				return i
			}
		}
		t.Fatalf("no column %s in %q", name, head)
		return -1
	}
	require.Equal(t, "2 ch, 24-bit PCM, 48 kHz", recs[1][col("audio")])
	require.Equal(t, "frames: sidecar 120, media 96 (the media's kept)", recs[1][col("conflicts")])
	require.Equal(t, []string{"none", ""}, []string{recs[2][col("audio")], recs[2][col("conflicts")]})
	require.Equal(t, "", recs[3][col("audio")], "nothing read the sound of a BRAW")

	b.Reset()
	require.NoError(t, r.Write("html", &b))
	html := b.String()
	require.Contains(t, html, "<th>Audio</th>")
	require.Contains(t, html, "<td>2 ch, 24-bit PCM, 48 kHz</td>")
	require.Contains(t, html, "Media and sidecar disagree (the media&#39;s values are kept):")
	require.Contains(t, html, "<li>A001C001: frames: sidecar 120, media 96 (the media&#39;s kept)</li>")
	require.Equal(t, 1, strings.Count(html, "<li>A001C"), "one disagreement")

	testneeds.Tool(t, "pdftotext", "Debian: apt-get install poppler-utils")
	text := strings.Join(pdfAllTextLines(t, writePDF(t, r)), "\n")
	require.Contains(t, text, ConflictsTitle)
	require.Contains(t, text, "A001C001: frames: sidecar 120, media 96 (the media's kept)")
	require.Contains(t, strings.Fields(text), "none", "the MOS clip's Audio cell")
}

// Build reads each clip's sound and disagreements from the catalog's
// clips: a report built from the catalog says them, the ALE's Tracks
// included; a clip whose sound nothing read (as every clip of a catalog
// older than its schema version 25) has no audio and Tracks "V".
func TestBuildReadsClipSoundFromCatalog(t *testing.T) {
	cat, id := fixture(t)
	cards, err := cat.Cards(id)
	require.NoError(t, err)
	a := cards[0]
	require.NoError(t, cat.SetClips(a.ID, []catalog.Clip{{Name: "A001C001", Type: "ProRes", Poster: "Clips/A001C001.mov", FPS: "25", Frames: 50,
		TCStart: "10:00:00:00", Verified: true, Audio: &catalog.ClipAudio{Streams: 2, Channels: 2, Rate: 48000, Bits: 24, Codec: "PCM"},
		Conflicts: []string{"fps: sidecar 24, media 25 (the media's kept)"}},
		{Name: "A001C002 été", Type: "ProRes", Poster: "Clips/A001C002 été.mov", FPS: "25", Frames: 25, TCStart: "11:00:00:00"}}))
	r, err := Build(cat, id, Options{Now: func() time.Time { return generated }, ALE: true})
	require.NoError(t, err)
	k := r.Cards[0].Clips
	require.Equal(t, &clips.Audio{Streams: 2, Channels: 2, Rate: 48000, Bits: 24, Codec: "PCM"}, k[0].Audio)
	require.Equal(t, []string{"fps: sidecar 24, media 25 (the media's kept)"}, k[0].Conflicts)
	require.Nil(t, k[1].Audio, "nothing read the sound of the second clip")
	require.Empty(t, k[1].Conflicts)

	var b bytes.Buffer
	require.NoError(t, r.Write("ale", &b))
	_, cols, rows, err := ale.Read(&b)
	require.NoError(t, err)
	tracks := -1
	for i, c := range cols {
		if c == "Tracks" {
			tracks = i
		}
	}
	require.Len(t, rows, 2)
	require.Equal(t, []string{"VA1A2", "V"}, []string{rows[0][tracks], rows[1][tracks]})
}
