package seal

import (
	"context"
	"fmt"
	"strings"

	"github.com/dit-org/dit/internal/format/ascmhl"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload"
)

// manifest is the new generation's header (its entries are written by
// writeEntries): the creator and process info, the ignore patterns and
// the root hash of the first walk.
func (b *builder) manifest(patterns []string) *ascmhl.Manifest {
	info := b.info
	m := &ascmhl.Manifest{Created: info.Finished, Host: info.Host, Tool: "dit", ToolVersion: info.ToolVersion,
		Process: ascmhl.ProcessTransfer, Ignore: patterns}
	var parts []string
	parts = append(parts, fmt.Sprintf("%d verified by reading the copy back", b.verified))
	if b.unverified > 0 {
		parts = append(parts, fmt.Sprintf("%d copied, not read back", b.unverified))
	}
	if b.failed > 0 {
		parts = append(parts, fmt.Sprintf("%d FAILED read-back", b.failed))
	}
	if b.changed > 0 {
		parts = append(parts, fmt.Sprintf("%d differ from the earlier history", b.changed))
	}
	m.Comment = fmt.Sprintf("%s hashes %s; files: %s", ownComment(info), hashing.Names(info.Algos), strings.Join(parts, ", "))
	// The DIT's creator info; what would make the manifest invalid is left
	// out with a warning (the card's proof matters more than a name).
	if c := strings.TrimSpace(info.Comment); c != "" {
		if ascmhl.XMLSafe(c) {
			m.Comment += "; " + c // after dit's text: sealedBefore reads its start
		} else {
			b.warn("the comment holds characters XML cannot carry: left out")
		}
	}
	if a := (ascmhl.Author{Name: info.Author.Name, Email: info.Author.Email, Phone: info.Author.Phone, Role: info.Author.Role}); !a.IsZero() {
		if err := a.Check(); err != nil {
			b.warn("%v: author left out", err)
		} else {
			m.Authors = []ascmhl.Author{a}
		}
	}
	if ascmhl.XMLSafe(info.Location) {
		m.Location = info.Location
	} else {
		b.warn("the location holds characters XML cannot carry: left out")
	}
	if info.NoDirectoryHashes {
		// Folders listed without hashes, and an empty root hash (the
		// reference tool's verify -dh needs the element).
		m.EmptyRootHash = true
		return m
	}
	if b.q.foreign.n > 0 {
		b.warn("%d file(s) in the folder were not written by this job (%s): the folders holding them get no directory hash", b.q.foreign.n, &b.q.foreign)
	}
	if b.q.aside.n > 0 {
		// A copy that failed its read-back, moved off the card's file
		// name (offload.FailedSuffix): listed by name, never hashed as
		// footage; a resume that copies the file again removes it.
		b.warn("%d copy(ies) that failed verification were moved aside (%s): the folders holding them get no directory hash", b.q.aside.n, &b.q.aside)
	}
	m.Root = b.root
	return m
}

// writeEntries is the second walk: each file's entry written as it
// comes, each folder's (from the first walk) where it sorts, after
// everything in it.
func (b *builder) writeEntries(ctx context.Context, mw *ascmhl.ManifestWriter) error {
	b.second = true
	defer func() { b.second = false }()
	dirs := b.dirs
	err := b.merge(ctx, func(*destEvent, func(hashing.Algo) string) error { return nil },
		func(sf *offload.SealFile, present bool) (func(hashing.Algo) string, error) {
			f, _, err := b.add(ctx, sf, present)
			if err != nil || f == nil {
				return nil, err
			}
			for len(dirs) > 0 && ascmhl.DirKey(dirs[0].Path) < f.Path {
				if err := mw.Dir(&dirs[0]); err != nil {
					return nil, err
				}
				dirs = dirs[1:]
			}
			return nil, mw.File(f)
		})
	if err != nil {
		return err
	}
	for i := range dirs {
		if err := mw.Dir(&dirs[i]); err != nil {
			return err
		}
	}
	return nil
}
