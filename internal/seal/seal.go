package seal

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strings"

	"github.com/dit-org/dit/internal/crashpoint"
	"github.com/dit-org/dit/internal/format/ascmhl"
	"github.com/dit-org/dit/internal/format/ignore"
	"github.com/dit-org/dit/internal/format/mhlv1"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/raid"
)

// Format says which hash lists are written.
type Format struct {
	ASC bool // ASC MHL history
	V1  bool // MHL v1.1 list
}

// ParseFormat reads an --mhl value: asc (default), v1, both or none.
func ParseFormat(s string) (Format, error) {
	switch s {
	case "", "asc":
		return Format{ASC: true}, nil
	case "v1":
		return Format{V1: true}, nil
	case "both":
		return Format{ASC: true, V1: true}, nil
	case "none":
		return Format{}, nil
	}
	return Format{}, fmt.Errorf("invalid --mhl %q: use asc (default), v1, both or none", s)
}

// Check says whether algos can be written in f, naming what is missing.
func (f Format) Check(algos []hashing.Algo) error {
	if f.ASC {
		ok := false
		for _, a := range algos {
			ok = ok || a.InASCMHL()
		}
		if !ok {
			return fmt.Errorf("ASC MHL needs one of c4, md5, sha1, xxh128, xxh3, xxh64 in --hash (blake3 is not in ASC MHL)")
		}
	}
	if f.V1 && !mhlv1.Supported(algos) {
		return fmt.Errorf("MHL v1.1 needs md5, sha1 or xxh64 in --hash")
	}
	return nil
}

// Sealer writes hash lists for finished cards.
type Sealer struct {
	Format Format
	// OpenStore opens the card's folder on a destination (info.CardDir);
	// default: the OS folder (ascmhl.OpenOSStore), or for a dit array
	// destination, whose folders are logical, ascmhl.FSStore over the job's
	// filesystem (info.FS).
	OpenStore func(info offload.SealInfo) (ascmhl.Store, func() error, error)
	// Username goes into MHL v1.1 lists; default: the current user.
	Username string
}

// Seal is the offload.Options.Seal hook.
func (s *Sealer) Seal(ctx context.Context, info offload.SealInfo) error {
	if !s.Format.ASC && !s.Format.V1 {
		return nil
	}
	if err := s.Format.Check(info.Algos); err != nil {
		return err
	}
	open, err := s.opener(info)
	if err != nil {
		return err
	}
	st, closeStore, err := open(info)
	if err != nil {
		return err
	}
	defer closeStore()
	rootInfo, err := st.Lstat(".")
	if err != nil {
		return err
	}
	defer st.SetModTime(".", rootInfo.ModTime())

	// A seal a crash interrupted (here or in an earlier run) is finished or
	// undone first, so the history verifies before a generation is added.
	var notes []string
	if s.Format.ASC {
		if notes, err = recoverSeal(st, info); err != nil {
			return err
		}
	}
	hist, err := historyToExtend(st, info)
	if err != nil {
		return err
	}

	folder := filepath.Base(info.CardDir)
	patterns := hist.IgnorePatterns()
	for _, p := range info.Ignore {
		patterns = appendNew(patterns, p) // what the job left out on purpose
	}
	v1Name := ""
	if s.Format.V1 {
		v1Name = v1Free(st, mhlv1.FileName(folder, info.Finished), info)
		if s.Format.ASC {
			patterns = appendNew(patterns, ignore.Escape(v1Name))
		}
	}
	ign := ignore.New(patterns)
	b := &builder{info: info, st: st, hist: hist, ign: ign}
	if s.Format.V1 {
		b.v1 = newV1Spool(&mhlv1.List{Username: s.username(), Hostname: info.Host, Tool: "dit " + info.ToolVersion,
			Start: info.Started, Finish: info.Finished})
		defer b.v1.close()
	}
	if p := info.Progress; p != nil {
		// The first walk qualifies the files (and lists them for MHL
		// v1.1); a new ASC MHL generation is written by a second.
		walks := 1
		if s.Format.ASC && sealedBefore(hist, info) == "" {
			walks = 2
		}
		p.Walks(walks)
	}
	if err := b.build(ctx); err != nil {
		return err
	}
	var done []string
	if s.Format.V1 {
		wrote, err := s.writeV1(st, b, v1Name)
		if err != nil {
			return err
		}
		if wrote {
			done = append(done, v1Name)
		}
	}
	if s.Format.ASC {
		name, err := appendGeneration(ctx, st, hist, b, patterns, folder)
		if err != nil {
			return err
		}
		done = append(done, name)
	}
	warnings := append(notes, b.warnings...)
	if len(b.warnings) > 0 {
		warnings = append(notes, fmt.Sprintf("wrote %s, but: %s", strings.Join(done, " and "), strings.Join(b.warnings, "; ")))
	}
	if len(warnings) > 0 {
		return &offload.SealWarning{Messages: warnings}
	}
	return nil
}

// opener is how the card's folder on the destination is opened: the
// Sealer's OpenStore; the job's filesystem when the destination is a
// dit array; else the OS folder.
func (s *Sealer) opener(info offload.SealInfo) (func(offload.SealInfo) (ascmhl.Store, func() error, error), error) {
	open := s.OpenStore
	if info.Stage != "" {
		// A cloud destination: the history is staged locally and uploaded
		// by the engine (staged.go).
		return openStaged, nil
	}
	if open == nil && raid.IsBlade(info.DestRoot) {
		// The card's folder is a logical folder of the array: written as
		// OS files they would land in the blade folder.
		if info.FS == nil {
			return nil, fmt.Errorf("%s is a blade of a dit array and the job's filesystem is unknown: no hash list written", info.DestRoot)
		}
		open = func(info offload.SealInfo) (ascmhl.Store, func() error, error) {
			return ascmhl.FSStore{FS: info.FS, Dir: info.CardDir}, func() error { return nil }, nil
		}
	}
	if open == nil {
		open = func(info offload.SealInfo) (ascmhl.Store, func() error, error) {
			st, err := ascmhl.OpenOSStore(info.CardDir)
			if err != nil {
				return nil, nil, err
			}
			return st, st.Close, nil
		}
	}
	return open, nil
}

// recoverSeal finishes or undoes an ASC MHL generation a crash
// interrupted (one of this card's seals, by its comment; the files it
// keeps are those the job copied) and says what it did.
func recoverSeal(st ascmhl.Store, info offload.SealInfo) ([]string, error) {
	// Recover asks only about names in the ascmhl folder: only those of
	// the card's files are kept here (a history copied with the card).
	copied := map[string]bool{}
	err := info.Files.Each(func(f *offload.SealFile) error {
		if isHistory(f.Rel) {
			copied[f.Rel] = true
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	did, err := ascmhl.Recover(st, ascmhl.RecoverScope{
		Own: func(m *ascmhl.Manifest) bool {
			return m.Tool == "dit" && strings.HasPrefix(m.Comment, ownComment(info))
		},
		Keep: func(rel string) bool { return copied[rel] },
	})
	if err != nil {
		return nil, fmt.Errorf("recovering the ASC MHL history in %s: %w", info.CardDir, err)
	}
	var notes []string
	for _, d := range did {
		notes = append(notes, "recovered "+info.CardDir+": "+d)
	}
	return notes, nil
}

// historyToExtend reads the history of the card's folder (nil: none). A
// damaged one is refused, and so is none when the card carries one: its
// history did not arrive.
func historyToExtend(st ascmhl.Store, info offload.SealInfo) (*ascmhl.History, error) {
	hist, err := ascmhl.LoadHistoryIndexed(st) // heads and records only
	switch {
	case errors.Is(err, ascmhl.ErrNoHistory):
		hist = nil
		if info.CardRoot != "" {
			if _, serr := os.Stat(filepath.Join(info.CardRoot, ascmhl.HistoryDir, ascmhl.ChainFile)); serr == nil {
				return nil, fmt.Errorf("the card %s carries an ASC MHL history, but it is not in %s (see the failed files): no new generation written",
					info.CardRoot, info.CardDir)
			}
		}
	case err != nil:
		return nil, fmt.Errorf("reading the ASC MHL history in %s: %w", info.CardDir, err)
	case len(hist.Problems) > 0:
		return nil, fmt.Errorf("the ASC MHL history in %s is damaged, no new generation written: %s",
			info.CardDir, strings.Join(hist.Problems, "; "))
	}
	return hist, nil
}

// writeV1 writes the MHL v1.1 list b built as name; it reports whether
// it did (not when there is no file to list: a warning).
func (s *Sealer) writeV1(st ascmhl.Store, b *builder, name string) (bool, error) {
	info := b.info
	if b.v1.files() == 0 {
		b.warn("no file to list: MHL v1.1 file not written")
		return false, nil
	}
	err := ascmhl.WriteFileAtomicFrom(st, name, false, b.v1.writeTo)
	if errors.Is(err, fs.ErrExist) && ownV1(st, name, info) {
		// Written by this seal before a crash (the seal time is
		// kept for a redo, and with it the name): written again.
		err = ascmhl.WriteFileAtomicFrom(st, name, true, b.v1.writeTo)
	}
	if err != nil {
		return false, fmt.Errorf("writing %s: %w", filepath.Join(info.CardDir, name), err)
	}
	crashpoint.Hit("seal: MHL v1.1 written")
	return true, nil
}

// appendGeneration appends the ASC MHL generation b built to hist and
// checks that the history reads back whole with it; it returns the
// manifest's name. A generation this seal wrote before is not appended
// again.
func appendGeneration(ctx context.Context, st ascmhl.Store, hist *ascmhl.History, b *builder, patterns []string, folder string) (string, error) {
	info := b.info
	if g := sealedBefore(hist, info); g != "" {
		// This seal's generation is already in the chain (a crash came
		// after it, or the job is resumed with nothing new): nothing is
		// appended.
		return g + " (written before)", nil
	}
	name, err := ascmhl.AppendFrom(st, hist, b.manifest(patterns), folder, func(mw *ascmhl.ManifestWriter) error {
		return b.writeEntries(ctx, mw)
	})
	if err != nil {
		return "", fmt.Errorf("writing the ASC MHL history in %s: %w", info.CardDir, err)
	}
	// The card is sealed only with a history that reads back whole (each
	// manifest parsed, its c4 checked; no record kept).
	again, err := ascmhl.LoadHistoryHeads(st)
	switch {
	case err != nil:
		return "", fmt.Errorf("the ASC MHL history in %s does not read back after writing %s: %w", info.CardDir, name, err)
	case len(again.Problems) > 0:
		return "", fmt.Errorf("the ASC MHL history in %s does not verify after writing %s: %s", info.CardDir, name, strings.Join(again.Problems, "; "))
	case sealedBefore(again, info) == "":
		return "", fmt.Errorf("the ASC MHL history in %s does not list %s after writing it", info.CardDir, name)
	}
	return name, nil
}

// sealedBefore returns the manifest of the history's newest generation if
// dit wrote it for this very seal (the same job, and the seal time that
// the catalog keeps for a redo), else "".
func sealedBefore(h *ascmhl.History, info offload.SealInfo) string {
	if h == nil || len(h.Generations) == 0 {
		return ""
	}
	g := h.Generations[len(h.Generations)-1]
	m := g.Manifest
	if m == nil || m.Tool != "dit" || !m.Created.Equal(info.Finished) || !strings.HasPrefix(m.Comment, ownComment(info)) {
		return ""
	}
	return ascmhl.HistoryDir + "/" + g.File
}

// ownV1 reports whether the MHL v1.1 file name in st is one this job wrote
// (a seal redone after a crash has the same seal time, hence the name).
// v1Free is the name of the card's MHL v1.1 list: base, or, when a file
// of that name is there and is not this seal's (a cascade's second run
// copies the first copy's list, made in the same second; a card may hold
// a list of its own), the first free of NAME_2.mhl, NAME_3.mhl ... A
// seal redone after a crash finds its own list again.
func v1Free(st ascmhl.Store, base string, info offload.SealInfo) string {
	stem := strings.TrimSuffix(base, ".mhl")
	name := base
	for i := 2; i < 1000; i++ {
		if _, err := st.Lstat(name); errors.Is(err, fs.ErrNotExist) || ownV1(st, name, info) {
			return name
		}
		name = fmt.Sprintf("%s_%d.mhl", stem, i)
	}
	return base // the write says why it cannot
}

func ownV1(st ascmhl.Store, name string, info offload.SealInfo) bool {
	copied := errors.New("copied with the card")
	err := info.Files.Each(func(f *offload.SealFile) error {
		if f.Rel == name {
			return copied // copied with the card: never rewritten
		}
		return nil
	})
	if err != nil {
		return false
	}
	// Its creator info is at its head: the list itself is not read
	// (~300 B a file).
	f, err := st.Open(name)
	if err != nil {
		return false
	}
	defer f.Close()
	head, err := io.ReadAll(io.LimitReader(f, 64<<10))
	return err == nil && strings.Contains(string(head), "<tool>dit "+info.ToolVersion+"</tool>") &&
		strings.Contains(string(head), "<hostname>"+info.Host+"</hostname>")
}

func (s *Sealer) username() string {
	if s.Username != "" {
		return s.Username
	}
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	if u := os.Getenv("USER"); u != "" {
		return u
	}
	return "dit"
}

func appendNew(list []string, p string) []string {
	for _, x := range list {
		if x == p {
			return list
		}
	}
	return append(append([]string(nil), list...), p)
}

// ownComment starts the comment of every generation this job writes for
// this card in this folder: how a seal knows its own manifests (Recover,
// sealedBefore) from a history copied with the card (offload.SealComment,
// which the engine also reads: a chain this seal extended is not taken for
// someone else's file on a resume).
func ownComment(info offload.SealInfo) string { return info.OwnComment() }
