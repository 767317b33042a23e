package raid

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
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
	if err := checkCreate(dirs, o, mk); err != nil {
		return nil, err
	}
	n := len(dirs)
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

// checkCreate refuses bad arguments before anything is written: the
// level, the stripe unit, the blade count, and each blade: an existing
// folder, given once (by path or as the same folder under another path),
// not inside another blade, not already a member of an array.
func checkCreate(dirs []string, o CreateOptions, mk func(string) BladeFS) error {
	n := len(dirs)
	switch {
	case o.Level != RAID0 && o.Level != RAID4:
		return invalidf("unknown level %q: use 0 or 4", o.Level)
	case n < 2 || n > MaxBlades:
		return invalidf("an array needs 2 to %d blades, got %d", MaxBlades, n)
	case o.Level == RAID4 && n < 3:
		return invalidf("RAID 4 needs at least 3 blades (2 data + 1 parity), got %d: give another blade, or --level 0", n)
	case o.StripeUnit < MinStripeUnit || o.StripeUnit > MaxStripeUnit || o.StripeUnit&(o.StripeUnit-1) != 0:
		return invalidf("stripe unit %d is not a power of two between 64KiB and 16MiB", o.StripeUnit)
	}
	abs := make([]string, n)
	infos := make([]os.FileInfo, n)
	for i, d := range dirs {
		a, err := filepath.Abs(d)
		if err != nil {
			return invalidf("blade %s: %v", d, err)
		}
		abs[i] = a
		if isDirFS(mk(a)) {
			fi, err := os.Stat(a)
			switch {
			case err != nil:
				return invalidf("blade %s does not exist (%v): give the folder of a mounted blade, or create it first", d, err)
			case !fi.IsDir():
				return invalidf("blade %s is not a folder", d)
			}
			infos[i] = fi
		}
		for j := 0; j < i; j++ {
			switch {
			case abs[j] == a || (infos[j] != nil && infos[i] != nil && os.SameFile(infos[j], infos[i])):
				if dirs[j] == d {
					return invalidf("blade %s is given twice: give each blade once", d)
				}
				return invalidf("blade %s is given twice (as %s and %s): give each blade once", d, dirs[j], d)
			case strings.HasPrefix(a, abs[j]+string(filepath.Separator)) || strings.HasPrefix(abs[j], a+string(filepath.Separator)):
				return invalidf("blade %s and blade %s: one is inside the other: give folders on separate blades", dirs[j], d)
			}
		}
		if _, err := mk(a).Stat(path.Join(Dir, "SUPERBLOCK")); err == nil {
			return invalidf("blade %s already belongs to an array (%s exists): use it, or give an empty folder", d, filepath.Join(a, Dir))
		}
	}
	return nil
}

// isDirFS says whether b is an OS folder (not a test filesystem).
func isDirFS(b BladeFS) bool {
	_, ok := b.(DirFS)
	return ok
}
