package clips

import (
	"path"
	"sort"
	"strings"
)

// oracleRecognize is Recognize as it was before the Recognizer (each file
// of the card held by name): the oracle the Recognizer is checked against.
// It groups a card's files into clips from their names and folders,
// and reads their sidecars through read (nil: names only). It never fails:
// what it does not recognise stays files (Card.Other; Type "files" when no
// clip at all). Junk (a path element beginning with ".") is ignored.
func oracleRecognize(files []File, read ReadFunc) *Card {
	var fs []File
	for _, f := range files {
		if !junk(f.Rel) {
			fs = append(fs, f)
		}
	}
	sort.Slice(fs, func(i, j int) bool { return fs[i].Rel < fs[j].Rel })
	size := make(map[string]int64, len(fs))
	for _, f := range fs {
		size[f.Rel] = f.Size
	}
	rc := &oracle{fs: fs, claimed: map[string]bool{}}
	rc.redFolders()
	rc.frameSequences()
	rc.attachProxies(rc.movies())
	rc.attachSidecars()

	card := &Card{}
	for _, c := range rc.clips {
		sort.Strings(c.Media)
		sort.Strings(c.Sidecars)
		c.Poster = c.Media[0]
		for _, r := range c.Files() {
			c.Bytes += size[r]
		}
		if read != nil {
			for _, s := range c.Sidecars {
				if size[s] > maxSidecar || size[s] == 0 {
					continue
				}
				if b, err := read(s); err == nil {
					applySidecar(c, s, b)
				}
			}
		}
		finish(c)
		card.Clips = append(card.Clips, *c)
	}
	sort.SliceStable(card.Clips, func(i, j int) bool { return card.Clips[i].Poster < card.Clips[j].Poster })
	for _, f := range fs {
		if !rc.claimed[f.Rel] {
			card.Other++
		}
	}
	summarise(card)
	return card
}

// oracle groups a card's files (sorted, junk left out) into clips,
// step by step; a file a step claims is not looked at by the next ones.
type oracle struct {
	fs      []File
	claimed map[string]bool
	clips   []*Clip
}

// redFolders makes each RED .RDC folder of .R3D segments one clip (its
// other files are the clip's sidecars).
func (rc *oracle) redFolders() {
	rdc := map[string]*Clip{}
	for _, f := range rc.fs {
		dir := path.Dir(f.Rel)
		if !strings.EqualFold(path.Ext(dir), ".rdc") {
			continue
		}
		c := rdc[dir]
		if c == nil {
			name := strings.TrimSuffix(path.Base(dir), path.Ext(dir))
			c = &Clip{Name: name, Family: FamilyRED, Camera: "RED", Type: TypeR3D}
			rdc[dir] = c
			rc.clips = append(rc.clips, c)
		}
		if ext(f.Rel) == "r3d" {
			c.Media = append(c.Media, f.Rel)
		} else {
			c.Sidecars = append(c.Sidecars, f.Rel)
		}
		rc.claimed[f.Rel] = true
	}
}

// frameSequences makes each sequence of at least minSeqFrames frames
// (name.0000001.ari in one folder) a clip.
func (rc *oracle) frameSequences() {
	seqs := map[seqKey][]string{}
	var seqOrder []seqKey
	for _, f := range rc.fs {
		if rc.claimed[f.Rel] {
			continue
		}
		m := frameRe.FindStringSubmatch(path.Base(f.Rel))
		if m == nil {
			continue
		}
		e := strings.ToLower(m[3])
		if _, ok := frameExts[e]; !ok {
			continue
		}
		// Stills (IMG_0001.DNG) number in four or five digits; cinema
		// DNG sequences in six or more. ARRIRAW and X-OCN frames always
		// make clips.
		if (e == "dng" || e == "tif" || e == "tiff") && len(m[2]) < 6 {
			continue
		}
		k := seqKey{path.Dir(f.Rel), m[1], e}
		if _, ok := seqs[k]; !ok {
			seqOrder = append(seqOrder, k)
		}
		seqs[k] = append(seqs[k], f.Rel)
	}
	for _, k := range seqOrder {
		frames := seqs[k]
		if len(frames) < minSeqFrames {
			continue
		}
		c := sequenceClip(k, frames)
		for _, r := range frames {
			rc.claimed[r] = true
		}
		rc.clips = append(rc.clips, c)
	}
}

// movies makes each movie file a one-file clip, and returns the proxies
// (Sony's SUB/C0001S03.MP4, a Proxy folder): they go with their clip.
func (rc *oracle) movies() (proxies []File) {
	for _, f := range rc.fs {
		if rc.claimed[f.Rel] || !movieExts[ext(f.Rel)] {
			continue
		}
		if proxyDirs[strings.ToLower(path.Base(path.Dir(f.Rel)))] {
			proxies = append(proxies, f)
			continue
		}
		c := &Clip{Name: stem(path.Base(f.Rel)), Media: []string{f.Rel}}
		classifyMovie(c, f.Rel)
		rc.claimed[f.Rel] = true
		rc.clips = append(rc.clips, c)
	}
	return proxies
}

// attachProxies gives each proxy to the clip with the longest name its
// name starts with.
func (rc *oracle) attachProxies(proxies []File) {
	for _, f := range proxies {
		s := stem(path.Base(f.Rel))
		var best *Clip
		for _, c := range rc.clips {
			if sidecarOf(s, c.Name) && (best == nil || len(c.Name) > len(best.Name)) {
				best = c
			}
		}
		if best != nil {
			best.Sidecars = append(best.Sidecars, f.Rel)
			rc.claimed[f.Rel] = true
		}
	}
}

// attachSidecars gives each metadata file to a clip: one next to it (or
// whose sequence's folder holds it) whose name the file's starts with,
// the longest such; else a sequence whose own folder holds it.
func (rc *oracle) attachSidecars() {
	byDir := map[string][]*Clip{}
	for _, c := range rc.clips {
		d := path.Dir(c.Media[0])
		byDir[d] = append(byDir[d], c)
		if c.Type != TypeR3D && len(c.Media) > 1 && path.Dir(d) != d {
			// A sequence's sidecar sits beside its folder.
			byDir[path.Dir(d)] = append(byDir[path.Dir(d)], c)
		}
	}
	for _, f := range rc.fs {
		if rc.claimed[f.Rel] || !sidecarExts[ext(f.Rel)] {
			continue
		}
		s := stem(path.Base(f.Rel))
		var best *Clip
		for _, c := range byDir[path.Dir(f.Rel)] {
			if sidecarOf(s, c.Name) && (best == nil || len(c.Name) > len(best.Name)) {
				best = c
			}
		}
		if best == nil {
			// A sequence's folder holding its own sidecar (any name).
			for _, c := range byDir[path.Dir(f.Rel)] {
				if len(c.Media) > 1 && path.Dir(c.Media[0]) == path.Dir(f.Rel) {
					best = c
				}
			}
		}
		if best != nil {
			best.Sidecars = append(best.Sidecars, f.Rel)
			rc.claimed[f.Rel] = true
		}
	}
}
