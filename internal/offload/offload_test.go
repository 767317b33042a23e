package offload

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/hashing"
)

func TestTwoCardsSamePathsTwoDestinations(t *testing.T) {
	e := newEnv(t)
	a := testCard(t, filepath.Join(e.dir, "cards1"), "A001", map[string]string{
		"CLIPS/C001.mov": bigContent(300_000, 1), "CLIPS/C002.mov": bigContent(70_000, 2),
		"MISC/EMPTY.txt": "", "MISC/EMPTY_DIR": "<dir>", ".DS_Store": "junk", "CLIPS/._C001.mov": "fork",
		"caf\u00e9 & \"odd\" name.txt": "nfc", "cafe\u0301 & \"odd\" name.txt": "nfd",
	})
	b := testCard(t, filepath.Join(e.dir, "cards2"), "A002", map[string]string{
		"CLIPS/C001.mov": bigContent(200_000, 3), "CLIPS/C002.mov": bigContent(1, 4),
	})
	require.NoError(t, os.Symlink("CLIPS/C001.mov", filepath.Join(a, "link.mov")))
	require.NoError(t, mkfifo(filepath.Join(a, "fifo"), 0o644))
	rootTime, clipsTime := time.Date(2026, 11, 21, 18, 30, 0, 0, time.UTC), time.Date(2026, 11, 21, 19, 0, 0, 0, time.UTC)
	require.NoError(t, os.Chtimes(filepath.Join(a, "CLIPS"), clipsTime, clipsTime))
	require.NoError(t, os.Chtimes(a, rootTime, rootTime))
	fatRoot := time.Date(1980, 1, 1, 0, 0, 0, 0, time.Local) // exFAT roots have no time
	require.NoError(t, os.Chtimes(b, fatRoot, fatRoot))
	d1, d2 := e.dest("raid"), e.dest("shuttle")

	s, err := e.run(e.opts([]string{a, b}, []string{d1, d2}))
	require.NoError(t, err)
	require.Equal(t, ExitOK, s.ExitCode)
	require.Equal(t, "done", s.State)
	require.Len(t, s.Cards, 2)
	for _, c := range s.Cards {
		require.True(t, c.SafeToFormat, "%s: %s", c.Label, c.Verdict)
		for _, d := range c.Destinations {
			require.Equal(t, c.Files, d.Verified)
			require.Zero(t, d.Failed)
		}
	}
	require.Equal(t, 4, s.Cards[0].Skipped) // .DS_Store, ._C001.mov, link.mov, fifo
	for _, card := range []string{a, b} {
		src := treeHashes(t, card)
		for _, d := range []string{d1, d2} {
			dst := treeHashes(t, filepath.Join(d, "day01", filepath.Base(card)))
			if card == a {
				delete(src, ".DS_Store")
				delete(src, "CLIPS/._C001.mov")
			}
			require.Equal(t, src, dst, "byte-identical copy of %s on %s", card, d)
		}
	}
	// Empty folder kept, mtimes preserved, junk/link/fifo absent.
	fi, err := os.Stat(filepath.Join(d1, "day01", "A001", "MISC", "EMPTY_DIR"))
	require.NoError(t, err)
	require.True(t, fi.IsDir())
	fi, err = os.Stat(filepath.Join(d2, "day01", "A001", "CLIPS", "C001.mov"))
	require.NoError(t, err)
	require.Equal(t, time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC), fi.ModTime().UTC())
	// Folder times are the card's, the card folder's included; a card root
	// without a time of its own leaves the copy's folder time alone.
	for _, d := range []string{d1, d2} {
		for p, want := range map[string]time.Time{"A001": rootTime, "A001/CLIPS": clipsTime} {
			fi, err := os.Stat(filepath.Join(d, "day01", filepath.FromSlash(p)))
			require.NoError(t, err)
			require.Equal(t, want, fi.ModTime().UTC(), "%s on %s", p, d)
		}
		fi, err := os.Stat(filepath.Join(d, "day01", "A002"))
		require.NoError(t, err)
		require.True(t, fi.ModTime().After(time.Now().Add(-time.Hour)), "A002's folder keeps the copy's time, got %s", fi.ModTime())
	}
	for _, gone := range []string{".DS_Store", "link.mov", "fifo", "CLIPS/._C001.mov"} {
		_, err := os.Lstat(filepath.Join(d1, "day01", "A001", gone))
		require.ErrorIs(t, err, os.ErrNotExist, gone)
	}
	// The catalog holds every hash, the state per destination and samples.
	cards, err := e.cat.Cards(s.JobID)
	require.NoError(t, err)
	files, err := e.cat.Files(cards[0].ID)
	require.NoError(t, err)
	for _, f := range files {
		require.Equal(t, StateVerified, f.State)
		want := hashing.Bytes([]hashing.Algo{hashing.MD5, hashing.XXH64}, mustRead(t, filepath.Join(a, f.Rel)))
		require.Equal(t, want, f.Sums)
		require.Len(t, f.Copies, 2)
		for _, cp := range f.Copies {
			require.Equal(t, StateVerified, cp.State)
			require.Equal(t, "xxh64", cp.VerifyAlgos)
		}
	}
	samples, err := e.cat.Samples(s.JobID)
	require.NoError(t, err)
	require.NotEmpty(t, samples)
	// No temp or lock left behind.
	for _, d := range []string{d1, d2} {
		require.NoError(t, filepath.Walk(d, func(p string, fi os.FileInfo, err error) error {
			require.NotContains(t, p, TempSuffix)
			require.NotEqual(t, LockName, fi.Name())
			return nil
		}))
	}
}

func mustRead(t *testing.T, p string) []byte {
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return b
}

var _ = catalog.JobDone
