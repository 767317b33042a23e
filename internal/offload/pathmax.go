package offload

import (
	"path/filepath"
	"runtime"
	"strings"

	"github.com/dit-org/dit/internal/offload/dest"
	"github.com/dit-org/dit/internal/source"
	"github.com/dit-org/dit/raid"
)

// PathMax is the longest path the system's calls take, in bytes with its
// terminating NUL (Linux PATH_MAX; macOS's is 1,024).
func PathMax() int {
	if runtime.GOOS == "darwin" {
		return 1024
	}
	return 4096
}

// tempRoom is what a copy's temp adds to its path at most: the leading
// dot, the random digits, TempSuffix (tempPattern).
const tempRoom = 1 + 1 + 10 + len(TempSuffix)

// checkPathLengths refuses, at the start, a card dit could never make safe for
// the length of a path: a folder the scan could not list because its
// path is too long, or a file whose copy's path (destination, card
// folder, its path on the card, room for the temp) would pass the
// system's limit. The message names the file.
func checkPathLengths(sc *source.Card, dests []string, out string) error {
	limit := PathMax() - 1
	for s := range sc.Skipped.All() {
		if s.Kind == "unreadable" && strings.Contains(s.Reason, "file name too long") {
			return usageErrorf("card %s: %s: its path is longer than this system allows (%d bytes), so dit cannot read it and could never make the card safe: copy that folder to a shorter path first, or shorten its names",
				sc.Root, filepath.Join(sc.Root, filepath.FromSlash(s.Rel)), limit)
		}
	}
	type local struct {
		d string
		n int // the length of its card folder's path
	}
	var locals []local
	for _, d := range dests {
		if !dest.IsRemote(d) && !raid.IsBlade(d) {
			locals = append(locals, local{d, len(filepath.Join(d, out))})
		}
	}
	var buf []byte
	for i := range sc.Files.Len() {
		buf = sc.Files.AppendPath(buf[:0], i)
		rel := buf
		if n := len(sc.Root) + 1 + len(rel); n > limit {
			return usageErrorf("card %s: %s: its path is %d bytes, longer than this system allows (%d), so dit could never read it back: shorten its names", sc.Root, rel, n, limit)
		}
		for _, l := range locals {
			if n := l.n + 1 + len(rel) + tempRoom; n > limit {
				return usageErrorf("card %s: %s: its copy's path on %s would be %d bytes, longer than this system allows (%d): use a destination folder with a shorter path, or a shorter --layout",
					sc.Root, rel, l.d, n, limit)
			}
		}
	}
	return nil
}
