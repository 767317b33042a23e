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
			ClipShot: ClipShot{Serial: "60012"}, Verified: true, Thumb: "thumbnails/A023/A023C004_230512_R1AB.jpg"},
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

// A clip's sound, its disagreements with its sidecars and what the camera
// was set to round-trip on both backends (nil: nothing read the sound; a zero ClipAudio: the media
// has none) and go with a push to a shared catalog.
func TestClipAudioAndConflicts(t *testing.T) { eachBackend(t, testClipAudioAndConflicts) }

func testClipAudioAndConflicts(t *testing.T, b backend) {
	c := open(t, b.loc(t))
	j := &Job{Name: "day05", State: JobDone, Hashes: "xxh64", VerifyMode: "dest", VerifyHashes: "fastest",
		Layout: "{job}/{card}", OnConflict: "fail", Started: time.Now()}
	require.NoError(t, c.CreateJob(j))
	k := &Card{JobID: j.ID, Label: "A001", Path: "/cards/A001", State: "verified"}
	require.NoError(t, c.AddCard(k))
	require.NoError(t, c.AddDest(&Dest{JobID: j.ID, Path: "/raid"}))
	clips := []Clip{
		{Name: "A001C001", Type: "ProRes", Poster: "A001C001.mxf", Audio: &ClipAudio{Streams: 2, Channels: 4, Rate: 48000, Bits: 24, Codec: "PCM"},
			Conflicts: []string{"frames: sidecar 120, media 96 (the media's kept)", `audio channels: sidecar 2, media 4 (the media's kept) "été" 🎬`},
			ClipShot:  ClipShot{Serial: "20012", ISO: "800", WhiteBalance: "5600K", Lens: `Signature Prime 35mm "T1.8" 🎬`}},
		{Name: "A001C002", Type: "ProRes", Poster: "A001C002.mxf", Audio: &ClipAudio{}},
		{Name: "A001C003", Type: "BRAW", Poster: "A001C003.braw"},
	}
	require.NoError(t, c.SetClips(k.ID, clips))
	check := func(c *Catalog, cardID int64) {
		t.Helper()
		got, err := c.Clips(cardID)
		require.NoError(t, err)
		require.Len(t, got, 3)
		for i := range clips {
			require.Equal(t, clips[i].Audio, got[i].Audio, clips[i].Name)
			require.Equal(t, clips[i].Conflicts, got[i].Conflicts, clips[i].Name)
			require.Equal(t, clips[i].ClipShot, got[i].ClipShot, clips[i].Name)
		}
		require.NotNil(t, got[1].Audio, "no sound is not nothing known")
		require.Nil(t, got[2].Audio, "nothing read the sound of a BRAW")
	}
	check(c, k.ID)
	found, err := c.ClipsNamed("A001C001")
	require.NoError(t, err)
	require.Len(t, found, 1)
	require.Equal(t, clips[0].Audio, found[0].Audio)
	require.Equal(t, clips[0].Conflicts, found[0].Conflicts)

	shared := open(t, b.loc(t))
	r, err := c.PushJob(j.ID, shared)
	require.NoError(t, err)
	cards, err := shared.Cards(r.ID)
	require.NoError(t, err)
	require.Len(t, cards, 1)
	check(shared, cards[0].ID)
}

// A catalog written before version 25 opens and is migrated; its clips
// read as nothing having read their sound and no disagreement (the ALE
// then says "V" for them, never an invented track), and new clips of it
// keep theirs.
func TestClipsOfVersion24(t *testing.T) { eachBackend(t, testClipsOfVersion24) }

func testClipsOfVersion24(t *testing.T, b backend) {
	loc := b.loc(t)
	old, err := openAt(loc, 24)
	require.NoError(t, err)
	j := &Job{Name: "day04", State: JobDone, Hashes: "xxh64", VerifyMode: "dest", VerifyHashes: "fastest",
		Layout: "{job}/{card}", OnConflict: "fail", Started: time.Now()}
	require.NoError(t, old.CreateJob(j))
	k := &Card{JobID: j.ID, Label: "A001", Path: "/cards/A001", State: "verified"}
	require.NoError(t, old.AddCard(k))
	// The clips row as version 24 had it.
	_, err = old.Exec(`INSERT INTO clips (card_id,seq,name,reel,family,camera,clip_type,codec,poster,files,bytes,frames,fps,seconds,resolution,tc_start,serial,verified,thumb,thumb_note)
		VALUES (?,1,'A001C001','A001','ARRI','ARRI ALEXA','ProRes','prores','A001C001.mxf',2,10,96,'25',3.84,'1920x1080','10:00:00:00','',1,'','')`, k.ID)
	require.NoError(t, err)
	v, err := old.SchemaVersion()
	require.NoError(t, err)
	require.Equal(t, 24, v)
	require.NoError(t, old.Close())

	c := open(t, loc)
	v, err = c.SchemaVersion()
	require.NoError(t, err)
	require.Equal(t, LatestVersion(), v)
	require.GreaterOrEqual(t, v, 25)
	got, err := c.Clips(k.ID)
	require.NoError(t, err)
	require.Len(t, got, 1)
	require.Equal(t, "A001C001", got[0].Name)
	require.Equal(t, 96, got[0].Frames)
	require.True(t, got[0].Verified)
	require.Nil(t, got[0].Audio, "a clip of version 24: nothing known of its sound")
	require.Empty(t, got[0].Conflicts)
	require.Equal(t, ClipShot{}, got[0].ClipShot, "nor what the camera was set to")

	two := &ClipAudio{Streams: 1, Channels: 2, Rate: 48000, Bits: 24, Codec: "PCM"}
	require.NoError(t, c.SetClips(k.ID, []Clip{{Name: "A001C001", Poster: "A001C001.mxf", Audio: two, Conflicts: []string{"fps: sidecar 24, media 25 (the media's kept)"}}}))
	got, err = c.Clips(k.ID)
	require.NoError(t, err)
	require.Equal(t, two, got[0].Audio)
	require.Equal(t, []string{"fps: sidecar 24, media 25 (the media's kept)"}, got[0].Conflicts)
}
