//go:build unix

package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMakeCard: a card of n files of frameSize bytes each, in clip
// folders of framesPerClip, every file's bytes its own; made once and
// then reused.
func TestMakeCard(t *testing.T) {
	dir := t.TempDir()
	n := 2*framesPerClip + 500
	card, err := makeCard(dir, n)
	require.NoError(t, err)
	files, dirs := 0, 0
	seen := map[string]bool{}
	require.NoError(t, filepath.WalkDir(card, func(p string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		if d.IsDir() {
			if p != card {
				dirs++
			}
			return nil
		}
		files++
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		require.Len(t, b, frameSize, p)
		require.False(t, seen[string(b)], "%s has the bytes of another frame", p)
		seen[string(b)] = true
		return nil
	}))
	require.Equal(t, n, files)
	require.Equal(t, 3, dirs, "clip folders of %d frames", framesPerClip)

	// Reused: a frame changed since stays changed.
	frame := filepath.Join(card, "A001C001_230101_R1AB", "A001C001_230101_R1AB.0000000.ari")
	mark := bytes.Repeat([]byte{7}, frameSize)
	require.NoError(t, os.WriteFile(frame, mark, 0o644))
	again, err := makeCard(dir, n)
	require.NoError(t, err)
	require.Equal(t, card, again)
	b, err := os.ReadFile(frame)
	require.NoError(t, err)
	require.Equal(t, mark, b, "the card made before is reused")
}
