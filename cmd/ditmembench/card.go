//go:build unix

package main

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// framesPerClip is how many frames a clip folder of a generated card
// holds (an ARRIRAW or DNG sequence: one folder per clip).
const framesPerClip = 1000

// frameSize is the size of each generated frame (tiny: what is measured
// is the cost per file, not per byte).
const frameSize = 512

// makeCard makes, under root, a card of n tiny files: clip folders of
// perClip frames each (framesPerClip; n: one folder) (A001C001_230101_R1AB/A001C001_230101_R1AB.
// 0000001.ari ...), every frame's bytes its own. A card made before (its
// done file names n) is reused; one left half made is made again.
func makeCard(root string, n, perClip int) (string, error) {
	set := fmt.Sprintf("cards-%d", n)
	if perClip != framesPerClip {
		set = fmt.Sprintf("cards-%d-by-%d", n, perClip)
	}
	card := filepath.Join(root, set, "A001")
	done := filepath.Join(root, set+".done")
	if b, err := os.ReadFile(done); err == nil && strings.TrimSpace(string(b)) == strconv.Itoa(n) {
		return card, nil
	}
	if err := os.RemoveAll(filepath.Dir(card)); err != nil {
		return "", err
	}
	buf := make([]byte, frameSize)
	for i := 0; i < n; i++ {
		clip := fmt.Sprintf("A001C%03d_230101_R1AB", i/perClip+1)
		dir := filepath.Join(card, clip)
		if i%perClip == 0 {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return "", err
			}
		}
		for k := 0; k < frameSize; k += 8 {
			binary.LittleEndian.PutUint64(buf[k:], uint64(i)*0x9e3779b97f4a7c15+uint64(k))
		}
		name := filepath.Join(dir, fmt.Sprintf("%s.%07d.ari", clip, i%perClip))
		if err := os.WriteFile(name, buf, 0o644); err != nil {
			return "", err
		}
	}
	return card, os.WriteFile(done, []byte(strconv.Itoa(n)+"\n"), 0o644)
}
