//go:build linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// The bare work does the work it is timed for: every file of the card
// copied byte for byte, in both modes, and a copy already there refused
// (a floor that skipped work would be no floor).
func TestBareCardCopiesEveryFile(t *testing.T) {
	for _, mode := range []string{"read", "mmap"} {
		t.Run(mode, func(t *testing.T) {
			card := filepath.Join(t.TempDir(), "A001")
			clips := filepath.Join(card, "CLIPS")
			if err := os.MkdirAll(clips, 0o755); err != nil {
				t.Fatal(err)
			}
			want := map[string][]byte{}
			for i, n := range []int{0, 1, 300 << 10, 1 << 20, 5} {
				b := make([]byte, n)
				for j := range b {
					b[j] = byte(j*31 + i)
				}
				name := fmt.Sprintf("C%03d.mov", i)
				want[name] = b
				if err := os.WriteFile(filepath.Join(clips, name), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			dest := filepath.Join(t.TempDir(), "A001")
			if err := bareCard(mode, card, dest); err != nil {
				t.Fatal(err)
			}
			for name, b := range want {
				got, err := os.ReadFile(filepath.Join(dest, name))
				if err != nil || !bytes.Equal(got, b) {
					t.Errorf("%s: copy of %d bytes is %d bytes (err %v), or differs", name, len(b), len(got), err)
				}
			}
			if err := bareCard(mode, card, dest); err == nil {
				t.Error("copies already there were overwritten, want an error")
			}
		})
	}
}
