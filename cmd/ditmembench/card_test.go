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
	card, err := makeCard(dir, n, framesPerClip)
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
	again, err := makeCard(dir, n, framesPerClip)
	require.NoError(t, err)
	require.Equal(t, card, again)
	b, err := os.ReadFile(frame)
	require.NoError(t, err)
	require.Equal(t, mark, b, "the card made before is reused")
}

// TestMakeCardOneFolder: -one-folder's card holds every frame in one
// folder, beside (not instead of) the card of clip folders.
func TestMakeCardOneFolder(t *testing.T) {
	dir := t.TempDir()
	card, err := makeCard(dir, 300, 300)
	require.NoError(t, err)
	ents, err := os.ReadDir(card)
	require.NoError(t, err)
	require.Len(t, ents, 1)
	frames, err := os.ReadDir(filepath.Join(card, ents[0].Name()))
	require.NoError(t, err)
	require.Len(t, frames, 300)
	clips, err := makeCard(dir, 300, framesPerClip)
	require.NoError(t, err)
	require.NotEqual(t, card, clips)
}
