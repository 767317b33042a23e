package clips

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/testcards"
)

// want is what a fixture card must give: its family, camera and type,
// and each clip's name, media and sidecar counts, frames, rate, seconds,
// and the sidecar fields.
type want struct {
	family, camera, typ string
	other               int
	clips               []wantClip
}

type wantClip struct {
	name, reel, camera, typ, codec string
	media, sidecars, frames        int
	fps                            string
	seconds                        float64
	res, tc, serial                string
}

func TestRecognizeFixtures(t *testing.T) {
	cases := map[string]want{
		"alexa35_arriraw": {FamilyARRI, "ARRI ALEXA 35", TypeARRIRAW, 0, []wantClip{
			{"A002C003_230512_R1AB", "A002", "ARRI ALEXA 35", TypeARRIRAW, "ARRIRAW HDE", 48, 1, 48, "24", 2, "4608x3164", "14:03:11:00", "60012"},
			{"A002C004_230512_R1AB", "A002", "ARRI ALEXA 35", TypeARRIRAW, "ARRIRAW HDE", 30, 1, 30, "24", 1.25, "4608x3164", "14:05:40:12", "60012"},
		}},
		"minilf_prores": {FamilyARRI, "ARRI ALEXA Mini LF", TypeProRes, 0, []wantClip{
			{"A005C001_190924_R2EC", "A005", "ARRI ALEXA Mini LF", TypeProRes, "ProRes 4444 XQ", 1, 1, 120, "25", 4.8, "4448x3096", "10:00:00:00", "2914"},
			{"A005C002_190924_R2EC", "A005", "ARRI ALEXA Mini LF", TypeProRes, "ProRes 4444 XQ", 1, 1, 60, "25", 2.4, "4448x3096", "10:02:13:05", "2914"},
		}},
		// Thumbnails, MEDIAPRO.XML and the planning metadata are files.
		"venice_xocn": {FamilySony, "Sony VENICE 2 (8.6K)", TypeXOCN, 4, []wantClip{
			{"A001C001_220101XY", "A001", "Sony VENICE 2 (8.6K)", TypeXOCN, "X-OCN ST", 1, 1, 240, "23.976", 10.01, "6048x4032", "01:23:10:00", "0012345"},
			{"A001C002_220101XY", "A001", "Sony VENICE 2 (8.6K)", TypeXOCN, "X-OCN ST", 1, 1, 96, "23.976", 4.004, "6048x4032", "01:24:30:12", "0012345"},
		}},
		// The proxies in SUB go with their clip.
		"fx6_xavc": {FamilySony, "Sony FX6", TypeXAVC, 4, []wantClip{
			{"C0001", "", "Sony FX6", TypeXAVC, "XAVC H.264 HP@L51", 1, 2, 300, "25", 12, "3840x2160", "10:00:00:00", "5012345"},
			{"C0002", "", "Sony FX6", TypeXAVC, "XAVC H.264 HP@L51", 1, 2, 125, "25", 5, "3840x2160", "10:34:05:12", "5012345"},
		}},
		// R3D metadata is binary: names and segments only.
		"red_komodo": {FamilyRED, "RED", TypeR3D, 0, []wantClip{
			{"A001_C001_0512AB", "A001", "RED", TypeR3D, "REDCODE", 3, 0, 0, "", 0, "", "", ""},
			{"A001_C002_0512AB", "A001", "RED", TypeR3D, "REDCODE", 1, 0, 0, "", 0, "", "", ""},
		}},
		"bmd_braw": {FamilyBlackmagic, "Blackmagic URSA Mini Pro 12K", TypeBRAW, 0, []wantClip{
			{"A001_05121432_C001", "A001", "Blackmagic URSA Mini Pro 12K", TypeBRAW, "BRAW", 1, 1, 72, "24", 3, "", "10:00:00:00", ""},
			{"A001_05121440_C002", "A001", "Blackmagic", TypeBRAW, "BRAW", 1, 0, 0, "", 0, "", "", ""},
		}},
		"canon_crm": {FamilyCanon, "Canon EOS C300 Mark III", TypeCRM, 1, []wantClip{
			{"A001C001_230512AB_CANON", "A001", "Canon EOS C300 Mark III", TypeCRM, "Cinema RAW Light HQ", 1, 1, 120, "23.976", 5.005, "4096x2160", "01:00:00:00", "123456789012"},
			{"A001C002_230512AB_CANON", "A001", "Canon EOS C300 Mark III", TypeCRM, "Cinema RAW Light HQ", 1, 1, 48, "23.976", 2.002, "4096x2160", "01:00:10:02", "123456789012"},
		}},
		// GX010001.THM goes with its movie; the low-res GL010001.LRV, a
		// still and the camera's version file are files.
		"dcim_gopro": {FamilyDCIM, "", TypeDCIM, 3, []wantClip{
			{"GX010001", "", "", TypeDCIM, "", 1, 1, 0, "", 0, "", "", ""},
			{"GX010003", "", "", TypeDCIM, "", 1, 0, 0, "", 0, "", "", ""},
		}},
		// Three stills (four-digit numbers), a cinema DNG sequence, a
		// loose movie, a text file.
		"mixed": {FamilyDCIM, "", TypeDNG, 4, []wantClip{
			{"A003C007_230512", "A003", "", TypeDNG, "CinemaDNG", 12, 0, 12, "", 0, "", "", ""},
			{"interview", "", "", TypeVideo, "", 1, 0, 0, "", 0, "", "", ""},
		}},
		"unknown": {"", "", TypeFiles, 3, nil},
	}
	ents, err := os.ReadDir("testdata")
	require.NoError(t, err)
	require.Len(t, ents, len(cases), "a fixture without a case, or a case without a fixture")
	for name, w := range cases {
		t.Run(name, func(t *testing.T) {
			k, err := RecognizeDir(filepath.Join("testdata", name))
			require.NoError(t, err)
			require.Equal(t, [3]string{w.family, w.camera, w.typ}, [3]string{k.Family, k.Camera, k.Type})
			require.Equal(t, w.other, k.Other, "files in no clip")
			require.Len(t, k.Clips, len(w.clips))
			for i, wc := range w.clips {
				c := k.Clips[i]
				got := wantClip{c.Name, c.Reel, c.Camera, c.Type, c.Codec, len(c.Media), len(c.Sidecars), c.Frames, c.FPS, c.Seconds,
					c.Resolution, c.TCStart, c.Serial}
				require.Equal(t, wc, got)
				require.Equal(t, c.Media[0], c.Poster)
				var size int64
				for _, f := range c.Files() {
					fi, err := os.Stat(filepath.Join("testdata", name, filepath.FromSlash(f)))
					require.NoError(t, err)
					size += fi.Size()
				}
				require.Equal(t, size, c.Bytes, "the clip's bytes are its files'")
			}
		})
	}
}

// A card's files all belong to one clip at most, and nothing is lost:
// clip files plus other files are the card's files (junk left out).
func TestRecognizeAccountsForEveryFile(t *testing.T) {
	ents, err := os.ReadDir("testdata")
	require.NoError(t, err)
	for _, e := range ents {
		root := filepath.Join("testdata", e.Name())
		var n int
		require.NoError(t, filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if d.Type().IsRegular() && !strings.HasPrefix(d.Name(), ".") {
				n++
			}
			return err
		}))
		k, err := RecognizeDir(root)
		require.NoError(t, err)
		seen := map[string]bool{}
		for _, c := range k.Clips {
			for _, f := range c.Files() {
				require.False(t, seen[f], "%s in two clips", f)
				seen[f] = true
			}
		}
		require.Equal(t, n, len(seen)+k.Other, e.Name())
	}
}

// Nothing on a card is an error: no files, names only (no sidecars
// readable), sidecars that are not XML or JSON at all.
func TestRecognizeNeverFails(t *testing.T) {
	k := Recognize(nil, nil)
	require.Equal(t, TypeFiles, k.Type)
	require.Empty(t, k.Clips)
	k = Recognize([]File{{"XDROOT/Clip/A001C001_220101XY.mxf", 10}, {"XDROOT/Clip/A001C001_220101XYM01.XML", 5}},
		func(string) ([]byte, error) { return []byte("\x00\x01 not xml <<<"), nil })
	require.Len(t, k.Clips, 1)
	require.Equal(t, "A001C001_220101XY", k.Clips[0].Name)
	require.Equal(t, TypeXAVC, k.Clips[0].Type)
	require.Zero(t, k.Clips[0].Frames)
}

func TestTimecodeAndRates(t *testing.T) {
	require.Equal(t, "01:02:03:04", timecode("04030201"))
	require.Equal(t, "23:59:59:23", timecode("23595923")) // flag bits set in the high bits would be masked
	require.Equal(t, "01:00:00;00", timecode("40000001"), "SMPTE 12M's drop-frame flag in the frames' byte")
	require.Equal(t, "01:10:00;10", timecode("50001001"))
	require.Equal(t, "10:00:00:00", timecode("10:00:00:00"))
	require.Equal(t, "", timecode("garbage"))
	require.InDelta(t, 24000.0/1001, FPSValue("23.98p"), 1e-9)
	require.InDelta(t, 30000.0/1001, FPSValue("29.97"), 1e-9)
	require.InDelta(t, 24000.0/1001, FPSValue("24000/1001"), 1e-9)
	require.Equal(t, 25.0, FPSValue("25"))
	require.Equal(t, "23.976", FormatFPS(FPSValue("23.98p")))
	require.Equal(t, "59.94", FormatFPS(FPSValue("59.94i")))
}

// The cards dit testdata cards generates are recognised: every clip of
// every style, by name, with what their sidecars say.
func TestRecognizeTestcards(t *testing.T) {
	for _, style := range []string{testcards.StyleClips, testcards.StyleFrames, testcards.StyleDNG, testcards.StyleMixed} {
		t.Run(style, func(t *testing.T) {
			dir := t.TempDir()
			cards, err := testcards.Generate(context.Background(), testcards.Options{Out: dir, Cards: 1, Size: 40_000_000, Seed: 7, Style: style})
			require.NoError(t, err)
			root := cards[0].Path
			// The clips as the generator laid them out: a .mov in CLIPS/,
			// a folder of frames in XDROOT/Clip/ or DCIM/.
			var names []string
			require.NoError(t, filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
				rel, _ := filepath.Rel(root, p)
				rel = filepath.ToSlash(rel)
				switch {
				case strings.HasPrefix(d.Name(), "."):
				case !d.IsDir() && path.Dir(rel) == "CLIPS" && strings.HasSuffix(rel, ".mov"):
					names = append(names, strings.TrimSuffix(d.Name(), ".mov"))
				case d.IsDir() && (path.Dir(rel) == "XDROOT/Clip" || path.Dir(rel) == "DCIM"):
					names = append(names, d.Name())
				}
				return err
			}))
			require.NotEmpty(t, names)
			k, err := RecognizeDir(root)
			require.NoError(t, err)
			var got []string
			for _, c := range k.Clips {
				got = append(got, c.Name)
				switch c.Type {
				case TypeProRes:
					require.Equal(t, "ARRI ALEXA 35", c.Camera)
					require.Equal(t, "ProRes 4444 XQ", c.Codec)
					require.Equal(t, "24", c.FPS)
					require.Len(t, c.Sidecars, 1)
					require.NotEmpty(t, c.TCStart)
				case TypeXOCN:
					require.Equal(t, "Sony VENICE 2", c.Camera)
					require.Equal(t, len(c.Media), c.Frames)
					require.Equal(t, "23.976", c.FPS)
					require.Len(t, c.Sidecars, 1)
				case TypeDNG:
					require.Equal(t, len(c.Media), c.Frames)
				default:
					t.Fatalf("clip %s: type %s", c.Name, c.Type)
				}
			}
			sort.Strings(names)
			sort.Strings(got)
			require.Equal(t, names, got)
			// Files: the zero-byte MISC/EMPTY.txt, and the X-OCN card's
			// MEDIAPRO.XML.
			other := 1
			if _, err := os.Stat(filepath.Join(root, "XDROOT", "MEDIAPRO.XML")); err == nil {
				other++
			}
			require.Equal(t, other, k.Other)
		})
	}
}

// A frame sequence's clip is named after its prefix (or its folder when
// the frames have none) and classified by the frames' extension.
func TestSequenceClip(t *testing.T) {
	frames := []string{"f.1", "f.2"}
	for _, tc := range []struct {
		key                         seqKey
		name, family, camera, codec string
		typ                         string
	}{
		{seqKey{"A001C003", "A001C003_.", "ari"}, "A001C003", FamilyARRI, "ARRI ALEXA", "ARRIRAW", TypeARRIRAW},
		{seqKey{"A001C003", "A001C003.", "arx"}, "A001C003", FamilyARRI, "ARRI ALEXA", "ARRIRAW HDE", TypeARRIRAW},
		{seqKey{"CLIP/V001", "", "xocn"}, "V001", FamilySony, "Sony", "X-OCN", TypeXOCN},
		{seqKey{"DCIM/100", "frame_", "dng"}, "frame", FamilyDCIM, "", "CinemaDNG", TypeDNG},
		{seqKey{"reel/shot", "shot-", "dng"}, "shot", "", "", "CinemaDNG", TypeDNG},
		{seqKey{"reel", "plate.", "exr"}, "plate", "", "", "", "OpenEXR"},
	} {
		c := sequenceClip(tc.key, frames)
		require.Equal(t, tc.name, c.Name, "%+v", tc.key)
		require.Equal(t, tc.family, c.Family, "%+v", tc.key)
		require.Equal(t, tc.camera, c.Camera, "%+v", tc.key)
		require.Equal(t, tc.codec, c.Codec, "%+v", tc.key)
		require.Equal(t, tc.typ, c.Type, "%+v", tc.key)
		require.Equal(t, 2, c.Frames)
		require.Equal(t, frames, c.Media)
	}
}
