package clips

import (
	"io/fs"
	"os"
	"path/filepath"
)

// RecognizeDir recognises the card (or copy of a card) at root: its files
// walked, its sidecars read from there. Junk is left out.
func RecognizeDir(root string) (*Card, error) {
	var files []File
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != root && d.Name()[0] == '.' {
			return filepath.SkipDir
		}
		if !d.Type().IsRegular() {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		files = append(files, File{Rel: filepath.ToSlash(rel), Size: fi.Size()})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return Recognize(files, func(rel string) ([]byte, error) { return os.ReadFile(filepath.Join(root, filepath.FromSlash(rel))) }), nil
}
