package raid

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"time"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Member states.
const (
	MemberActive     = "active"
	MemberMissing    = "missing"
	MemberFailed     = "failed"
	MemberRebuilding = "rebuilding"
)

// Member is one role of the array as a superblock records it.
type Member struct {
	Role       int    `json:"role"`
	BladeUUID  string `json:"blade_uuid"`
	State      string `json:"state"`
	EventsSeen uint64 `json:"events_seen"`
	PathHint   string `json:"path_hint"` // last known folder (informational; --blade overrides)
}

// ThisBlade identifies the blade holding the superblock.
type ThisBlade struct {
	UUID string `json:"uuid"`
	Role int    `json:"role"`
}

// RebuildState is bookkeeping of a running rebuild (progress is for the
// UI). Kind says who resumes it: "replace" (dit array replace, run again)
// or "re-add" (any read-write open); absent means replace.
type RebuildState struct {
	Role      int       `json:"role"`
	Kind      string    `json:"kind,omitempty"`
	Started   time.Time `json:"started"`
	FilesDone int       `json:"files_done"`
}

// Rebuild kinds.
const (
	RebuildReplace = "replace"
	RebuildReAdd   = "re-add"
)

// Superblock is the per-blade identity and array state (JSON + CRC32C).
type Superblock struct {
	Magic          string        `json:"magic"`
	Format         int           `json:"format"`
	ArrayUUID      string        `json:"array_uuid"`
	ArrayLabel     string        `json:"array_label"`
	Level          string        `json:"level"` // raid0 | raid4
	DataBlades     int           `json:"data_blades"`
	ParityBlades   int           `json:"parity_blades"`
	StripeUnit     int64         `json:"stripe_unit"`
	UnitHash       string        `json:"unit_hash"`
	FileHashes     []string      `json:"file_hashes"`
	MetaCRC        string        `json:"meta_crc"`
	This           ThisBlade     `json:"this_blade"`
	Members        []Member      `json:"members"`
	Events         uint64        `json:"events"`
	Dirty          bool          `json:"dirty"`
	SessionID      string        `json:"session_id"`
	LastCleanClose time.Time     `json:"last_clean_close"`
	Created        time.Time     `json:"created"`
	Writer         string        `json:"writer"`
	Rebuild        *RebuildState `json:"rebuild,omitempty"`
}

const sbMagic = "DIT-ARRAY-SB"

// Roles is the number of members: k data blades plus the parity blade.
func (s *Superblock) Roles() int { return s.DataBlades + s.ParityBlades }

// encodeSuperblock renders JSON followed by "\ncrc32c=XXXXXXXX\n".
func encodeSuperblock(s *Superblock) []byte {
	b, _ := json.MarshalIndent(s, "", "  ")
	return append(b, []byte(fmt.Sprintf("\ncrc32c=%08x\n", crc32.Checksum(b, castagnoli)))...)
}

// errCorrupt marks metadata that failed its checksum or structure checks.
var errCorrupt = errors.New("corrupt")

// decodeSuperblock checks the CRC and the geometry.
func decodeSuperblock(data []byte) (*Superblock, error) {
	i := bytes.LastIndex(data, []byte("\ncrc32c="))
	if i < 0 || !bytes.HasSuffix(data, []byte("\n")) || len(data)-i != len("\ncrc32c=")+9 {
		return nil, fmt.Errorf("superblock: %w: no crc32c trailer", errCorrupt)
	}
	want, err := strconv.ParseUint(string(data[i+8:len(data)-1]), 16, 32)
	if err != nil {
		return nil, fmt.Errorf("superblock: %w: bad crc32c trailer", errCorrupt)
	}
	body := data[:i]
	if got := crc32.Checksum(body, castagnoli); uint64(got) != want {
		return nil, fmt.Errorf("superblock: %w: crc32c %08x, trailer says %08x", errCorrupt, got, want)
	}
	var s Superblock
	if err := json.Unmarshal(body, &s); err != nil {
		return nil, fmt.Errorf("superblock: %w: %v", errCorrupt, err)
	}
	if err := s.check(); err != nil {
		return nil, err
	}
	return &s, nil
}

func (s *Superblock) check() error {
	bad := func(f string, a ...any) error {
		return fmt.Errorf("superblock: %w: %s", errCorrupt, fmt.Sprintf(f, a...))
	}
	switch {
	case s.Magic != sbMagic:
		return bad("magic %q", s.Magic)
	case s.Format != 1:
		return bad("format %d is not supported by this dit", s.Format)
	case s.Level != "raid0" && s.Level != "raid4":
		return bad("level %q", s.Level)
	case s.Level == "raid0" && s.ParityBlades != 0, s.Level == "raid4" && s.ParityBlades != 1:
		return bad("parity blades %d for %s", s.ParityBlades, s.Level)
	case s.DataBlades < 1 || s.Roles() < 2 || s.Roles() > 16:
		return bad("%d data blades", s.DataBlades)
	case s.StripeUnit < 64<<10 || s.StripeUnit > 16<<20 || s.StripeUnit&(s.StripeUnit-1) != 0:
		return bad("stripe unit %d", s.StripeUnit)
	case len(s.Members) != s.Roles():
		return bad("%d members for %d roles", len(s.Members), s.Roles())
	case s.This.Role < 0 || s.This.Role >= s.Roles():
		return bad("role %d", s.This.Role)
	case len(s.ArrayUUID) != 32 || len(s.This.UUID) != 32:
		return bad("uuid length")
	}
	for i, m := range s.Members {
		if m.Role != i {
			return bad("member %d has role %d", i, m.Role)
		}
	}
	return nil
}

// ArrayUUID reads the array's UUID from the superblock of the blade at
// dir, without assembling the array (no manifests are read).
func ArrayUUID(dir string) (string, error) {
	sb, _, err := readSuperblock(DirFS{Dir: dir})
	if err != nil {
		return "", err
	}
	return sb.ArrayUUID, nil
}

// BladeHints reads the superblock of the blade at dir, without assembling
// the array, and returns the folders its members were last seen at, by
// role ("" for a role never seen): a cheap look at an array's blades (the
// drive-health check before an offload). dir itself stands for its role.
func BladeHints(dir string) ([]string, error) {
	sb, _, err := readSuperblock(DirFS{Dir: dir})
	if err != nil {
		return nil, err
	}
	out := make([]string, sb.Roles())
	for _, m := range sb.Members {
		if m.Role >= 0 && m.Role < len(out) {
			out[m.Role] = m.PathHint
		}
	}
	if r := sb.This.Role; r >= 0 && r < len(out) {
		out[r] = dir
	}
	return out, nil
}

// writeSuperblock keeps the previous generation as SUPERBLOCK.prev.
func writeSuperblock(b BladeFS, sb *Superblock) error {
	name := path.Join(Dir, "SUPERBLOCK")
	if _, err := b.Stat(name); err == nil {
		if err := b.Rename(name, name+".prev"); err != nil {
			return err
		}
	}
	return writeAtomic(b, name, encodeSuperblock(sb))
}

// readSuperblock reads SUPERBLOCK, falling back to SUPERBLOCK.prev when
// the current one is missing or fails its CRC. repaired says the fallback
// was used.
func readSuperblock(b BladeFS) (sb *Superblock, repaired bool, err error) {
	name := path.Join(Dir, "SUPERBLOCK")
	data, err := readFile(b, name)
	if err == nil {
		if sb, err = decodeSuperblock(data); err == nil {
			return sb, false, nil
		}
	}
	first := err
	if data, perr := readFile(b, name+".prev"); perr == nil {
		if sb, perr := decodeSuperblock(data); perr == nil {
			return sb, true, nil
		}
	}
	if errIsNotExist(first) {
		if _, serr := b.Stat(Dir); serr != nil {
			return nil, false, fmt.Errorf("%s: %w (no %s folder)", b.Root(), ErrNotBlade, Dir)
		}
	}
	return nil, false, fmt.Errorf("blade %s: superblock unreadable and no valid SUPERBLOCK.prev: %w", b.Root(), first)
}

// IsBlade reports whether dir holds a dit array member.
func IsBlade(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, Dir, "SUPERBLOCK"))
	if err != nil {
		_, err = os.Stat(filepath.Join(dir, Dir, "SUPERBLOCK.prev"))
	}
	return err == nil
}

// ArrayIdentity reads the array's UUID and label from the superblock of
// the blade at dir, without assembling the array: what names the array's
// mount place (raid/mountplace).
func ArrayIdentity(dir string) (uuid, label string, err error) {
	sb, _, err := readSuperblock(DirFS{Dir: dir})
	if err != nil {
		return "", "", err
	}
	return sb.ArrayUUID, sb.ArrayLabel, nil
}
