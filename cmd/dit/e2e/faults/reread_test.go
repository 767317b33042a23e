//go:build linux

package faults

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
)

// The known limit of a mid-file resume, said where it matters: with the
// default hashes (their state saved at each checkpoint) a resume reads
// the card again only from the interval before the checkpoint, so its
// summary says how many bytes of the card it did not read again and how
// to have them read (--reread-card). With --reread-card a card changed
// early in the kept part (size and time kept), where the resume alone
// would not look, is found changed, the clip copied whole, and the copy
// is the card's clip as it is now (checked by the test's own hashing);
// the summary then says nothing was left unread.
func TestResumeSaysWhatItDidNotReadAndRereadCardReadsIt(t *testing.T) {
	for _, reread := range []bool{false, true} {
		name := "resume"
		if reread {
			name = "reread card"
		}
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			db := filepath.Join(dir, "catalog.db")
			card := filepath.Join(dir, "A001")
			clip := filepath.Join(card, "CLIPS", "A001C001.mov")
			bigFile(t, clip, 8<<20, 11)
			fi, err := os.Stat(clip)
			require.NoError(t, err)
			d := filepath.Join(dir, "d1")
			require.NoError(t, os.Mkdir(d, 0o755))
			_, killed := e2e.DitCrash(t, db, []string{"DIT_CRASH_AT=copy: checkpoint recorded#4"},
				"offload", "--name", "day01", "--checkpoint-every", "1MiB", "--mhl", "none", "-d", d, card)
			require.True(t, killed, "killed after the fourth checkpoint")

			args := []string{"offload", "--resume", "1", "--checkpoint-every", "1MiB"}
			if reread {
				// One byte early in the kept part (4 MiB), far from the
				// interval a plain resume reads again.
				b, err := os.ReadFile(clip)
				require.NoError(t, err)
				b[100] ^= 0x01
				require.NoError(t, os.WriteFile(clip, b, 0o644))
				require.NoError(t, os.Chtimes(clip, fi.ModTime(), fi.ModTime()))
				args = append(args, "--reread-card")
			}
			r := e2e.Dit(t, db, args...)
			out := r.Stdout + r.Stderr
			require.Equal(t, 0, r.Code, out)
			require.Contains(t, r.Stdout, "[SAFE] A001")
			copyPath := filepath.Join(d, "day01", "A001", "CLIPS", "A001C001.mov")
			require.Equal(t, fileSum(t, clip), fileSum(t, copyPath), "the copy is the card's clip as it is now")
			if reread {
				require.Contains(t, out, "changed on the card since the interrupted copy", "the kept part read again from the card and found changed")
				require.NotContains(t, r.Stdout, "did not read", "every kept part was read again")
				return
			}
			m := regexp.MustCompile(`this resume did not read ([0-9.]+) MB of the card again: the kept parts of 1 file before their last checkpoint \(dit offload --resume 1 --reread-card reads them\)`).FindStringSubmatch(r.Stdout)
			require.NotNil(t, m, "the summary says what of the card was not read again:\n%s", r.Stdout)
			var mb float64
			_, err = fmt.Sscan(m[1], &mb)
			require.NoError(t, err)
			// The kept part is the four checkpoints (4 MiB); the resume
			// reads again the interval before the last one.
			require.Greater(t, mb, 1.0, m[0])
			require.LessOrEqual(t, mb, 4.2, m[0])
		})
	}
}
