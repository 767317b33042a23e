package raid

import (
	"bytes"
	"testing"
	"time"
)

func seedSuperblock() *Superblock {
	sb := &Superblock{Magic: sbMagic, Format: 1, ArrayUUID: newID(), ArrayLabel: "fuzz", Level: "raid4", DataBlades: 3,
		ParityBlades: 1, StripeUnit: 1 << 20, UnitHash: "xxh3-128", FileHashes: []string{"xxh64"}, MetaCRC: "crc32c",
		Events: 3, Created: time.Unix(1, 0).UTC()}
	for r := 0; r < 4; r++ {
		sb.Members = append(sb.Members, Member{Role: r, BladeUUID: newID(), State: MemberActive})
	}
	sb.This = ThisBlade{UUID: sb.Members[2].BladeUUID, Role: 2}
	return sb
}

// FuzzSuperblock: any bytes decode to an error or to a superblock that
// re-encodes to something that decodes identically; never a panic.
func FuzzSuperblock(f *testing.F) {
	f.Add(encodeSuperblock(seedSuperblock()))
	f.Add([]byte("{}\ncrc32c=00000000\n"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		sb, err := decodeSuperblock(data)
		if err != nil {
			return
		}
		again, err := decodeSuperblock(encodeSuperblock(sb))
		if err != nil {
			t.Fatalf("re-encoded superblock does not decode: %v", err)
		}
		if again.ArrayUUID != sb.ArrayUUID || again.Events != sb.Events || again.This != sb.This {
			t.Fatal("round trip changed the superblock")
		}
	})
}

func seedManifest() []byte {
	m := &Manifest{Meta: Meta{FileID: newID(), ArrayUUID: newID(), Generation: 1, Path: "A001/CLIPS/C001.mov", Size: 5,
		Layout: ManifestLayout{Level: "raid4", K: 2, SU: 64 << 10, Start: 1, ChunkLens: []int64{5, 0}, ParityLen: 5}},
		NStripes: 1, Roles: 3, Units: make([][16]byte, 3)}
	return encodeManifest(m)
}

// FuzzManifest: decoding never panics, never accepts an unsafe path, and
// what decodes re-encodes to the same bytes.
func FuzzManifest(f *testing.F) {
	f.Add(seedManifest())
	f.Add([]byte("BAM1"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := decodeManifest(data)
		if err != nil {
			return
		}
		if checkLogicalPath(m.Path) != nil {
			t.Fatalf("unsafe path accepted: %q", m.Path)
		}
		if _, err := decodeManifest(encodeManifest(m)); err != nil {
			t.Fatalf("re-encoded manifest does not decode: %v", err)
		}
	})
}

// FuzzStripes: any content and geometry round-trips through the writer
// and the reader, healthy and with each blade missing (RAID 4).
func FuzzStripes(f *testing.F) {
	f.Add([]byte("hello"), uint8(2), uint8(0))
	f.Add(bytes.Repeat([]byte{7}, 200_000), uint8(3), uint8(1))
	f.Add(make([]byte, 64<<10), uint8(4), uint8(3))
	f.Fuzz(func(t *testing.T, data []byte, k uint8, gone uint8) {
		if len(data) > 1<<20 {
			return
		}
		kk := int(k%4) + 2
		mb, dirs, a := memArray(t, RAID4, kk+1, 64<<10)
		putFile(t, a, "f", data)
		got, err := getFile(a, "f")
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("healthy read: %v", err)
		}
		a.Close()
		g := int(gone) % (kk + 1)
		mb.hidden = map[string]bool{dirs[g]: true}
		ra, err := Open([]string{dirs[(g+1)%(kk+1)]}, OpenOptions{FS: mb.fs})
		if err != nil {
			t.Fatal(err)
		}
		got, err = getFile(ra, "f")
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("degraded read without blade %d: %v", g, err)
		}
	})
}
