package clips

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/dit-org/dit/internal/testcards"
)

// BenchmarkRecognize measures recognition of the reference cards (dit
// testdata cards, 1 GB each, every style): the file list as the catalog
// gives it, the sidecars read from disk.
func BenchmarkRecognize(b *testing.B) {
	for _, style := range []string{testcards.StyleClips, testcards.StyleFrames, testcards.StyleDNG} {
		b.Run(style, func(b *testing.B) {
			dir := b.TempDir()
			cards, err := testcards.Generate(context.Background(), testcards.Options{Out: dir, Cards: 1, Size: 1_000_000_000, Seed: 1, Style: style})
			if err != nil {
				b.Fatal(err)
			}
			root := cards[0].Path
			var files []File
			filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
				if err == nil && d.Type().IsRegular() {
					fi, _ := d.Info()
					rel, _ := filepath.Rel(root, p)
					files = append(files, File{Rel: filepath.ToSlash(rel), Size: fi.Size()})
				}
				return err
			})
			read := func(rel string) ([]byte, error) { return os.ReadFile(filepath.Join(root, rel)) }
			b.ReportMetric(float64(len(files)), "files")
			b.ResetTimer()
			for range b.N {
				Recognize(files, read)
			}
		})
	}
}
