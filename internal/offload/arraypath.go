package offload

import "github.com/dit-org/dit/internal/offload/dest"

// ArrayPathPrefix starts the printed location of a file or folder inside
// a dit array (dest.ArrayPathPrefix): "array:<blade>//<path in the
// array>".
const ArrayPathPrefix = dest.ArrayPathPrefix

// DisplayPath is where a path below destination root is, as people act on
// it (dest.DisplayPath): root/rel for a folder, array:root//rel for a dit
// array.
func DisplayPath(root, rel string) string { return dest.DisplayPath(root, rel) }

// DisplayPathIn is DisplayPath with the kind of root known
// (dest.DisplayPathIn).
func DisplayPathIn(root, rel string, blade bool) string { return dest.DisplayPathIn(root, rel, blade) }

// SplitArrayPath reads a location inside a dit array (dest.SplitArrayPath).
func SplitArrayPath(p string) (blade, rel string, ok bool) { return dest.SplitArrayPath(p) }
