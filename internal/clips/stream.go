package clips

import (
	"path"
	"sort"
	"strconv"
	"strings"
)

// Sequence is a frame sequence's frames without their names: the files
// name.0000001.ext (frameRe) of one folder with one prefix and one
// extension. A sequence of 660,000 frames is these few fields.
type Sequence struct {
	Dir    string `json:"-"` // the folder of the frames
	Prefix string `json:"-"` // the frames' names before their number (frameRe's first group)
	Ext    string `json:"-"` // the frames' extension, lower case
	// First and Last are the first and last frames in name order (card-
	// relative paths); Count the frames, Bytes their sizes.
	First, Last string `json:"-"`
	Count       int    `json:"-"`
	Bytes       int64  `json:"-"`
	// MinNumber and MaxNumber are the lowest and highest frame numbers:
	// MaxNumber-MinNumber+1-Count numbers are missing between them.
	MinNumber, MaxNumber int64 `json:"-"`
	flagged              int
}

// Has tells whether the card-relative path rel is a frame of s.
func (s *Sequence) Has(rel string) bool {
	k, _, ok := frameKey(rel)
	return ok && k == seqKey{s.Dir, s.Prefix, s.Ext}
}

// Recognizer recognises a card streamed to it one file at a time ([Add],
// in any order; the catalog gives a card's files sorted), holding a
// bounded amount per clip, not per file: a frame sequence is its
// [Sequence] (first and last frame, count, bytes), a movie its clip; only
// the files that may be a clip's sidecar or proxy are kept by name until
// [Recognizer.Card]. Its clips are [Recognize]'s, except that a frame
// sequence's Media is nil (its frames are Clip.Seq).
type Recognizer struct {
	red   map[string]*held // RED .RDC folders
	seqs  map[seqKey]*Sequence
	movie []*held
	// proxies (movies in a proxy folder) and sidecars (metadata files)
	// wait for the clips they may go with.
	proxies, sidecars []heldFile
	other, otherFlag  int // files in no clip so far (and of them flagged)
}

// held is a clip being recognised with its files' sizes and whether each
// was flagged; order is its first file in name order (the clip's place
// in recognition, as the steps of Recognize visit the sorted files).
type held struct {
	clip    *Clip
	order   string
	size    map[string]int64
	flagged int
}

type heldFile struct {
	File
	flagged bool
}

// NewRecognizer returns a Recognizer with no file yet.
func NewRecognizer() *Recognizer {
	return &Recognizer{red: map[string]*held{}, seqs: map[seqKey]*Sequence{}}
}

// Add adds a file of the card. Junk (a path element beginning with ".")
// is left out.
func (r *Recognizer) Add(f File) { r.AddFlagged(f, false) }

// AddFlagged adds a file the caller flags or not; each clip then counts
// its flagged files (Clip.Flagged: the reports flag those not verified).
func (r *Recognizer) AddFlagged(f File, flag bool) {
	if junk(f.Rel) {
		return
	}
	if dir := path.Dir(f.Rel); strings.EqualFold(path.Ext(dir), ".rdc") {
		r.addRED(dir, f, flag)
		return
	}
	if k, num, ok := frameKey(f.Rel); ok {
		s := r.seqs[k]
		if s == nil {
			s = &Sequence{Dir: k.dir, Prefix: k.prefix, Ext: k.ext, First: f.Rel, Last: f.Rel, MinNumber: num, MaxNumber: num}
			r.seqs[k] = s
		}
		s.Count++
		s.Bytes += f.Size
		s.First, s.Last = min(s.First, f.Rel), max(s.Last, f.Rel)
		s.MinNumber, s.MaxNumber = min(s.MinNumber, num), max(s.MaxNumber, num)
		if flag {
			s.flagged++
		}
		return
	}
	e := ext(f.Rel)
	switch {
	case movieExts[e] && proxyDirs[strings.ToLower(path.Base(path.Dir(f.Rel)))]:
		r.proxies = append(r.proxies, heldFile{f, flag})
	case movieExts[e]:
		c := &Clip{Name: stem(path.Base(f.Rel)), Media: []string{f.Rel}}
		classifyMovie(c, f.Rel)
		r.movie = append(r.movie, &held{clip: c, order: f.Rel, size: map[string]int64{f.Rel: f.Size}, flagged: b2i(flag)})
	case sidecarExts[e]:
		r.sidecars = append(r.sidecars, heldFile{f, flag})
	default:
		r.countOther(flag)
	}
}

// addRED adds a file of the .RDC folder dir: its .R3D segments are the
// clip's media, its other files its sidecars.
func (r *Recognizer) addRED(dir string, f File, flag bool) {
	h := r.red[dir]
	if h == nil {
		name := strings.TrimSuffix(path.Base(dir), path.Ext(dir))
		h = &held{clip: &Clip{Name: name, Family: FamilyRED, Camera: "RED", Type: TypeR3D}, order: f.Rel, size: map[string]int64{}}
		r.red[dir] = h
	}
	if ext(f.Rel) == "r3d" {
		h.clip.Media = append(h.clip.Media, f.Rel)
	} else {
		h.clip.Sidecars = append(h.clip.Sidecars, f.Rel)
	}
	h.order = min(h.order, f.Rel)
	h.size[f.Rel] = f.Size
	h.flagged += b2i(flag)
}

func (r *Recognizer) countOther(flag bool) {
	r.other++
	r.otherFlag += b2i(flag)
}

// held is how many file names r holds: those of RED clips, movies,
// proxies and sidecars, and two a frame sequence (its first and last).
func (r *Recognizer) held() int {
	n := len(r.movie) + len(r.proxies) + len(r.sidecars) + 2*len(r.seqs)
	for _, h := range r.red {
		n += len(h.size)
	}
	return n
}

// frameKey tells the sequence the file rel is a frame of, and its number.
func frameKey(rel string) (seqKey, int64, bool) {
	m := frameRe.FindStringSubmatch(path.Base(rel))
	if m == nil {
		return seqKey{}, 0, false
	}
	e := strings.ToLower(m[3])
	if _, ok := frameExts[e]; !ok {
		return seqKey{}, 0, false
	}
	// Stills (IMG_0001.DNG) number in four or five digits; cinema DNG
	// sequences in six or more. ARRIRAW and X-OCN frames always make
	// clips.
	if (e == "dng" || e == "tif" || e == "tiff") && len(m[2]) < 6 {
		return seqKey{}, 0, false
	}
	n, _ := strconv.ParseInt(m[2], 10, 64)
	return seqKey{path.Dir(rel), m[1], e}, n, true
}

// Card is the card recognised from the files added: its clips (sorted by
// poster), their sidecars read through read (nil: names only). The
// Recognizer is spent.
func (r *Recognizer) Card(read ReadFunc) *Card {
	hs := sortHeld(mapValues(r.red))
	var seqs []*held
	for _, s := range r.seqs {
		if s.Count < minSeqFrames {
			r.countOther(s.flagged > 0)
			continue
		}
		c := sequenceClip(seqKey{s.Dir, s.Prefix, s.Ext}, nil)
		c.Frames, c.Seq = s.Count, s
		seqs = append(seqs, &held{clip: c, order: s.First, flagged: s.flagged})
	}
	hs = append(hs, sortHeld(seqs)...)
	hs = append(hs, sortHeld(r.movie)...)
	r.seqs, r.red, r.movie = nil, nil, nil
	sortFiles(r.proxies)
	sortFiles(r.sidecars)
	r.attachProxies(hs)
	r.attachSidecars(hs)

	card := &Card{}
	for _, h := range hs {
		c := h.clip
		sort.Strings(c.Media)
		sort.Strings(c.Sidecars)
		c.Poster = c.firstMedia()
		c.Flagged = h.flagged
		if c.Seq != nil {
			c.Bytes += c.Seq.Bytes
		}
		for _, f := range c.Media {
			c.Bytes += h.size[f]
		}
		for _, s := range c.Sidecars {
			c.Bytes += h.size[s]
			if read != nil && h.size[s] <= maxSidecar && h.size[s] != 0 {
				if b, err := read(s); err == nil {
					applySidecar(c, s, b)
				}
			}
		}
		finish(c)
		card.Clips = append(card.Clips, *c)
	}
	sort.SliceStable(card.Clips, func(i, j int) bool { return card.Clips[i].Poster < card.Clips[j].Poster })
	card.Other = r.other
	summarise(card)
	return card
}

// attachProxies gives each proxy to the clip with the longest name its
// name starts with; a proxy of no clip is a file in no clip.
func (r *Recognizer) attachProxies(hs []*held) {
	for _, f := range r.proxies {
		s := stem(path.Base(f.Rel))
		best := longestOwner(s, hs)
		if best == nil {
			r.countOther(f.flagged)
			continue
		}
		best.attach(f)
	}
	r.proxies = nil
}

// attachSidecars gives each metadata file to a clip: one next to it (or
// whose sequence's folder holds it) whose name the file's starts with,
// the longest such; else a sequence whose own folder holds it. A
// sidecar of no clip is a file in no clip.
func (r *Recognizer) attachSidecars(hs []*held) {
	byDir := map[string][]*held{}
	for _, h := range hs {
		d := path.Dir(h.clip.firstMedia())
		byDir[d] = append(byDir[d], h)
		if h.clip.Type != TypeR3D && h.clip.mediaCount() > 1 && path.Dir(d) != d {
			// A sequence's sidecar sits beside its folder.
			byDir[path.Dir(d)] = append(byDir[path.Dir(d)], h)
		}
	}
	for _, f := range r.sidecars {
		s := stem(path.Base(f.Rel))
		dir := path.Dir(f.Rel)
		best := longestOwner(s, byDir[dir])
		if best == nil {
			// A sequence's folder holding its own sidecar (any name).
			for _, h := range byDir[dir] {
				if h.clip.mediaCount() > 1 && path.Dir(h.clip.firstMedia()) == dir {
					best = h
				}
			}
		}
		if best == nil {
			r.countOther(f.flagged)
			continue
		}
		best.attach(f)
	}
	r.sidecars = nil
}

// longestOwner is the clip of hs with the longest name that the stem s
// starts with (sidecarOf), or nil.
func longestOwner(s string, hs []*held) *held {
	var best *held
	for _, h := range hs {
		if sidecarOf(s, h.clip.Name) && (best == nil || len(h.clip.Name) > len(best.clip.Name)) {
			best = h
		}
	}
	return best
}

// attach gives the file f to the clip as a sidecar.
func (h *held) attach(f heldFile) {
	h.clip.Sidecars = append(h.clip.Sidecars, f.Rel)
	if h.size == nil {
		h.size = map[string]int64{}
	}
	h.size[f.Rel] = f.Size
	h.flagged += b2i(f.flagged)
}

// firstMedia is the clip's first media file in name order (its poster).
func (c *Clip) firstMedia() string {
	if c.Seq != nil && len(c.Media) == 0 {
		return c.Seq.First
	}
	if len(c.Media) == 0 {
		return ""
	}
	return c.Media[0]
}

// mediaCount is how many media files the clip has (a sequence's frames).
func (c *Clip) mediaCount() int {
	if c.Seq != nil && len(c.Media) == 0 {
		return c.Seq.Count
	}
	return len(c.Media)
}

// FileCount is how many files the clip has: media (a sequence's
// frames, listed or not) and sidecars.
func (c *Clip) FileCount() int { return c.mediaCount() + len(c.Sidecars) }

// Has tells whether the card-relative path rel is one of the clip's
// files.
func (c *Clip) Has(rel string) bool {
	if c.Seq != nil && c.Seq.Has(rel) {
		return true
	}
	for _, l := range [][]string{c.Media, c.Sidecars} {
		for _, f := range l {
			if f == rel {
				return true
			}
		}
	}
	return false
}

func sortHeld(hs []*held) []*held {
	sort.Slice(hs, func(i, j int) bool { return hs[i].order < hs[j].order })
	return hs
}

func sortFiles(fs []heldFile) {
	sort.Slice(fs, func(i, j int) bool { return fs[i].Rel < fs[j].Rel })
}

func mapValues(m map[string]*held) []*held {
	out := make([]*held, 0, len(m))
	for _, h := range m {
		out = append(out, h)
	}
	return out
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
