// Package mountplace says where the files of a dit array can be opened by
// other programs (an editing suite, a player, Finder): the folders of an
// array are logical, on no blade's disk, so a copy in an array has a path
// a person can open only while the array is mounted (dit array mount,
// raid/fusemount).
//
// # The mount place
//
// An array is mounted read-only at its mount place unless told another
// folder: DIT_ARRAY_MOUNTS/NAME, where DIT_ARRAY_MOUNTS defaults to the
// folder dit-arrays in the user's home (~/dit-arrays), and NAME is the
// array's label and the first 8 hex digits of its UUID ("cart-1a2b3c4d";
// "array-1a2b3c4d" without a label; characters a file name cannot hold
// become "_"). The same array gets the same place on every mount, so an
// ALE or an FCPXML written today still relinks tomorrow.
//
// A mounted array is found in the system's mount table (Linux
// /proc/self/mountinfo, macOS getfsstat) by the file-system name dit
// mounts it with: "dit-array:" and the array's UUID ([FSName]); a mount
// that no longer answers (its process killed) is not counted.
//
// # Paths
//
// [Resolver.Path] turns a destination root and a path below it (as the
// catalog records a copy) into a path a person can open: root/rel for a
// folder; for a blade of an array, the array's mount point (or mount
// place, when not mounted) joined with the path in the array, with the
// [Place] saying whether it is mounted and the command that mounts it.
// Paths are cleaned: never a doubled slash.
package mountplace

import (
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/dit-org/dit/raid"
)

// Env is the variable naming the folder that holds the arrays' default
// mount places.
const Env = "DIT_ARRAY_MOUNTS"

// FSName is the file-system name an array with this UUID is mounted with
// (the "source" of the mount table): how a mounted array is found.
func FSName(uuid string) string { return "dit-array:" + uuid }

// Parent is the folder of the default mount places: $DIT_ARRAY_MOUNTS, or
// ~/dit-arrays.
func Parent() string {
	if p := os.Getenv(Env); p != "" {
		if abs, err := filepath.Abs(p); err == nil {
			return abs
		}
		return p
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return filepath.Join(os.TempDir(), "dit-arrays")
	}
	return filepath.Join(home, "dit-arrays")
}

// Name is the folder name of the array's default mount place: its label
// (made safe for a file name) and the first 8 hex digits of its UUID.
func Name(uuid, label string) string {
	short := uuid
	if len(short) > 8 {
		short = short[:8]
	}
	label = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || strings.ContainsRune(`/\:*?"<>|`, r) {
			return '_'
		}
		return r
	}, strings.TrimSpace(label))
	label = strings.Trim(label, ". ")
	if label == "" {
		label = "array"
	}
	return label + "-" + short
}

// Default is the array's default mount place: Parent()/Name(uuid, label).
func Default(uuid, label string) string { return filepath.Join(Parent(), Name(uuid, label)) }

// Mounted is where the array with this UUID is mounted now and answering
// (the first such mount), or "" and false.
func Mounted(uuid string) (string, bool) {
	for _, m := range mounts() {
		if m.source != FSName(uuid) {
			continue
		}
		if _, err := os.Stat(m.dir); err == nil {
			return m.dir, true
		}
	}
	return "", false
}

// mount is one entry of the system's mount table.
type mount struct{ source, dir string }

// Place is where an array's files can be opened.
type Place struct {
	UUID, Label string
	Blade       string // the blade the catalog names the array by
	Dir         string // the mount point when Mounted, else the default mount place
	Mounted     bool
}

// MountCommand is the command that mounts the array at Dir.
func (p *Place) MountCommand() string {
	c := "dit array mount " + shellQuote(p.Blade)
	if p.Dir != Default(p.UUID, p.Label) {
		c += " " + shellQuote(p.Dir)
	}
	return c
}

// Note says, for a person, whether the array is mounted: "mounted at DIR",
// or "not mounted: dit array mount BLADE (mounts it at DIR)".
func (p *Place) Note() string {
	if p.Mounted {
		return "array " + p.Name() + " mounted at " + p.Dir
	}
	return "array " + p.Name() + " not mounted: " + p.MountCommand() + " (mounts it at " + p.Dir + ")"
}

// Name is the array's label, or the first 8 hex digits of its UUID.
func (p *Place) Name() string {
	if p.Label != "" || len(p.UUID) < 8 {
		return p.Label
	}
	return p.UUID[:8]
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+:@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Resolver turns the catalog's paths into paths a person can open,
// looking at each destination root and each array once.
type Resolver struct {
	mu     sync.Mutex
	places map[string]*Place // by destination root; nil: not a blade
}

// NewResolver returns a Resolver that has looked at nothing yet.
func NewResolver() *Resolver { return &Resolver{places: map[string]*Place{}} }

// PlaceOf is the array root is a blade of, or nil when root is a folder.
func (r *Resolver) PlaceOf(root string) *Place {
	r.mu.Lock()
	defer r.mu.Unlock()
	if p, ok := r.places[root]; ok {
		return p
	}
	var p *Place
	if raid.IsBlade(root) {
		if uuid, label, err := raid.ArrayIdentity(root); err == nil {
			p = &Place{UUID: uuid, Label: label, Blade: filepath.Clean(root), Dir: Default(uuid, label)}
			if dir, ok := Mounted(uuid); ok {
				p.Dir, p.Mounted = dir, true
			}
		}
	}
	r.places[root] = p
	return p
}

// Path is rel (slash or OS separated) below destination root as a path
// to open, with the array's place when root is a blade (nil otherwise).
func (r *Resolver) Path(root, rel string) (string, *Place) {
	rel = strings.TrimLeft(filepath.FromSlash(rel), string(filepath.Separator))
	if p := r.PlaceOf(root); p != nil {
		return filepath.Join(p.Dir, rel), p
	}
	return filepath.Join(root, rel), nil
}

// CopyPath is a copy the catalog records at copyPath (its destination
// root joined with its path there) on destination root, as a path to
// open.
func (r *Resolver) CopyPath(root, copyPath string) (string, *Place) {
	rel, err := filepath.Rel(filepath.Clean(root), filepath.Clean(copyPath))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.Clean(copyPath), nil
	}
	if rel == "." {
		rel = ""
	}
	return r.Path(root, rel)
}
