package dest

import (
	"path/filepath"
	"strings"

	"github.com/dit-org/dit/raid"
)

// ArrayPathPrefix starts the printed location of a file or folder inside
// a dit array: "array:<blade>//<path in the array>". The folders of an
// array are logical: they are not on any blade's disk, so a plain
// "<blade>/<path>" would not exist for ls or Finder. dit mhl verify and
// dit array ls / extract accept this form.
const ArrayPathPrefix = "array:"

// DisplayPath is where a path below destination root is, as people act on
// it: root/rel for a folder, array:root//rel for a dit array (root is one
// of its blades).
func DisplayPath(root, rel string) string {
	return DisplayPathIn(root, rel, raid.IsBlade(root))
}

// DisplayPathIn is DisplayPath with the kind of root known: blade says
// whether it is one of a dit array's blades (raid.IsBlade, which looks
// on disk: what a caller naming many paths below the same root asks
// once).
func DisplayPathIn(root, rel string, blade bool) string {
	rel = strings.TrimPrefix(filepath.ToSlash(rel), "/")
	if blade {
		return ArrayPathPrefix + root + "//" + rel
	}
	return filepath.Join(root, filepath.FromSlash(rel))
}

// SplitArrayPath reads a location inside a dit array: "array:BLADE//PATH",
// or a path that starts with a blade folder ("BLADE/PATH", as older dit
// printed it). It returns the blade and the slash path in the array.
func SplitArrayPath(p string) (blade, rel string, ok bool) {
	if rest, found := strings.CutPrefix(p, ArrayPathPrefix); found {
		if i := strings.Index(rest, "//"); i > 0 {
			return rest[:i], strings.Trim(rest[i+2:], "/"), true
		}
		return strings.TrimRight(rest, "/"), "", rest != ""
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", "", false
	}
	for dir := abs; ; {
		if raid.IsBlade(dir) {
			if dir == abs {
				return "", "", false // the blade itself: a folder on disk
			}
			r, err := filepath.Rel(dir, abs)
			return dir, filepath.ToSlash(r), err == nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", "", false
		}
		dir = parent
	}
}
