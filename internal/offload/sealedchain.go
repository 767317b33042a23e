package offload

import (
	"path/filepath"

	"github.com/dit-org/dit/internal/offload/earlier"
)

// The seal rewrites the copy's chain file by design: a resume takes a
// chain there that is the card's extended by this job's own seal for what
// it is (earlier.SealedChain), and a cascade's second run does not hold
// the first copy's chain against the card (earlier.FirstRunSealed).

// chainRel is the card's top-level ASC MHL chain file, the one the seal
// rewrites (earlier.ChainRel).
var chainRel = earlier.ChainRel

// sealedChain reports whether fp is the card's top-level ASC MHL chain
// file and the file at its copy's place dp on destination di is that chain
// extended only by generations this job's seal wrote for this card in
// this folder (earlier.SealedChain).
func (c *cardRun) sealedChain(di int, fp *filePlan, dp destPlan) bool {
	if fp.ent.Rel != chainRel || dp.rel != relJoin(c.out, chainRel) {
		return false
	}
	dir := filepath.Join(c.dests[di].root, filepath.FromSlash(c.out))
	own := SealComment(c.j.rec.ID, c.j.rec.Name, c.rec.Label, c.scan.Root, dir)
	return earlier.SealedChain(c.j.opts.FS, c.scan.Root, dir, own)
}

// firstRunSealed reports, for a cascade's second run, whether the first
// copy's top-level chain file is the card's chain extended only by the
// first run's own seal (earlier.FirstRunSealed). Computed once.
func (c *cardRun) firstRunSealed() bool {
	c.firstSealedOnce.Do(func() {
		if c.from == nil || len(c.from.dests) == 0 {
			return
		}
		own := SealComment(c.j.rec.ID, c.j.rec.Name, c.from.rec.Label, c.from.scan.Root, c.from.firstCopy())
		c.firstSealed = earlier.FirstRunSealed(c.j.opts.FS, c.scan.Root, own, func(rel string) bool {
			_, ok, err := c.expect.Of(rel)
			return ok && err == nil // unread: not the card's (the chain is then checked)
		})
	})
	return c.firstSealed
}
