package clips

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// streamed is the card a Recognizer makes of files added in the order
// given, with the names it held at most on the way.
func streamed(files []File, read ReadFunc) (*Card, int) {
	r := NewRecognizer()
	peak := 0
	for _, f := range files {
		r.Add(f)
		peak = max(peak, r.held())
	}
	return r.Card(read), peak
}

// unlisted is card k as a Recognizer gives it: each sequence's frames
// not listed (Seq says them).
func unlisted(k *Card) *Card {
	out := *k
	out.Clips = append([]Clip(nil), k.Clips...)
	for i := range out.Clips {
		if out.Clips[i].Seq != nil {
			out.Clips[i].Media = nil
		}
	}
	return &out
}

// asOracle is card k as the recogniser before the Recognizer gave it:
// no Seq.
func asOracle(k *Card) *Card {
	out := *k
	out.Clips = append([]Clip(nil), k.Clips...)
	for i := range out.Clips {
		out.Clips[i].Seq = nil
	}
	return &out
}

// checkSame checks that Recognize gives what the recogniser before it
// gave, and that a Recognizer given the files in any order gives the
// same clips (sequences unlisted).
func checkSame(t *testing.T, name string, files []File, read ReadFunc, rng *rand.Rand) {
	t.Helper()
	want := oracleRecognize(files, read)
	got := Recognize(files, read)
	require.Equal(t, want, asOracle(got), "%s: Recognize", name)
	shuffled := append([]File(nil), files...)
	rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	s, _ := streamed(shuffled, read)
	require.Equal(t, unlisted(got), s, "%s: streamed", name)
	for i, c := range got.Clips {
		require.Equal(t, c.FileCount(), s.Clips[i].FileCount(), "%s: %s", name, c.Name)
		require.Equal(t, len(c.Files()), c.FileCount(), "%s: %s", name, c.Name)
		for _, f := range c.Files() {
			require.True(t, s.Clips[i].Has(f), "%s: %s has %s", name, c.Name, f)
		}
	}
}

// walk lists the files under root as the catalog gives them.
func walk(t *testing.T, root string) []File {
	var files []File
	require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			fi, _ := d.Info()
			rel, _ := filepath.Rel(root, p)
			files = append(files, File{Rel: filepath.ToSlash(rel), Size: fi.Size()})
		}
		return err
	}))
	return files
}

// The fixtures are recognised as before, streamed or not.
func TestRecognizerMatchesBeforeOnFixtures(t *testing.T) {
	ents, err := os.ReadDir("testdata")
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, e := range ents {
		root := filepath.Join("testdata", e.Name())
		read := func(rel string) ([]byte, error) { return os.ReadFile(filepath.Join(root, filepath.FromSlash(rel))) }
		checkSame(t, e.Name(), walk(t, root), read, rng)
		checkSame(t, e.Name()+" (names only)", walk(t, root), nil, rng)
	}
}

// nameParts make random cards of every kind of name the recogniser
// tells apart: sequences (gaps, mixed digit counts, two extensions of
// one prefix, a single frame, DNG stills), RED folders, movies,
// proxies, sidecars beside a clip, beside a sequence's folder and in
// it, junk, and names in any Unicode (NFD and NFC, emoji).
var nameParts = []func(rng *rand.Rand, i int) []string{
	func(rng *rand.Rand, i int) []string { // an ARRIRAW sequence with a sidecar beside its folder
		clip := fmt.Sprintf("Ä%03dC%03d_230512_R1AB", rng.IntN(3), i)
		var out []string
		for n := range 2 + rng.IntN(6) {
			if rng.IntN(5) > 0 { // gaps
				out = append(out, fmt.Sprintf("Ä001R1AB/%s/%s.%07d.ari", clip, clip, n))
			}
		}
		return append(out, "Ä001R1AB/"+clip+".xml", "Ä001R1AB/"+clip+"/notes.txt")
	},
	func(rng *rand.Rand, i int) []string { // one frame: no clip
		return []string{fmt.Sprintf("lone%d/x.%07d.ari", i, rng.IntN(9))}
	},
	func(rng *rand.Rand, i int) []string { // NFD and NFC folders, DNG sequences and stills
		d := []string{"Cafe\u0301", "Café"}[rng.IntN(2)]
		return []string{d + "/shot_000001.dng", d + "/shot_000002.dng", d + fmt.Sprintf("/IMG_%04d.DNG", i), d + "/shot.XML"}
	},
	func(rng *rand.Rand, i int) []string { // RED
		dir := fmt.Sprintf("RDM/A001_C%03d_0512AB.RDC", i)
		return []string{dir + fmt.Sprintf("/A001_C%03d_0512AB_001.R3D", i), dir + fmt.Sprintf("/A001_C%03d_0512AB_002.R3D", i),
			dir + fmt.Sprintf("/A001_C%03d_0512AB.RMD", i)}
	},
	func(rng *rand.Rand, i int) []string { // Sony with proxies, one of no clip
		return []string{fmt.Sprintf("XDROOT/Clip/C%04d.MXF", i), fmt.Sprintf("XDROOT/Clip/C%04dM01.XML", i),
			fmt.Sprintf("XDROOT/Sub/C%04dS03.MP4", i), fmt.Sprintf("SUB/Z%04dS03.MP4", i)}
	},
	func(rng *rand.Rand, i int) []string { // junk, files of no clip
		return []string{".Trashes/x.mov", fmt.Sprintf("Clip/._C%04d.MXF", i), "readme.pdf", fmt.Sprintf("misc/%d.txt", i)}
	},
	func(rng *rand.Rand, i int) []string { // a subfolder between a sequence's frames in name order
		return []string{"D/A_0001.ari", fmt.Sprintf("D/A_0001/inner%d.mov", i), "D/A_0002.ari", "D/A.xml"}
	},
	func(rng *rand.Rand, i int) []string { // mixed digit counts, two extensions of one prefix
		return []string{"M/shot.0999.exr", "M/shot.1000.exr", "M/shot.01001.exr", "X/p.000001.dpx", "X/p.000001.exr",
			"X/p.000002.dpx", fmt.Sprintf("X/p.%06d.exr", 2+i), "X/notes.txt"}
	},
	func(rng *rand.Rand, i int) []string { // emoji, X-OCN
		return []string{fmt.Sprintf("🎬%d/🎬_0000001.xocn", i%2), fmt.Sprintf("🎬%d/🎬_0000002.xocn", i%2), fmt.Sprintf("🎬%d/🎬.txt", i%2)}
	},
	func(rng *rand.Rand, i int) []string { // loose movies and their sidecars
		n := fmt.Sprintf("A00%d_08151432_C00%d", i%3, i%4)
		return []string{"CLIPS/" + n + ".mov", "CLIPS/" + n + ".sidecar", "CLIPS/" + n + "_x.thm", "DCIM/100GOPRO/GX01000" + fmt.Sprint(i%5) + ".MP4"}
	},
}

// Random cards of every kind of name are recognised as before, streamed
// or not, their sidecars read or not.
func TestRecognizerMatchesBeforeOnRandomCards(t *testing.T) {
	read := func(rel string) ([]byte, error) {
		if strings.HasSuffix(strings.ToLower(rel), ".sidecar") {
			return []byte(`{"frame_count": 96, "frame_rate": "23.976", "reel_name": "R9"}`), nil
		}
		return []byte(fmt.Sprintf(`<clip><frames>%d</frames><fps>25</fps><timecode start="01:00:00:00"/></clip>`, len(rel))), nil
	}
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 7))
		seen := map[string]bool{}
		var files []File
		for i := range 1 + rng.IntN(12) {
			for _, n := range nameParts[rng.IntN(len(nameParts))](rng, i) {
				if !seen[n] {
					seen[n] = true
					files = append(files, File{Rel: n, Size: int64(1 + rng.IntN(1<<21))})
				}
			}
		}
		checkSame(t, fmt.Sprint("seed ", seed), files, read, rng)
		checkSame(t, fmt.Sprint("seed ", seed, " (names only)"), files, nil, rng)
	}
}

// A Recognizer holds a sequence, not its frames: streaming a card of
// 200,000 frames (four clips, Unicode names) it never holds more than
// the clips' first and last frames and their sidecars, and once the
// card is recognised none of the frames' names is alive but those.
func TestRecognizerHoldsNoFrameNames(t *testing.T) {
	const clipsN, frames = 4, 50_000
	var alive atomic.Int64
	r := NewRecognizer()
	peak := 0
	for c := range clipsN {
		clip := fmt.Sprintf("Ä001C%03d_日本", c)
		for n := range frames {
			if n == 7 {
				continue // a gap
			}
			rel := fmt.Sprintf("Ä001/%s/%s.%07d.ari", clip, clip, n)
			alive.Add(1)
			runtime.AddCleanup(unsafeStringData(rel), func(*atomic.Int64) { alive.Add(-1) }, &alive)
			r.AddFlagged(File{Rel: rel, Size: 100}, n == 3)
			peak = max(peak, r.held())
		}
		r.Add(File{Rel: "Ä001/" + clip + ".xml", Size: 10})
	}
	require.LessOrEqual(t, peak, 3*clipsN, "names held while streaming")
	k := r.Card(nil)
	require.Len(t, k.Clips, clipsN)
	for i, c := range k.Clips {
		clip := fmt.Sprintf("Ä001C%03d_日本", i)
		require.Equal(t, clip, c.Name)
		require.Nil(t, c.Media)
		require.Equal(t, frames-1, c.Frames)
		require.Equal(t, frames, c.FileCount(), "frames and the sidecar")
		require.Equal(t, int64(100*(frames-1)+10), c.Bytes)
		require.Equal(t, fmt.Sprintf("Ä001/%s/%s.%07d.ari", clip, clip, 0), c.Poster)
		require.Equal(t, fmt.Sprintf("Ä001/%s/%s.%07d.ari", clip, clip, frames-1), c.Seq.Last)
		require.Equal(t, int64(1), c.Seq.MaxNumber-c.Seq.MinNumber+1-int64(c.Seq.Count), "one frame missing")
		require.Equal(t, 1, c.Flagged)
		require.True(t, c.Has(fmt.Sprintf("Ä001/%s/%s.%07d.ari", clip, clip, 12345)))
		require.False(t, c.Has(fmt.Sprintf("Ä001/%s/%s.%07d.ari", clip+"x", clip, 12345)))
	}
	for range 20 {
		if alive.Load() <= 2*clipsN {
			break
		}
		runtime.GC()
		runtime.Gosched()
	}
	require.LessOrEqual(t, alive.Load(), int64(2*clipsN), "frame names alive after recognition (of %d)", clipsN*(frames-1))
	runtime.KeepAlive(k)
}

// unsafeStringData is the first byte of s (its allocation: s is made by
// fmt.Sprintf, one allocation each).
func unsafeStringData(s string) *byte { return unsafe.StringData(s) }
