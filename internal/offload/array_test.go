package offload

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/raid"
)

func makeArray(t *testing.T, e *env, level raid.Level, n int) []string {
	var blades []string
	for i := 0; i < n; i++ {
		blades = append(blades, e.dest(filepath.Join("blades", string(rune('1'+i)))))
	}
	a, err := raid.Create(blades, raid.CreateOptions{Level: level, StripeUnit: 64 << 10, Label: "shuttle"})
	require.NoError(t, err)
	require.NoError(t, a.Close())
	return blades
}

// Two cards to a 4-blade RAID 4 array and a plain folder: every file
// verified through the array reader, and the array holds the same bytes.
func TestOffloadToArray(t *testing.T) {
	e := newEnv(t)
	a, b := twoCards(t, e)
	blades := makeArray(t, e, raid.RAID4, 4)
	plain := e.dest("plain")
	s, err := e.run(e.opts([]string{a, b}, []string{blades[2], plain}))
	require.NoError(t, err)
	require.Equal(t, ExitOK, s.ExitCode, "%+v", s.Cards)
	require.Empty(t, s.Warnings, "a healthy array has nothing to say")
	for _, c := range s.Cards {
		require.True(t, c.SafeToFormat, c.Verdict)
		require.Equal(t, c.Files, c.Destinations[0].Verified)
	}
	arr, err := raid.Open([]string{blades[0]}, raid.OpenOptions{})
	require.NoError(t, err)
	defer arr.Close()
	for _, card := range []string{a, b} {
		for rel, sum := range treeHashes(t, card) {
			r, err := arr.OpenFile("day01/"+filepath.Base(card)+"/"+rel, true)
			require.NoError(t, err, rel)
			got, err := io.ReadAll(r)
			r.Close()
			require.NoError(t, err)
			want, _ := os.ReadFile(filepath.Join(card, rel))
			require.True(t, bytes.Equal(want, got), rel)
			_ = sum
		}
	}
	// A blade goes missing: the copies still read (degraded).
	require.NoError(t, os.Rename(blades[1], blades[1]+"-gone"))
	deg, err := raid.Open([]string{blades[0]}, raid.OpenOptions{})
	require.NoError(t, err)
	require.Equal(t, []int{1}, deg.Missing())
	r, err := deg.OpenFile("day01/A001/CLIPS/C001.mov", true)
	require.NoError(t, err)
	got, err := io.ReadAll(r)
	require.NoError(t, err)
	require.Equal(t, mustRead(t, filepath.Join(a, "CLIPS", "C001.mov")), got)
	deg.Close()
}

// A blade that returns different bytes than were written is caught by the
// read-back: RAID 0 cannot prove the right bytes, so the card is not safe
// to format; RAID 4 rebuilds the unit from parity, checks it against its
// hash, and the copy verifies.
func TestOffloadToArrayLyingBlade(t *testing.T) {
	for _, level := range []raid.Level{raid.RAID0, raid.RAID4} {
		t.Run(string(level), func(t *testing.T) {
			e := newEnv(t)
			a, _ := twoCards(t, e)
			blades := makeArray(t, e, level, 3)
			o := e.opts([]string{a}, []string{blades[0]})
			o.BladeFS = func(dir string) raid.BladeFS {
				if dir == blades[1] {
					return lyingBlade{raid.DirFS{Dir: dir}}
				}
				return raid.DirFS{Dir: dir}
			}
			s, err := e.run(o)
			require.NoError(t, err)
			if level == raid.RAID0 {
				require.False(t, s.Cards[0].SafeToFormat)
				require.Equal(t, ExitSomeFailed, s.ExitCode)
				require.Contains(t, s.Cards[0].Failures[0].Error, "read-back failed")
				require.Contains(t, s.Cards[0].Failures[0].Error, "unreadable")
			} else {
				// Read back through parity: verified, but the DIT hears
				// that a blade returns bad data.
				require.True(t, s.Cards[0].SafeToFormat, "%+v", s.Cards[0].Failures)
				require.NotEmpty(t, s.Warnings)
				require.LessOrEqual(t, len(s.Warnings), 11, "at most 10 events and a count of the rest")
				for _, w := range s.Warnings[:min(len(s.Warnings), 10)] {
					require.Contains(t, w, "repaired-on-read")
					require.Contains(t, w, "dit array scrub")
				}
				var events []string
				for _, ev := range e.events {
					if ev.Type == EvWarning {
						events = append(events, ev.Message)
					}
				}
				require.Equal(t, s.Warnings, events, "each warning is an event too")
			}
			// What the read-back found is recorded with the array: its
			// health is not "healthy" for the next reader (dit array status).
			arr, err := raid.Open([]string{blades[0]}, raid.OpenOptions{})
			require.NoError(t, err)
			defer arr.Close()
			h := arr.Health()
			require.Greater(t, h.DamagedUnits, 0)
			if level == raid.RAID0 {
				require.Equal(t, "damaged", h.State)
				require.NotEmpty(t, h.Unreadable)
			} else {
				require.Equal(t, "degraded", h.State)
				require.NotEmpty(t, h.Unprotected)
			}
		})
	}
}

// lyingBlade returns one flipped bit in every chunk it reads.
type lyingBlade struct{ raid.DirFS }

func (l lyingBlade) OpenFile(name string, flag int, perm os.FileMode) (raid.BladeFile, error) {
	f, err := l.DirFS.OpenFile(name, flag, perm)
	if err != nil || flag != os.O_RDONLY || !strings.Contains(name, "/chunks/") {
		return f, err
	}
	return lyingFile{f}, nil
}

type lyingFile struct{ raid.BladeFile }

func (f lyingFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := f.BladeFile.ReadAt(p, off)
	if n > 0 {
		p[0] ^= 1
	}
	return n, err
}
