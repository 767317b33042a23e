package array

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
	"github.com/dit-org/dit/raid"
)

// dataChunkOn finds a file of the array with a data chunk of more than
// min bytes on blade (read from the manifests on manifestBlade, the
// format of raid/doc.go): its logical path and that chunk file.
func dataChunkOn(t *testing.T, manifestBlade, blade string, min int64) (logical, chunk string) {
	t.Helper()
	firstPath := regexp.MustCompile(`"path":"([^"]+)"`)
	for _, f := range sortedFiles(t, filepath.Join(manifestBlade, raid.Dir, "manifests")) {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		m := firstPath.FindSubmatch(b)
		if m == nil {
			continue
		}
		id := strings.TrimSuffix(filepath.Base(f), ".bam")
		chunks, _ := filepath.Glob(filepath.Join(blade, raid.Dir, "chunks", id[30:], id+".d*"))
		for _, c := range chunks {
			if fi, err := os.Stat(c); err == nil && fi.Size() > min {
				return string(m[1]), c
			}
		}
	}
	t.Fatalf("no file with a data chunk over %d bytes on %s", min, blade)
	return "", ""
}

// Issue "Never safe unless true, at the edges": RAID 4 with the parity
// blade's folder removed, then one byte of a data chunk on another blade
// flipped. The extract that fails the file records it at once (a kill -9
// right after the failed read leaves status saying so), status says
// DAMAGED and names the file (text and JSON) and never that parity makes
// up for it, every other file extracts byte-identical to the card, and a
// scrub --repair that cannot repair it exits 4.
func TestArrayDoubleFaultStatusSaysDamaged(t *testing.T) {
	dir, db, blades := damageRig(t)
	card := filepath.Join(dir, "cards", "A001")
	victim, chunk := dataChunkOn(t, blades[0], blades[1], 64<<10)
	require.NoError(t, os.RemoveAll(filepath.Join(blades[3], raid.Dir)))
	b, err := os.ReadFile(chunk)
	require.NoError(t, err)
	b[10] ^= 0x20 // stripe 0
	require.NoError(t, os.WriteFile(chunk, b, 0o644))

	st := arrayStatusJSON(t, db, blades[0])
	require.Equal(t, "degraded", st.Health, "nothing read yet: the parity blade is missing")
	require.Empty(t, st.Unreadable)

	// An extract killed (kill -9) right after the read of the damaged
	// stripe failed: the record is on the blades already.
	_, killed := e2e.DitCrash(t, db, []string{"DIT_CRASH_AT=" + raid.StepReadUnreadable}, "array", "extract", blades[0], "--to", filepath.Join(dir, "killed"))
	require.True(t, killed, "the extract reached an unreadable stripe")
	st = arrayStatusJSON(t, db, blades[0])
	require.Equal(t, "damaged", st.Health)
	require.Equal(t, []string{victim}, st.Unreadable)
	require.Len(t, st.Damaged, 1)
	require.Equal(t, victim, st.Damaged[0].Path)
	require.Equal(t, raid.DamageUnreadable, st.Damaged[0].State)

	// The whole extract: the file fails, everything else is the card's.
	out := filepath.Join(dir, "restore")
	r := e2e.Dit(t, db, "array", "extract", blades[0], "--to", out)
	require.Equal(t, 3, r.Code, r.Stdout+r.Stderr)
	require.Contains(t, r.Stdout, "FAILED "+victim+": ")
	require.Len(t, regexp.MustCompile(`(?m)^FAILED `).FindAllString(r.Stdout, -1), 1, r.Stdout)
	require.Contains(t, r.Stdout, "second bad unit in stripe 0")
	rel := strings.TrimPrefix(victim, "day01/A001/")
	want := e2e.Footage(e2e.Tree(t, card))
	require.Contains(t, want, rel)
	delete(want, rel)
	require.Equal(t, want, e2e.WithoutHistory(e2e.Tree(t, filepath.Join(out, "day01", "A001"))), "every other file is the card's, byte for byte")

	r = e2e.Dit(t, db, "array", "status", blades[2])
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	require.Contains(t, r.Stdout, ": DAMAGED\n")
	require.Contains(t, r.Stdout, "1 files cannot be read now:\n  "+victim+"\n")
	require.NotContains(t, r.Stdout, "parity makes up")
	require.Regexp(t, `3\s+parity\s+missing`, r.Stdout)

	// Scrub finds the stripe unrecoverable; --repair cannot fix it: 4.
	r = e2e.Dit(t, db, "array", "scrub", blades[0])
	require.Equal(t, raidExitNotClean, r.Code, r.Stdout+r.Stderr)
	require.Contains(t, r.Stdout, "unrecoverable stripe: "+victim+" stripe 0")
	r = e2e.Dit(t, db, "array", "scrub", "--repair", "--allow-degraded", blades[0])
	require.Equal(t, raidExitNotClean, r.Code, "damage remains: %s", r.Stdout+r.Stderr)
	require.Contains(t, r.Stdout, "not clean: ")
	require.NotContains(t, r.Stdout, "all repaired")
	st = arrayStatusJSON(t, db, blades[0])
	require.Equal(t, "damaged", st.Health)
	require.Equal(t, []string{victim}, st.Unreadable)
	r = e2e.Dit(t, db, "array", "status", blades[0])
	require.NotContains(t, r.Stdout, "parity makes up")
}
