package raid

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io/fs"
	"path"
	"strings"
	"time"
	"unicode/utf8"
)

// SourceInfo says where a file came from (informational).
type SourceInfo struct {
	Volume string `json:"volume,omitempty"`
	Path   string `json:"path,omitempty"`
	Size   int64  `json:"size"`
	Mtime  int64  `json:"mtime_ns"`
	XXH64  string `json:"xxh64,omitempty"` // computed while reading the card
}

// ManifestLayout is the geometry recorded per file.
type ManifestLayout struct {
	Level     string  `json:"level"`
	K         int     `json:"k"`
	SU        int64   `json:"su"`
	Start     int     `json:"start"`
	ChunkLens []int64 `json:"chunk_lens"`
	ParityLen int64   `json:"parity_len"`
}

// Meta is the JSON part of a manifest.
type Meta struct {
	FileID        string            `json:"file_id"`
	ArrayUUID     string            `json:"array_uuid"`
	Generation    uint64            `json:"generation"`
	Path          string            `json:"path"`
	Dir           bool              `json:"dir,omitempty"` // an (empty) folder: no chunks
	Size          int64             `json:"size"`
	MtimeNs       int64             `json:"mtime_ns"`
	Mode          uint32            `json:"mode"`
	Source        SourceInfo        `json:"source"`
	Hashes        map[string]string `json:"hashes"` // xxh64, xxh3-128 of the logical file
	Layout        ManifestLayout    `json:"layout"`
	WrittenWith   []int             `json:"written_with"`
	EventsAtWrite uint64            `json:"events_at_write"`
	Session       string            `json:"session,omitempty"` // read-write session that wrote it
	CommittedAt   time.Time         `json:"committed_at"`
	Writer        string            `json:"writer"`
}

// Manifest is one file's record: metadata and a xxh3-128 per unit.
type Manifest struct {
	Meta
	NStripes uint64
	Roles    int        // k + parity blades
	Units    [][16]byte // NStripes*Roles, stripe-major; data positions then parity
}

// UnitHash returns the hash of unit (s, pos); pos == K is the parity unit.
func (m *Manifest) UnitHash(s int64, pos int) [16]byte { return m.Units[int(s)*m.Roles+pos] }

// layout returns the file's geometry.
func (m *Manifest) layout() Layout {
	return Layout{K: m.Layout.K, SU: m.Layout.SU, Start: m.Layout.Start, Size: m.Size}
}

const manifestMagic = "BAM1"

func encodeManifest(m *Manifest) []byte {
	js, _ := json.Marshal(&m.Meta)
	var b bytes.Buffer
	b.WriteString(manifestMagic)
	binary.Write(&b, binary.LittleEndian, uint32(1))
	binary.Write(&b, binary.LittleEndian, uint32(len(js)))
	b.Write(js)
	binary.Write(&b, binary.LittleEndian, m.NStripes)
	b.WriteByte(byte(m.Roles))
	b.WriteByte(16)
	for _, u := range m.Units {
		b.Write(u[:])
	}
	binary.Write(&b, binary.LittleEndian, crc32.Checksum(b.Bytes(), castagnoli))
	return b.Bytes()
}

// decodeManifest checks the framing, the CRC and the internal consistency
// of a manifest. It never trusts a length it has not bounded.
func decodeManifest(data []byte) (*Manifest, error) {
	bad := func(f string, a ...any) (*Manifest, error) {
		return nil, fmt.Errorf("manifest: %w: %s", errCorrupt, fmt.Sprintf(f, a...))
	}
	if len(data) < 4+4+4+8+2+4 || string(data[:4]) != manifestMagic {
		return bad("bad magic or too short")
	}
	body, tail := data[:len(data)-4], data[len(data)-4:]
	if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(tail) {
		return bad("crc32c mismatch")
	}
	if v := binary.LittleEndian.Uint32(data[4:]); v != 1 {
		return bad("version %d", v)
	}
	jl := int(binary.LittleEndian.Uint32(data[8:]))
	if jl < 0 || 12+jl+10 > len(body) {
		return bad("json length %d", jl)
	}
	var m Manifest
	if err := json.Unmarshal(data[12:12+jl], &m.Meta); err != nil {
		return bad("%v", err)
	}
	p := 12 + jl
	m.NStripes = binary.LittleEndian.Uint64(data[p:])
	m.Roles = int(data[p+8])
	if data[p+9] != 16 {
		return bad("hash length %d", data[p+9])
	}
	p += 10
	if m.Roles < 1 || m.Roles > 16 || m.NStripes > uint64(len(body)) {
		return bad("%d roles, %d stripes", m.Roles, m.NStripes)
	}
	n := int(m.NStripes) * m.Roles
	if len(body)-p != n*16 {
		return bad("hash table is %d bytes, want %d", len(body)-p, n*16)
	}
	m.Units = make([][16]byte, n)
	for i := range m.Units {
		copy(m.Units[i][:], body[p+16*i:])
	}
	if err := m.check(); err != nil {
		return nil, err
	}
	return &m, nil
}

func (m *Manifest) check() error {
	bad := func(f string, a ...any) error {
		return fmt.Errorf("manifest %s: %w: %s", m.FileID, errCorrupt, fmt.Sprintf(f, a...))
	}
	if err := checkLogicalPath(m.Path); err != nil {
		return bad("%v", err)
	}
	if len(m.FileID) != 32 {
		return bad("file id")
	}
	if m.Dir {
		if m.NStripes != 0 || m.Size != 0 {
			return bad("folder with data")
		}
		return nil
	}
	ly := m.Layout
	if ly.K < 1 || ly.K > 16 || ly.SU < 64<<10 || ly.SU > 16<<20 || ly.Start < 0 || ly.Start >= ly.K || m.Size < 0 {
		return bad("layout")
	}
	parity := 0
	if ly.Level == "raid4" {
		parity = 1
	} else if ly.Level != "raid0" {
		return bad("level %q", ly.Level)
	}
	if m.Roles != ly.K+parity || len(ly.ChunkLens) != ly.K {
		return bad("roles")
	}
	l := m.layout()
	if uint64(l.Stripes()) != m.NStripes {
		return bad("%d stripes for size %d", m.NStripes, m.Size)
	}
	for j := 0; j < ly.K; j++ {
		if ly.ChunkLens[j] != l.ChunkLen(j) {
			return bad("chunk %d length", j)
		}
	}
	if parity == 1 && ly.ParityLen != l.ParityLen() {
		return bad("parity length")
	}
	return nil
}

// checkLogicalPath refuses paths that could leave a folder they are
// extracted to: absolute, "..", empty elements, NUL, or invalid UTF-8.
func checkLogicalPath(p string) error {
	if p == "" || !utf8.ValidString(p) || strings.ContainsRune(p, 0) || strings.HasPrefix(p, "/") || strings.Contains(p, "\\") {
		return fmt.Errorf("unsafe path %q", p)
	}
	if path.Clean(p) != p {
		return fmt.Errorf("unsafe path %q", p)
	}
	for _, part := range strings.Split(p, "/") {
		if part == ".." || part == "." || part == "" {
			return fmt.Errorf("unsafe path %q", p)
		}
	}
	return nil
}

// FileInfo returns an fs.FileInfo for the logical file.
func (m *Manifest) FileInfo() fs.FileInfo { return manifestInfo{m} }

type manifestInfo struct{ m *Manifest }

func (i manifestInfo) Name() string       { return path.Base(i.m.Path) }
func (i manifestInfo) Size() int64        { return i.m.Size }
func (i manifestInfo) ModTime() time.Time { return time.Unix(0, i.m.MtimeNs) }
func (i manifestInfo) IsDir() bool        { return i.m.Dir }
func (i manifestInfo) Sys() any           { return i.m }
func (i manifestInfo) Mode() fs.FileMode {
	if i.m.Dir {
		return fs.ModeDir | 0o755
	}
	return 0o644
}
