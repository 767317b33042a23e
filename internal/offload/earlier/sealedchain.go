package earlier

import (
	"strings"

	"github.com/dit-org/dit/internal/format/ascmhl"
	"github.com/dit-org/dit/internal/fsys"
)

// The card's ASC MHL history (an earlier hop's, or for a cascade's second
// run the first copy's) is copied like any file, and then the seal appends
// this job's generation to the copy: it writes a new manifest and rewrites
// the copy's chain file (ascmhl/ascmhl_chain.xml). From then on the chain
// file on the destination differs from the card's by design. A resume (or
// a second run redone after a kill) must take that chain for what it is,
// the card's chain extended by dit's own seal, not for someone else's file
// at the copy's name (which dit never overwrites).

// ChainRel is the card's top-level ASC MHL chain file, the one the seal
// rewrites (a nested history is copied, never extended).
var ChainRel = ascmhl.HistoryDir + "/" + ascmhl.ChainFile

// SealedChain reports whether the history in folder dir (the card's copy
// on a destination, read through fsy) is the history of the card at
// cardRoot extended only by generations this job's seal wrote for this
// card in this folder: every generation of the card's history, in order,
// with its name and c4, then one or more generations by dit whose comment
// starts with own (the seal's comment: offload.SealComment), and the
// history there reads whole (every manifest present and matching the
// chain). Anything else (another tool's generation, a chain that does not
// start with the card's, a damaged history) is not dit's own: its chain
// file is compared like any file. Both histories are read as their heads
// (ascmhl.LoadHistoryHeads: every manifest read and checked against the
// chain, no record kept), so a history of a million files is not held.
func SealedChain(fsy fsys.FS, cardRoot, dir, own string) bool {
	src, err := ascmhl.LoadHistoryHeads(ascmhl.FSStore{FS: fsy, Dir: cardRoot})
	if err != nil || len(src.Problems) > 0 {
		return false
	}
	dst, err := ascmhl.LoadHistoryHeads(ascmhl.FSStore{FS: fsy, Dir: dir})
	if err != nil || len(dst.Problems) > 0 || len(dst.Generations) <= len(src.Generations) {
		return false
	}
	for i, g := range src.Generations {
		h := dst.Generations[i]
		if h.Seq != g.Seq || h.File != g.File || h.C4 != g.C4 {
			return false
		}
	}
	for _, g := range dst.Generations[len(src.Generations):] {
		m := g.Manifest
		if m == nil || m.Tool != "dit" || !strings.HasPrefix(m.Comment, own) {
			return false
		}
	}
	return true
}

// FirstRunSealed reports, for a cascade's second run reading the first
// copy at root, whether the first copy's top-level chain file (which
// differs from the card's: the first run's seal appended its generation
// to it) is the card's chain extended only by the first run's own seal:
// the history there reads whole (each manifest matches the c4 the chain
// gives it), it ends with one or more generations dit wrote for this job
// and card in the first copy's folder (their comment starts with own),
// and every generation before them is a manifest the card carried (card
// reports whether a path is one of the card's files, each compared with
// the card's hashes as it is read). The chain file itself then cannot
// equal the card's, and is not held against it.
func FirstRunSealed(fsy fsys.FS, root, own string, card func(rel string) bool) bool {
	h, err := ascmhl.LoadHistoryHeads(ascmhl.FSStore{FS: fsy, Dir: root}) // heads: no record held
	if err != nil || len(h.Problems) > 0 {
		return false
	}
	isOwn := func(g ascmhl.Generation) bool {
		return g.Manifest != nil && g.Manifest.Tool == "dit" && strings.HasPrefix(g.Manifest.Comment, own)
	}
	n := len(h.Generations)
	i := n
	for i > 0 && isOwn(h.Generations[i-1]) {
		i--
	}
	if i == n || i == 0 {
		return false
	}
	for _, g := range h.Generations[:i] {
		if !card(ascmhl.HistoryDir+"/"+g.File) || isOwn(g) {
			return false
		}
	}
	return true
}
