package clips

import (
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Camera families ([Card.Family], [Clip.Family]).
const (
	FamilyARRI       = "ARRI"
	FamilySony       = "Sony"
	FamilyRED        = "RED"
	FamilyBlackmagic = "Blackmagic"
	FamilyCanon      = "Canon"
	FamilyDCIM       = "DCIM" // a plain DCIM card (stills cameras, action cameras, drones)
)

// Card types (recording formats, [Card.Type], [Clip.Type]).
const (
	TypeARRIRAW  = "ARRIRAW"
	TypeProRes   = "ProRes"
	TypeXOCN     = "X-OCN"
	TypeXAVC     = "XAVC"
	TypeR3D      = "R3D"
	TypeBRAW     = "BRAW"
	TypeCRM      = "Cinema RAW Light"
	TypeXFAVC    = "XF-AVC"
	TypeDNG      = "DNG"
	TypeDCIM     = "DCIM"
	TypeVideo    = "video"
	TypeFiles    = "files" // nothing recognised: the card is files
	maxSidecar   = 1 << 20 // sidecars larger than this are not read
	minSeqFrames = 2
)

// File is a file of a card: its slash-separated path relative to the card
// and its size.
type File struct {
	Rel  string
	Size int64
}

// Shot is the camera a clip was shot with and what it was set to: its
// serial number (the media's tags, else a sidecar's), ISO (the exposure
// index: "800"), white balance ("5600K"; a sidecar's bare number of
// kelvin gets its K) and lens ("ARRI Signature Prime 35mm"), the last
// three as its sidecar says them; "" where nothing said.
type Shot struct {
	Serial       string `json:"camera_serial,omitempty"`
	ISO          string `json:"iso,omitempty"`
	WhiteBalance string `json:"white_balance,omitempty"`
	Lens         string `json:"lens,omitempty"`
}

// Clip is one clip: the files it is made of and what its sidecars say.
// Fields a sidecar does not give are empty (0, "").
type Clip struct {
	Name   string `json:"name"`
	Reel   string `json:"reel,omitempty"`
	Family string `json:"family,omitempty"`
	Camera string `json:"camera,omitempty"` // e.g. "ARRI ALEXA 35", "Sony VENICE 2"
	Type   string `json:"type"`             // ARRIRAW, ProRes, X-OCN, XAVC, R3D, BRAW, ...
	Codec  string `json:"codec,omitempty"`
	// Media are the clip's media files (frames, segments, the movie),
	// Sidecars its metadata files, both sorted (a sequence's frames are
	// not listed when recognised by a [Recognizer]: see Seq).
	Media    []string `json:"media"`
	Sidecars []string `json:"sidecars,omitempty"`
	// Poster is the media file a poster frame is read from (the movie,
	// the first frame or segment).
	Poster string `json:"poster"`
	Bytes  int64  `json:"bytes"`
	// Frames is the length in frames (a sidecar's duration, or the number
	// of frame files of a sequence); FPS the frame rate ("23.976");
	// Seconds = Frames / FPS when both are known.
	Frames     int     `json:"frames,omitempty"`
	FPS        string  `json:"fps,omitempty"`
	Seconds    float64 `json:"seconds,omitempty"`
	Resolution string  `json:"resolution,omitempty"` // "4608x3164"
	TCStart    string  `json:"tc_start,omitempty"`   // "01:02:03:04"
	// Shot is the camera's serial and what it was set to (ISO, white
	// balance, lens), where the media or a sidecar says them.
	Shot
	// Audio is the clip's sound (nil: nothing read says): the media's
	// audio streams ([Probe.Fill]), else what a sidecar says.
	Audio *Audio `json:"audio,omitempty"`
	// Conflicts say where the media and a sidecar disagreed ([Probe.Fill]:
	// the media's value is kept): "frames: sidecar 120, media 96 (the
	// media's kept)".
	Conflicts []string `json:"conflicts,omitempty"`
	// Seq is a frame sequence's frames (nil: the clip is no sequence).
	// From a [Recognizer] a sequence's Media is nil: Seq says its frames.
	Seq *Sequence `json:"-"`
	// Flagged is how many of the clip's files were added flagged
	// ([Recognizer.AddFlagged]).
	Flagged int `json:"-"`
}

// Files returns every file of the clip listed: media, then sidecars (a
// sequence from a [Recognizer] lists no frames: see [Clip.FileCount] and
// [Clip.Has]).
func (c *Clip) Files() []string { return append(append([]string(nil), c.Media...), c.Sidecars...) }

// Card is what a card holds: its camera family, camera and card type when
// recognised, its clips, and how many files belong to no clip.
type Card struct {
	Family string `json:"family,omitempty"`
	Camera string `json:"camera,omitempty"`
	Type   string `json:"type"` // TypeFiles when no clip was recognised
	Clips  []Clip `json:"clips"`
	Other  int    `json:"other_files"`
}

// ReadFunc reads a sidecar by its card-relative path (from the copy). An
// error leaves the clip with what its file names say.
type ReadFunc func(rel string) ([]byte, error)

var (
	frameRe = regexp.MustCompile(`^(.*?)[._ -]?(\d{4,8})\.([A-Za-z0-9]+)$`)
	// ARRI, Sony and Canon clip names: A001C003_230512_R2EC, A001C003_230512XY.
	rollRe = regexp.MustCompile(`^([A-Z]\d{3})[A-Z]\d{3}`)
	// RED A001_C003_0512AB and Blackmagic A001_05121234_C003.
	redRe  = regexp.MustCompile(`^([A-Z]\d{3})_C\d{3}_`)
	brawRe = regexp.MustCompile(`^([A-Z]\d{3})_\d+_C\d{3}`)
	// arriRe: ARRI's camera index + reel + clip + date + camera id.
	arriRe = regexp.MustCompile(`^[A-Z]\d{3}C\d{3}_\d{6}_[A-Z0-9]{4}$`)
	// bmdRe: Blackmagic's reel + date and time + clip (A001_08151432_C003).
	bmdRe = regexp.MustCompile(`^[A-Z]\d{3}_\d{8}_C\d{3}$`)
)

// frameExts are the extensions of one-file-a-frame recordings.
var frameExts = map[string]string{"ari": TypeARRIRAW, "arx": TypeARRIRAW, "xocn": TypeXOCN, "dng": TypeDNG,
	"dpx": "DPX", "exr": "OpenEXR", "tif": "TIFF", "tiff": "TIFF"}

// movieExts are one-file clips (by lower-case extension).
var movieExts = map[string]bool{"mov": true, "mxf": true, "mp4": true, "m4v": true, "braw": true, "crm": true, "mts": true,
	"m2ts": true, "avi": true, "mkv": true, "r3d": true, "insv": true, "360": true}

// defaultCodec is a clip's codec when no sidecar names it.
var defaultCodec = map[string]string{TypeARRIRAW: "ARRIRAW", TypeBRAW: "BRAW", TypeCRM: "Cinema RAW Light",
	TypeR3D: "REDCODE", TypeXOCN: "X-OCN"}

// proxyDirs hold proxies of the clips beside them (lower case).
var proxyDirs = map[string]bool{"sub": true, "proxy": true, "proxies": true}

// sidecarExts are metadata files that go with a clip of the same name.
var sidecarExts = map[string]bool{"xml": true, "sidecar": true, "thm": true, "lrv": true, "xmp": true, "bim": true,
	"cif": true, "ale": true, "rmd": true, "rtn": true, "txt": true, "lrf": true}

// Recognize groups a card's files into clips from their names and folders,
// and reads their sidecars through read (nil: names only). It never fails:
// what it does not recognise stays files (Card.Other; Type "files" when no
// clip at all). Junk (a path element beginning with ".") is ignored. It
// is [Recognizer] given files, and then, the files being at hand, lists
// each frame sequence's frames in its Media: a caller that has the
// card's files as a stream (the catalog's) uses a Recognizer and holds
// no file list.
func Recognize(files []File, read ReadFunc) *Card {
	r := NewRecognizer()
	for _, f := range files {
		r.Add(f)
	}
	card := r.Card(read)
	seqs := map[seqKey]*Clip{}
	for i := range card.Clips {
		if s := card.Clips[i].Seq; s != nil {
			seqs[seqKey{s.Dir, s.Prefix, s.Ext}] = &card.Clips[i]
		}
	}
	if len(seqs) == 0 {
		return card
	}
	for _, f := range files {
		if k, _, ok := frameKey(f.Rel); ok && !junk(f.Rel) {
			if c := seqs[k]; c != nil {
				c.Media = append(c.Media, f.Rel)
			}
		}
	}
	for _, c := range seqs {
		sort.Strings(c.Media)
	}
	return card
}

// seqKey is a frame sequence: files prefix.0000001.ext in folder dir.
type seqKey struct{ dir, prefix, ext string }

// sequenceClip is the clip of the frames of sequence k: named after its
// prefix (or its folder), its family, camera and codec from the frames'
// extension.
func sequenceClip(k seqKey, frames []string) *Clip {
	name := strings.TrimRight(k.prefix, "._- ")
	if name == "" {
		name = path.Base(k.dir)
	}
	c := &Clip{Name: name, Type: frameExts[k.ext], Media: frames, Frames: len(frames)}
	switch k.ext {
	case "ari", "arx":
		c.Family, c.Camera = FamilyARRI, "ARRI ALEXA"
		c.Codec = "ARRIRAW"
		if k.ext == "arx" {
			c.Codec = "ARRIRAW HDE"
		}
	case "xocn":
		c.Family, c.Camera, c.Codec = FamilySony, "Sony", "X-OCN"
	case "dng":
		c.Codec = "CinemaDNG"
		if underTop(k.dir, "DCIM") {
			c.Family = FamilyDCIM
		}
	}
	return c
}

// classifyMovie tells a one-file clip's family and type from its
// extension, its folders and its name.
func classifyMovie(c *Clip, rel string) {
	e := ext(rel)
	upper := strings.ToUpper(rel)
	switch {
	case e == "braw":
		c.Family, c.Camera, c.Type = FamilyBlackmagic, "Blackmagic", TypeBRAW
	case e == "crm":
		c.Family, c.Camera, c.Type = FamilyCanon, "Canon", TypeCRM
	case e == "r3d":
		c.Family, c.Camera, c.Type = FamilyRED, "RED", TypeR3D
	case strings.HasPrefix(upper, "XDROOT/") || strings.Contains(upper, "/XDROOT/") ||
		strings.Contains(upper, "PRIVATE/M4ROOT/") || strings.Contains(upper, "PRIVATE/XDROOT/"):
		c.Family, c.Camera, c.Type = FamilySony, "Sony", TypeXAVC
	case strings.HasPrefix(upper, "CONTENTS/CLIPS") || strings.Contains(upper, "/CONTENTS/CLIPS") ||
		strings.HasSuffix(strings.ToUpper(c.Name), "_CANON"):
		c.Family, c.Camera, c.Type = FamilyCanon, "Canon", TypeXFAVC
	case (e == "mov" || e == "mxf") && arriRe.MatchString(c.Name):
		c.Family, c.Camera, c.Type = FamilyARRI, "ARRI ALEXA", TypeProRes
	case (e == "mov" || e == "mxf") && bmdRe.MatchString(c.Name):
		// Blackmagic's ProRes and DNx files, named as its BRAW.
		c.Family, c.Camera, c.Type = FamilyBlackmagic, "Blackmagic", TypeProRes
	case underTop(path.Dir(rel), "DCIM"):
		c.Family, c.Type = FamilyDCIM, TypeDCIM
	default:
		c.Type = TypeVideo
	}
}

// finish fills what follows from the rest: the reel from the name, the
// length in seconds.
func finish(c *Clip) {
	if c.Reel == "" {
		for _, re := range []*regexp.Regexp{rollRe, redRe, brawRe} {
			if m := re.FindStringSubmatch(c.Name); m != nil {
				c.Reel = m[1]
				break
			}
		}
	}
	if c.Codec == "" {
		c.Codec = defaultCodec[c.Type]
	}
	if c.Seconds == 0 && c.Frames > 0 {
		if fps := FPSValue(c.FPS); fps > 0 {
			c.Seconds = round3(float64(c.Frames) / fps)
		}
	}
}

// Summarise tells a card's family, camera and type from its clips (Type
// "files" when there are none); Clips and Other are left empty.
func Summarise(cs []Clip) Card {
	k := Card{Clips: cs}
	summarise(&k)
	k.Clips = nil
	return k
}

// summarise sets the card's family, camera and type: those of most of its
// clips (the first clip's on a tie).
func summarise(k *Card) {
	if len(k.Clips) == 0 {
		k.Type = TypeFiles
		return
	}
	count := map[[3]string]int{}
	var best [3]string
	for _, c := range k.Clips {
		key := [3]string{c.Family, c.Camera, c.Type}
		count[key]++
		if count[key] > count[best] {
			best = key
		}
	}
	k.Family, k.Camera, k.Type = best[0], best[1], best[2]
}

// FPSValue reads a frame rate as cameras write it ("23.976", "23.98p",
// "24", "29.97i", "24000/1001") as frames per second; 0 when it cannot.
func FPSValue(s string) float64 {
	s = strings.TrimSpace(strings.ToLower(s))
	s = strings.TrimRight(s, "pi")
	if a, b, ok := strings.Cut(s, "/"); ok {
		n, err1 := strconv.ParseFloat(a, 64)
		d, err2 := strconv.ParseFloat(b, 64)
		if err1 != nil || err2 != nil || d == 0 {
			return 0
		}
		return n / d
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v <= 0 {
		return 0
	}
	// The NTSC rates written short: 23.98 is 24000/1001.
	for _, r := range []float64{24, 30, 48, 60, 120} {
		ntsc := r * 1000 / 1001
		if v != r && v > ntsc-0.01 && v < ntsc+0.01 {
			return ntsc
		}
	}
	return v
}

// FormatFPS writes a frame rate the way editors read it: 24, 25,
// 23.976, 29.97, 59.94.
func FormatFPS(v float64) string {
	if v <= 0 {
		return ""
	}
	s := strconv.FormatFloat(round3(v), 'f', 3, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return s
}

func round3(v float64) float64 {
	return float64(int64(v*1000+0.5)) / 1000
}

func junk(rel string) bool {
	for _, e := range strings.Split(rel, "/") {
		if strings.HasPrefix(e, ".") {
			return true
		}
	}
	return false
}

func ext(rel string) string { return strings.ToLower(strings.TrimPrefix(path.Ext(rel), ".")) }

func stem(base string) string { return strings.TrimSuffix(base, path.Ext(base)) }

// underTop tells whether dir is top or inside it (top the first path
// element, case-insensitive).
func underTop(dir, top string) bool {
	first, _, _ := strings.Cut(dir, "/")
	return strings.EqualFold(first, top)
}

// sidecarOf tells whether a sidecar named s (without extension) belongs
// to clip name: the same name, or the name and a short suffix as Sony
// (C0001M01, "A001C001_220101XY M01") and others add.
func sidecarOf(s, name string) bool {
	if strings.EqualFold(s, name) {
		return true
	}
	if len(s) <= len(name) || !strings.EqualFold(s[:len(name)], name) {
		return false
	}
	rest := strings.TrimLeft(s[len(name):], " _-.")
	return len(rest) > 0 && len(rest) <= 4
}
