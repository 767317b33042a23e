package source

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/fsys"
)

func write(t *testing.T, p string, data string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(data), 0o644))
}

func TestScanSkipsJunkLinksAndSpecials(t *testing.T) {
	root := filepath.Join(t.TempDir(), "A001")
	write(t, filepath.Join(root, "CLIPS", "A001C001.mov"), "clip")
	write(t, filepath.Join(root, "CLIPS", "._A001C001.mov"), "fork")
	write(t, filepath.Join(root, ".DS_Store"), "x")
	write(t, filepath.Join(root, ".Spotlight-V100", "Store-V2", "x"), "x")
	write(t, filepath.Join(root, "Thumbs.db"), "x")
	write(t, filepath.Join(root, ".hidden-but-real"), "keep")
	require.NoError(t, os.MkdirAll(filepath.Join(root, "EMPTY"), 0o755))
	require.NoError(t, os.Symlink("CLIPS/A001C001.mov", filepath.Join(root, "link.mov")))
	require.NoError(t, mkfifo(filepath.Join(root, "pipe"), 0o644))
	// Unicode: the same name in NFC and NFD are two different files, both kept.
	write(t, filepath.Join(root, "caf\u00e9.txt"), "nfc")
	write(t, filepath.Join(root, "cafe\u0301.txt"), "nfd")

	c, err := Scan(fsys.OS{}, root, Options{})
	require.NoError(t, err)
	var files []string
	for _, f := range c.Files.All() {
		files = append(files, f.Rel)
	}
	require.ElementsMatch(t, []string{"CLIPS/A001C001.mov", ".hidden-but-real", "caf\u00e9.txt", "cafe\u0301.txt"}, files)
	var dirs []string
	for _, d := range c.Dirs {
		dirs = append(dirs, d.Rel)
	}
	require.ElementsMatch(t, []string{"CLIPS", "EMPTY"}, dirs)
	kinds := map[string]string{}
	for s := range c.Skipped.All() {
		kinds[s.Rel] = s.Kind
		require.NotEmpty(t, s.Reason)
	}
	require.Equal(t, map[string]string{
		"CLIPS/._A001C001.mov": "metadata", ".DS_Store": "metadata", ".Spotlight-V100": "metadata",
		"Thumbs.db": "metadata", "link.mov": "symlink", "pipe": "fifo",
	}, kinds)
	require.Equal(t, int64(len("clip")+len("keep")+6), c.Bytes)
	require.Equal(t, "A001", c.Label)

	all, err := Scan(fsys.OS{}, root, Options{IncludeHidden: true})
	require.NoError(t, err)
	require.Equal(t, 4+4, all.Files.Len()) // ._ fork, .DS_Store, Spotlight store file, Thumbs.db
}

func TestScanBadRoot(t *testing.T) {
	dir := t.TempDir()
	_, err := Scan(fsys.OS{}, filepath.Join(dir, "nope"), Options{})
	require.ErrorContains(t, err, "nope does not exist")
	write(t, filepath.Join(dir, "f"), "x")
	_, err = Scan(fsys.OS{}, filepath.Join(dir, "f"), Options{})
	require.ErrorContains(t, err, "is not a folder")
}
