package testcards

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha512"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Defaults used when the corresponding Options field is zero.
const (
	DefaultCards       = 2
	DefaultSize  int64 = 2_000_000_000
	DefaultStyle       = StyleClips
)

// Card layouts accepted in Options.Style.
const (
	StyleClips  = "clips"  // a few large ARRI-style clip files with XML sidecars
	StyleFrames = "frames" // Sony X-OCN-style folders of per-frame files
	StyleMixed  = "mixed"  // half the footage as clips, half as frames
	StyleDNG    = "dng"    // DNG/ARRIRAW-like sequences: one 100-500 KB file a frame
)

// MaxCards is the largest number of cards one Generate call can create
// (roll numbers have three digits).
const MaxCards = 999

// Options says what to generate.
type Options struct {
	Out   string // parent folder; cards are created as Out/<label>
	Cards int    // number of cards, default 2
	Size  int64  // approximate bytes of footage per card (decimal), default 2e9
	Style string // "clips" | "frames" | "mixed"; default "clips"
	Seed  int64  // same seed + options => byte-identical trees, same names, same mtimes
	// FFmpeg is the path of an ffmpeg (see FindFFmpeg) that makes the
	// clips' movies (style clips, and the clips of mixed) real: short
	// ProRes 4444 XQ QuickTime files with the sidecar's timecode, padded
	// to size. Empty: the movies are pseudo-random bytes, as the frames
	// are. The same ffmpeg gives the same bytes.
	FFmpeg string
}

// Card describes one generated card.
type Card struct {
	Label string // roll label, such as "A001"
	Path  string // Out/<label>
	Files int    // regular files an offload should copy (junk excluded)
	Bytes int64  // total size of those files
}

const (
	chunkSize = 4 << 20
	dateCode  = "261122" // YYMMDD of baseTime, as cameras put it in clip names
	fileMode  = 0o644
	dirMode   = 0o755
)

// baseTime is the modification time of the first entry of card A001.
// Later entries and later cards are stamped at fixed steps after it.
var baseTime = time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)

const (
	entryStep = 3 * time.Second // between consecutive entries on a card
	cardStep  = 2 * time.Hour   // between the first entries of consecutive cards
)

// Generate creates o.Cards cards under o.Out (created if missing) and
// returns them in label order. It refuses, before writing anything, if any
// Out/<label> exists and is not an empty folder.
//
// Cancelling ctx stops generation between 4 MiB chunks. On any error the
// card being written is removed again (its folder was empty or absent), and
// the cards already finished are left in place and returned with the error.
func Generate(ctx context.Context, o Options) ([]Card, error) {
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	labels := make([]string, o.Cards)
	for i := range labels {
		labels[i] = fmt.Sprintf("A%03d", i+1)
		if err := checkCardFolder(labels[i], filepath.Join(o.Out, labels[i])); err != nil {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(o.Out, dirMode); err != nil {
		return nil, fmt.Errorf("create output folder: %w", err)
	}
	buf := make([]byte, chunkSize)
	cards := make([]Card, 0, o.Cards)
	for i, label := range labels {
		root := filepath.Join(o.Out, label)
		created, err := makeCardFolder(root)
		if err != nil {
			return cards, fmt.Errorf("card %s: %w", label, err)
		}
		g := &cardGen{
			ctx:    ctx,
			ffmpeg: o.FFmpeg,
			seed:   o.Seed,
			label:  label,
			root:   root,
			buf:    buf,
			clock:  baseTime.Add(time.Duration(i) * cardStep),
			layout: rand.New(rand.NewPCG(hash64(o.Seed, label, "layout"), 0x6469742d63617264)),
			card:   Card{Label: label, Path: root},
		}
		if err := g.generate(o); err != nil {
			removeCard(root, created)
			return cards, fmt.Errorf("card %s: %w", label, err)
		}
		cards = append(cards, g.card)
	}
	return cards, nil
}

func (o Options) withDefaults() (Options, error) {
	if o.Out == "" {
		return o, errors.New("testcards: no output folder given")
	}
	switch {
	case o.Cards == 0:
		o.Cards = DefaultCards
	case o.Cards < 0 || o.Cards > MaxCards:
		return o, fmt.Errorf("testcards: cannot generate %d cards: use 1 to %d", o.Cards, MaxCards)
	}
	switch {
	case o.Size == 0:
		o.Size = DefaultSize
	case o.Size < 0:
		return o, fmt.Errorf("testcards: invalid card size %d: must be positive", o.Size)
	}
	switch o.Style {
	case "":
		o.Style = DefaultStyle
	case StyleClips, StyleFrames, StyleMixed, StyleDNG:
	default:
		return o, fmt.Errorf("testcards: unknown style %q: use %s, %s, %s or %s", o.Style, StyleClips, StyleFrames, StyleMixed, StyleDNG)
	}
	return o, nil
}

// checkCardFolder returns an error unless path is absent or an empty folder.
func checkCardFolder(label, path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("testcards: cannot check card folder %s: %w", path, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("testcards: refusing to write card %s: %s already exists and is not a folder", label, path)
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("testcards: cannot check card folder %s: %w", path, err)
	}
	defer f.Close()
	if _, err := f.Readdirnames(1); err != io.EOF {
		if err != nil {
			return fmt.Errorf("testcards: cannot check card folder %s: %w", path, err)
		}
		return fmt.Errorf("testcards: refusing to write card %s: %s already exists and is not empty (never overwriting; remove it or choose another output folder)", label, path)
	}
	return nil
}

// makeCardFolder creates root, or accepts it if it is (still) an empty
// folder. created reports whether this call created it.
func makeCardFolder(root string) (created bool, err error) {
	err = os.Mkdir(root, dirMode)
	if err == nil {
		return true, nil
	}
	if !errors.Is(err, os.ErrExist) {
		return false, err
	}
	if err := checkCardFolder(filepath.Base(root), root); err != nil {
		return false, err
	}
	return false, nil
}

// removeCard removes a partly written card. The folder was absent or empty
// before generation started, so everything in it was written by us.
func removeCard(root string, created bool) {
	if created {
		os.RemoveAll(root)
		return
	}
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		os.RemoveAll(filepath.Join(root, e.Name()))
	}
}

// cardGen writes one card.
type cardGen struct {
	ctx    context.Context
	ffmpeg string // real movies (Options.FFmpeg), or ""
	seed   int64
	label  string
	root   string
	buf    []byte
	clock  time.Time  // mtime of the next entry
	layout *rand.Rand // structural choices: clip counts, sizes
	card   Card
	dirs   []stampedDir // stamped once the card is complete
	clipNo int          // last clip number used
}

type stampedDir struct {
	path string
	t    time.Time
}

func (g *cardGen) generate(o Options) error {
	g.dirs = append(g.dirs, stampedDir{g.root, g.tick()})
	if err := g.systemJunk(); err != nil {
		return err
	}
	switch o.Style {
	case StyleClips:
		if err := g.clips(o.Size); err != nil {
			return err
		}
	case StyleFrames:
		if err := g.frames(o.Size); err != nil {
			return err
		}
	case StyleDNG:
		if err := g.dng(o.Size); err != nil {
			return err
		}
	case StyleMixed:
		if err := g.clips(o.Size / 2); err != nil {
			return err
		}
		if err := g.frames(o.Size - o.Size/2); err != nil {
			return err
		}
	}
	if err := g.misc(); err != nil {
		return err
	}
	// Stamp folders last: writing into a folder changes its mtime.
	for _, d := range g.dirs {
		if err := os.Chtimes(d.path, d.t, d.t); err != nil {
			return err
		}
	}
	return nil
}

// tick returns the mtime for the next entry.
func (g *cardGen) tick() time.Time {
	t := g.clock
	g.clock = g.clock.Add(entryStep)
	return t
}

// cameraID returns the per-camera suffix letters, derived from the seed only
// (every roll comes from the same camera A): digit is 1-9, letters two
// uppercase letters.
func cameraID(seed int64) (digit int, letters string) {
	h := hash64(seed, "", "camera")
	return int(h%9) + 1, string([]byte{byte('A' + h>>8%26), byte('A' + h>>16%26)})
}

// systemJunk writes the folders and files macOS leaves on a mounted card.
func (g *cardGen) systemJunk() error {
	if err := g.writeJunk(".DS_Store", dsStoreMagic, 6148); err != nil {
		return err
	}
	for _, d := range []string{".Spotlight-V100", ".Spotlight-V100/Store-V2", ".Trashes", ".fseventsd"} {
		if err := g.mkdir(d); err != nil {
			return err
		}
	}
	plist := `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
	<key>Stores</key>
	<dict/>
</dict>
</plist>
`
	if err := g.writeText(".Spotlight-V100/VolumeConfiguration.plist", plist, true); err != nil {
		return err
	}
	if err := g.writeJunk(".Spotlight-V100/Store-V2/psid.db", nil, 512); err != nil {
		return err
	}
	return g.writeText(".fseventsd/fseventsd-uuid", g.uuid("fseventsd"), true)
}

// misc writes the zero-byte file and the empty folder.
func (g *cardGen) misc() error {
	if err := g.mkdir("MISC"); err != nil {
		return err
	}
	if err := g.writeText("MISC/EMPTY.txt", "", false); err != nil {
		return err
	}
	return g.mkdir("MISC/EMPTY_DIR")
}

// clips writes ARRI-style clips totalling budget bytes into CLIPS/.
func (g *cardGen) clips(budget int64) error {
	if err := g.mkdir("CLIPS"); err != nil {
		return err
	}
	digit, letters := cameraID(g.seed)
	n := 3 + g.layout.IntN(6) // 3..8 clips
	for i, size := range split(budget, n, 0.5, g.layout) {
		g.clipNo++
		name := fmt.Sprintf("%sC%03d_%s_R%d%s", g.label, g.clipNo, dateCode, digit, letters)
		mt := g.clock
		write := func() error { return g.writeRandom("CLIPS/"+name+".mov", size) }
		if g.ffmpeg != "" {
			write = func() error { return g.writeMovie("CLIPS/"+name+".mov", name, size, timecode(mt)) }
		}
		if err := write(); err != nil {
			return err
		}
		if i == 0 {
			if err := g.writeJunk("CLIPS/._"+name+".mov", appleDoubleMagic, 4096); err != nil {
				return err
			}
		}
		if err := g.writeText("CLIPS/"+name+".xml", arriXML(name, g.label, g.clipNo, size, mt), false); err != nil {
			return err
		}
	}
	return g.writeJunk("CLIPS/.DS_Store", dsStoreMagic, 6148)
}

// dng writes DNG-sequence clips (as cinema DNG and ARRIRAW cameras
// record): a folder a clip, a 100-500 KB file a frame, totalling budget
// bytes into DCIM/. The frames of a card number in the thousands.
func (g *cardGen) dng(budget int64) error {
	if err := g.mkdir("DCIM"); err != nil {
		return err
	}
	n := 2 + g.layout.IntN(3) // 2..4 clips
	for _, clipBytes := range split(budget, n, 0.3, g.layout) {
		g.clipNo++
		name := fmt.Sprintf("%sC%03d_%s", g.label, g.clipNo, dateCode)
		dir := "DCIM/" + name
		if err := g.mkdir(dir); err != nil {
			return err
		}
		frameSize := int64(100_000 + g.layout.IntN(400_001)) // 100-500 KB
		nframes := int(max(3, clipBytes/frameSize))
		for f, size := range split(clipBytes, nframes, 0.05, g.layout) {
			if err := g.writeRandom(fmt.Sprintf("%s/%s_%07d.dng", dir, name, f+1), size); err != nil {
				return err
			}
		}
	}
	return nil
}

// frames writes Sony X-OCN-style clips, each a folder of frame files,
// totalling budget bytes into XDROOT/Clip/.
func (g *cardGen) frames(budget int64) error {
	for _, d := range []string{"XDROOT", "XDROOT/Clip"} {
		if err := g.mkdir(d); err != nil {
			return err
		}
	}
	_, letters := cameraID(g.seed)
	n := 2 + g.layout.IntN(3)                                // 2..4 clips
	frameSize := int64(2_000_000 + g.layout.IntN(6_000_001)) // 2-8 MB per frame
	var materials []string
	for i, clipBytes := range split(budget, n, 0.3, g.layout) {
		g.clipNo++
		name := fmt.Sprintf("%sC%03d_%s%s", g.label, g.clipNo, dateCode, letters)
		dir := "XDROOT/Clip/" + name
		if err := g.mkdir(dir); err != nil {
			return err
		}
		nframes := int(max(3, clipBytes/frameSize))
		mt := g.clock
		for f, size := range split(clipBytes, nframes, 0.02, g.layout) {
			if err := g.writeRandom(fmt.Sprintf("%s/%s.%07d.xocn", dir, name, f+1), size); err != nil {
				return err
			}
		}
		sidecar := "XDROOT/Clip/" + name + " M01.XML"
		if err := g.writeText(sidecar, sonyXML(name, nframes, mt), false); err != nil {
			return err
		}
		if i == 0 {
			if err := g.writeJunk("XDROOT/Clip/._"+name+" M01.XML", appleDoubleMagic, 4096); err != nil {
				return err
			}
		}
		materials = append(materials, fmt.Sprintf("\t\t<Material uri=\"./Clip/%s\" type=\"X-OCN\" frames=\"%d\" umid=\"%s\"/>\n",
			name, nframes, strings.ReplaceAll(g.uuid(name), "-", "")))
	}
	mediapro := `<?xml version="1.0" encoding="UTF-8"?>
<MediaProfile xmlns="http://xmlns.sony.net/pro/metadata/mediaprofile" createdAt="` + baseTime.Format(time.RFC3339) + `" version="2.20">
	<Contents>
` + strings.Join(materials, "") + `	</Contents>
</MediaProfile>
`
	if err := g.writeText("XDROOT/MEDIAPRO.XML", mediapro, false); err != nil {
		return err
	}
	return g.writeJunk("XDROOT/.DS_Store", dsStoreMagic, 6148)
}

// split divides total into n parts whose sizes vary by up to ±spread
// around the mean; the last part takes the remainder. Parts are never
// negative and always sum to total.
func split(total int64, n int, spread float64, r *rand.Rand) []int64 {
	w := make([]float64, n)
	var sum float64
	for i := range w {
		w[i] = 1 - spread + 2*spread*r.Float64()
		sum += w[i]
	}
	parts := make([]int64, n)
	left := total
	for i := 0; i < n-1; i++ {
		parts[i] = min(left, int64(float64(total)*w[i]/sum))
		left -= parts[i]
	}
	parts[n-1] = left
	return parts
}

func (g *cardGen) abs(rel string) string {
	return filepath.Join(g.root, filepath.FromSlash(rel))
}

func (g *cardGen) mkdir(rel string) error {
	p := g.abs(rel)
	if err := os.Mkdir(p, dirMode); err != nil {
		return err
	}
	g.dirs = append(g.dirs, stampedDir{p, g.tick()})
	return nil
}

// create opens a new file; it never overwrites.
func (g *cardGen) create(rel string) (*os.File, error) {
	if err := g.ctx.Err(); err != nil {
		return nil, err
	}
	return os.OpenFile(g.abs(rel), os.O_WRONLY|os.O_CREATE|os.O_EXCL, fileMode)
}

// done closes f, stamps it and counts it unless it is junk.
func (g *cardGen) done(f *os.File, rel string, size int64, junk bool) error {
	if err := f.Close(); err != nil {
		return err
	}
	t := g.tick()
	if err := os.Chtimes(f.Name(), t, t); err != nil {
		return err
	}
	if !junk {
		g.card.Files++
		g.card.Bytes += size
	}
	return nil
}

// writeRandom writes size bytes of footage derived from seed, label and rel.
func (g *cardGen) writeRandom(rel string, size int64) error {
	f, err := g.create(rel)
	if err != nil {
		return err
	}
	s := g.stream(rel)
	for left := size; left > 0; {
		if err := g.ctx.Err(); err != nil {
			f.Close()
			return err
		}
		b := g.buf[:min(left, int64(len(g.buf)))]
		clear(b)
		s.XORKeyStream(b, b)
		if _, err := f.Write(b); err != nil {
			f.Close()
			return err
		}
		left -= int64(len(b))
	}
	return g.done(f, rel, size, false)
}

// writeJunk writes a small junk file: header followed by pseudo-random
// bytes, size bytes in all.
func (g *cardGen) writeJunk(rel string, header []byte, size int) error {
	b := make([]byte, size)
	g.stream(rel).XORKeyStream(b, b)
	copy(b, header)
	return g.writeBytes(rel, b, true)
}

func (g *cardGen) writeText(rel, text string, junk bool) error {
	return g.writeBytes(rel, []byte(text), junk)
}

func (g *cardGen) writeBytes(rel string, b []byte, junk bool) error {
	f, err := g.create(rel)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	return g.done(f, rel, int64(len(b)), junk)
}

// stream returns the AES-CTR keystream for the file at rel.
func (g *cardGen) stream(rel string) cipher.Stream {
	k := key(g.seed, g.label, rel)
	block, err := aes.NewCipher(k[:32])
	if err != nil {
		panic(err) // a 32-byte key is always valid
	}
	return cipher.NewCTR(block, k[32:48])
}

// uuid returns a deterministic UUID-shaped string for name.
func (g *cardGen) uuid(name string) string {
	k := key(g.seed, g.label, "uuid:"+name)
	return fmt.Sprintf("%X-%X-%X-%X-%X", k[0:4], k[4:6], k[6:8], k[8:10], k[10:16])
}

func key(seed int64, label, rel string) [64]byte {
	h := sha512.New()
	var s [8]byte
	binary.LittleEndian.PutUint64(s[:], uint64(seed))
	h.Write([]byte("dit/testcards v1\x00"))
	h.Write(s[:])
	h.Write([]byte(label + "\x00" + rel))
	var k [64]byte
	h.Sum(k[:0])
	return k
}

func hash64(seed int64, label, rel string) uint64 {
	k := key(seed, label, rel)
	return binary.LittleEndian.Uint64(k[:8])
}

var (
	dsStoreMagic     = []byte{0, 0, 0, 1, 'B', 'u', 'd', '1'}
	appleDoubleMagic = []byte{0, 5, 0x16, 7, 0, 2, 0, 0}
)

func timecode(t time.Time) string {
	return fmt.Sprintf("%02d:%02d:%02d:00", t.Hour(), t.Minute(), t.Second())
}

func arriXML(name, reel string, index int, size int64, t time.Time) string {
	return fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?>
<ClipMetadata camera="ALEXA 35" generator="dit testcards">
	<Clip name="%s" reel="%s" index="%d"/>
	<Recording date="%s" time="%s" codec="Apple ProRes 4444 XQ" sensorFps="24.000" projectFps="24" fileSize="%d"/>
	<Timecode start="%s"/>
</ClipMetadata>
`, name, reel, index, t.Format("2006-01-02"), t.Format("15:04:05"), size, timecode(t))
}

func sonyXML(name string, frames int, t time.Time) string {
	return fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?>
<NonRealTimeMeta xmlns="urn:schemas-professionalDisc:nonRealTimeMeta:ver.2.20" lastUpdate="%s">
	<TargetMaterial umidRef="%s"/>
	<Duration value="%d"/>
	<LtcChangeTable tcFps="24" halfStep="false">
		<LtcChange frameCount="0" value="%s" status="increment"/>
	</LtcChangeTable>
	<VideoFormat>
		<VideoFrame videoCodec="X-OCN_ST" captureFps="23.98p" formatFps="23.98p"/>
	</VideoFormat>
	<Device manufacturer="Sony" modelName="VENICE 2"/>
</NonRealTimeMeta>
`, t.Format(time.RFC3339), name, frames, timecode(t))
}
