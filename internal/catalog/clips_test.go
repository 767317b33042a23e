package catalog

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Clips round-trip on both backends, are replaced per card, and are found
// by name (exactly, with * and ?, case-insensitive; % and _ are plain
// characters) with their job, card and copies.
func TestClips(t *testing.T) { eachBackend(t, testClips) }

func testClips(t *testing.T, b backend) {
	c := open(t, b.loc(t))
	j := &Job{Name: "day03", State: JobDone, Hashes: "xxh64", VerifyMode: "dest", VerifyHashes: "fastest",
		Layout: "{job}/{card}", OnConflict: "fail", Started: time.Now()}
	require.NoError(t, c.CreateJob(j))
	k := &Card{JobID: j.ID, Label: "A023", Path: "/cards/A023", State: "verified"}
	require.NoError(t, c.AddCard(k))
	d := &Dest{JobID: j.ID, Path: "/raid"}
	require.NoError(t, c.AddDest(d))
	poster := "A023R1AB/A023C004_230512_R1AB.mxf"
	c.PutFile(&File{CardID: k.ID, Rel: poster, Size: 10, Mtime: time.Unix(1, 0), State: "verified"})
	c.PutCopy(k.ID, poster, &Copy{DestID: d.ID, Path: "day03/A023/" + poster, State: "verified"})
	first := []Clip{
		{Name: "A023C004_230512_R1AB", Reel: "A023", Family: "ARRI", Camera: "ARRI ALEXA 35", Type: "ProRes", Codec: "Apple ProRes 4444 XQ",
			Poster: poster, Files: 2, Bytes: 10, Frames: 120, FPS: "25", Seconds: 4.8, Resolution: "4608x3164", TCStart: "10:00:00:00",
			Serial: "60012", Verified: true, Thumb: "thumbnails/A023/A023C004_230512_R1AB.jpg"},
		{Name: "A023C005_230512_R1AB", Type: "ProRes", Poster: "A023R1AB/A023C005_230512_R1AB.mxf", ThumbNote: "ffmpeg not found"},
		{Name: "A023C0_5%", Type: "ProRes", Poster: "x.mxf"},
	}
	require.NoError(t, c.SetClips(k.ID, first))
	got, err := c.Clips(k.ID)
	require.NoError(t, err)
	require.Len(t, got, 3)
	want := first[0]
	want.CardID, want.Seq = k.ID, 1
	require.Equal(t, want, got[0])
	require.Equal(t, 2, got[1].Seq)
	require.Equal(t, "ffmpeg not found", got[1].ThumbNote)
	require.False(t, got[1].Verified)

	names := func(p string) []string {
		found, err := c.ClipsNamed(p)
		require.NoError(t, err)
		var out []string
		for _, f := range found {
			out = append(out, f.Name)
		}
		return out
	}
	require.Equal(t, []string{"A023C004_230512_R1AB"}, names("a023c004_230512_r1ab"))
	require.Equal(t, []string{"A023C004_230512_R1AB", "A023C005_230512_R1AB"}, names("A023C00?_*"))
	require.Equal(t, []string{"A023C0_5%"}, names("*_5%"))
	require.Empty(t, names("A023C0_5"))
	found, err := c.ClipsNamed("*C004*")
	require.NoError(t, err)
	require.Len(t, found, 1)
	require.Equal(t, j.ID, found[0].JobID)
	require.Equal(t, "day03", found[0].JobName)
	require.Equal(t, "A023", found[0].CardLabel)
	require.Equal(t, []ClipDest{{Dest: "/raid", Path: "day03/A023/" + poster, State: "verified"}}, found[0].Copies)

	// Doing a card again replaces its clips.
	require.NoError(t, c.SetClips(k.ID, first[:1]))
	got, err = c.Clips(k.ID)
	require.NoError(t, err)
	require.Len(t, got, 1)
}
