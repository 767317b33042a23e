//go:build linux

package faults

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
)

// A resume trusts a copy an earlier run verified only while it is the
// very file that was read back: one overwritten after the kill with its
// size and time kept (touch -r) is read again, found different from the
// card, and the card is NOT safe; the summary says how many copies were
// re-checked. A copy left alone is trusted without a read, and the card
// is safe. The copies are judged by the test's own hashing.
func TestResumeRechecksACopyChangedSinceItWasVerified(t *testing.T) {
	for _, tamper := range []bool{true, false} {
		t.Run(fmt.Sprintf("tampered=%v", tamper), func(t *testing.T) {
			dir := t.TempDir()
			db := filepath.Join(dir, "c.db")
			card := filepath.Join(dir, "A001")
			sums := map[string][32]byte{}
			for i := range 6 {
				rel := fmt.Sprintf("CLIPS/A001C%03d.mov", i+1)
				sums[rel] = bigFile(t, filepath.Join(card, rel), 6_000_000, uint64(i+7))
			}
			d1, d2 := filepath.Join(dir, "d1"), filepath.Join(dir, "d2")
			require.NoError(t, os.Mkdir(d1, 0o755))
			require.NoError(t, os.Mkdir(d2, 0o755))
			id := e2e.StartAndKill(t, db, 2, "--throttle", "30MB/s", "--name", "day", "--mhl", "none",
				"-d", d1, "-d", d2, card)

			verified := verifiedCopies(t, db, id, d2)
			require.NotEmpty(t, verified, "the kill came after a copy on d2 was recorded verified")
			rel := verified[0]
			p := filepath.Join(d2, "day", "A001", filepath.FromSlash(rel))
			if tamper {
				fi, err := os.Stat(p)
				require.NoError(t, err)
				f, err := os.OpenFile(p, os.O_WRONLY, 0)
				require.NoError(t, err)
				_, err = f.WriteAt([]byte("DIT!"), 1_000_000)
				require.NoError(t, err)
				require.NoError(t, f.Close())
				require.NoError(t, os.Chtimes(p, fi.ModTime(), fi.ModTime())) // touch -r: size and time kept
				require.NotEqual(t, sums[rel], fileSum(t, p))
			}

			r := e2e.Dit(t, db, "offload", "--resume", e2e.Itoa(id))
			if !tamper {
				require.Equal(t, 0, r.Code, e2e.Tail(r.Stdout+r.Stderr))
				require.Contains(t, r.Stdout, "[SAFE] A001")
				require.NotContains(t, r.Stdout, "re-checked", "a copy that is the file verified is trusted")
				for rel, want := range sums {
					require.Equal(t, want, fileSum(t, filepath.Join(d1, "day", "A001", rel)), rel)
					require.Equal(t, want, fileSum(t, filepath.Join(d2, "day", "A001", rel)), rel)
				}
				return
			}
			require.Equal(t, 3, r.Code, "never safe with a copy that differs from the card: %s", e2e.Tail(r.Stdout+r.Stderr))
			require.NotContains(t, r.Stdout, "[SAFE] A001")
			require.Contains(t, r.Stdout, "this resume re-checked 1 copy verified before")
			require.Contains(t, r.Stdout, "changed since")
			require.NotEqual(t, sums[rel], fileSum(t, p), "dit never overwrites: the changed copy is left for the DIT to see")
			v := e2e.Dit(t, db, "verify", e2e.Itoa(id))
			require.NotEqual(t, 0, v.Code, "dit verify agrees: %s", v.Stdout)
		})
	}
}

// verifiedCopies are the card files whose copy on dest the catalog
// records verified.
func verifiedCopies(t *testing.T, db string, id int64, dest string) []string {
	t.Helper()
	r := e2e.Dit(t, db, "job", "show", e2e.Itoa(id), "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	var show struct {
		Cards []struct {
			Files []struct {
				Path   string `json:"path"`
				Copies []struct {
					Dest  string `json:"dest"`
					State string `json:"state"`
				} `json:"copies"`
			} `json:"file_list"`
		} `json:"cards"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &show), r.Stdout)
	var out []string
	for _, k := range show.Cards {
		for _, f := range k.Files {
			for _, c := range f.Copies {
				if c.Dest == dest && c.State == "verified" {
					out = append(out, f.Path)
				}
			}
		}
	}
	return out
}
