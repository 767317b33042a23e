package raid

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"time"
)

// Create makes a new array over empty blade folders (role = argument
// order) and returns it opened read-write.
func Create(dirs []string, o CreateOptions) (*Array, error) {
	return CreateFS(dirs, o, nil)
}

// CreateFS is Create with a blade filesystem constructor (tests).
func CreateFS(dirs []string, o CreateOptions, mk func(string) BladeFS) (*Array, error) {
	if mk == nil {
		mk = func(d string) BladeFS { return DirFS{Dir: d} }
	}
	if o.Level == "" {
		o.Level = RAID4
	}
	if o.StripeUnit == 0 {
		o.StripeUnit = DefaultStripeUnit
	}
	n := len(dirs)
	switch {
	case o.Level != RAID0 && o.Level != RAID4:
		return nil, fmt.Errorf("unknown level %q: use 0 or 4", o.Level)
	case n < 2 || n > MaxBlades:
		return nil, fmt.Errorf("an array needs 2 to %d blades, got %d", MaxBlades, n)
	case o.Level == RAID4 && n < 3:
		return nil, fmt.Errorf("RAID 4 needs at least 3 blades (2 data + 1 parity), got %d", n)
	case o.StripeUnit < MinStripeUnit || o.StripeUnit > MaxStripeUnit || o.StripeUnit&(o.StripeUnit-1) != 0:
		return nil, fmt.Errorf("stripe unit %d is not a power of two between 64KiB and 16MiB", o.StripeUnit)
	}
	seen := map[string]bool{}
	for _, d := range dirs {
		abs, _ := filepath.Abs(d)
		if seen[abs] {
			return nil, fmt.Errorf("blade %s is given twice", d)
		}
		seen[abs] = true
		b := mk(abs)
		if _, err := b.Stat(path.Join(Dir, "SUPERBLOCK")); err == nil {
			return nil, fmt.Errorf("blade %s already belongs to an array (%s exists): use it, or empty the folder", d, filepath.Join(abs, Dir))
		}
		if fi, err := os.Stat(abs); err == nil && !fi.IsDir() {
			return nil, fmt.Errorf("blade %s is not a folder", d)
		}
	}
	parity := 0
	if o.Level == RAID4 {
		parity = 1
	}
	sb := Superblock{Magic: sbMagic, Format: 1, ArrayUUID: newID(), ArrayLabel: o.Label, Level: string(o.Level),
		DataBlades: n - parity, ParityBlades: parity, StripeUnit: o.StripeUnit, UnitHash: "xxh3-128",
		FileHashes: []string{"xxh64", "xxh3-128"}, MetaCRC: "crc32c", Events: 1, Created: time.Now().UTC(), Writer: o.Writer}
	for i, d := range dirs {
		abs, _ := filepath.Abs(d)
		sb.Members = append(sb.Members, Member{Role: i, BladeUUID: newID(), State: MemberActive, EventsSeen: 1, PathHint: abs})
	}
	for i, d := range dirs {
		abs, _ := filepath.Abs(d)
		b := mk(abs)
		for _, sub := range []string{"chunks", "manifests", "intents", "sessions", "scrub", "tmp"} {
			if err := mkdirDurable(b, path.Join(Dir, sub)); err != nil {
				return nil, fmt.Errorf("blade %s: %w", d, err)
			}
		}
		readme := fmt.Sprintf("Member %d of dit array %q (%s), %s.\nDo not edit, move or delete anything in this folder: it holds striped footage.\nUse `dit array status %s`.\n",
			i, o.Label, sb.ArrayUUID, o.Level, abs)
		if err := writeAtomic(b, path.Join(Dir, "README.txt"), []byte(readme)); err != nil {
			return nil, fmt.Errorf("blade %s: %w", d, err)
		}
		mine := sb
		mine.Members = append([]Member(nil), sb.Members...)
		mine.This = ThisBlade{UUID: sb.Members[i].BladeUUID, Role: i}
		if err := writeSuperblock(b, &mine); err != nil {
			return nil, fmt.Errorf("blade %s: %w", d, err)
		}
		if err := b.SyncDir(""); err != nil {
			return nil, fmt.Errorf("blade %s: %w", d, err)
		}
	}
	abs := make([]string, n)
	for i, d := range dirs {
		abs[i], _ = filepath.Abs(d)
	}
	return Open(abs, OpenOptions{ReadWrite: true, Writer: o.Writer, FS: mk})
}
