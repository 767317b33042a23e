package ui

import (
	"cmp"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/raid/mountplace"
)

// arrayCopy is a card's folder in a dit array as History says it. The
// engine names it array:BLADE//PATH (offload.DisplayPath: what dit's
// commands take, the "//" marking where the array's own folders start);
// a person reads where it is and where it opens (raid/mountplace).
type arrayCopy struct {
	// Text is the folder in words: its path below the mount point when
	// the array is mounted, else its path in the array and the array's
	// name; never a doubled slash.
	Text string
	// Open is the folder to open (the array mounted), or "" with Note
	// saying why not and how to.
	Open string
	Note string
}

// arrayCopyOf says the folder rel (slash path in the array) of the array
// whose blade is blade, at place (nil: no blade of it is here).
func arrayCopyOf(place *mountplace.Place, blade, rel string) arrayCopy {
	rel = strings.Trim(rel, "/")
	switch {
	case place == nil:
		return arrayCopy{Text: fmt.Sprintf("%s on the array of blade %s (not here)", rel, blade),
			Note: fmt.Sprintf("The array of blade %s is not here: connect its blades, then mount it (dit array mount) to open its folders.", blade)}
	case place.Mounted:
		dir := filepath.Join(place.Dir, filepath.FromSlash(rel))
		return arrayCopy{Text: fmt.Sprintf("%s (array %q)", dir, place.Name()), Open: dir}
	}
	return arrayCopy{Text: fmt.Sprintf("%s on array %q (not mounted)", rel, place.Name()),
		Note: fmt.Sprintf("Array %q is not mounted: %s mounts it at %s; then its folders open from here.", place.Name(), place.MountCommand(), place.Dir)}
}

// arrayName is the engine's name of a card's folder on a destination:
// array:BLADE//PATH in a dit array (DestSummary.ArrayPath; its Path is
// where it opens once mounted), else its path.
func arrayName(d offload.DestSummary) string { return cmp.Or(d.ArrayPath, d.Path) }

// arrayCopies resolves every location in a dit array that s names (its
// cards' folders on each destination, a second run's source), by the
// engine's name of it (I/O: off the UI goroutine).
func arrayCopies(s *offload.Summary) map[string]arrayCopy {
	out := map[string]arrayCopy{}
	var res *mountplace.Resolver
	add := func(p string) {
		if _, done := out[p]; done || !strings.HasPrefix(p, offload.ArrayPathPrefix) {
			return
		}
		blade, rel, ok := offload.SplitArrayPath(p)
		if !ok {
			return
		}
		if res == nil {
			res = mountplace.NewResolver()
		}
		out[p] = arrayCopyOf(res.PlaceOf(blade), blade, rel)
	}
	for _, c := range s.Cards {
		for _, d := range c.Destinations {
			add(arrayName(d))
		}
		if c.Then != nil {
			add(c.Then.Source)
			for _, d := range c.Then.Destinations {
				add(arrayName(d))
			}
		}
	}
	return out
}

// where is a location of the open job as History says it: a folder in a
// dit array in words (arrayCopy), any other as it is.
func (d *jobDetail) where(p string) string {
	if ac, ok := d.arrays[p]; ok {
		return ac.Text
	}
	return p
}
