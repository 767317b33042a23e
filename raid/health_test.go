package raid

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// An array rebuilt by an older dit: role 1 active, but files written while
// it was missing never got onto it (their written_with lacks it). Health
// says degraded, a scrub reports each such file once (no "data unit
// corrupt" per stripe, no empty byte range), scrub --repair rebuilds them,
// and then one more lost blade loses nothing.
func TestLegacyActiveRoleWithoutItsFilesIsRepairedByScrub(t *testing.T) {
	dirs, a := dirArray(t, RAID4, 4, 64<<10)
	old := randBytes(300_000, 1)
	putFile(t, a, "old.mov", old)
	require.NoError(t, a.Close())
	require.NoError(t, os.Rename(dirs[1], dirs[1]+"-away"))
	da, err := Open([]string{dirs[0]}, OpenOptions{ReadWrite: true, AllowDegraded: true})
	require.NoError(t, err)
	fresh := map[string][]byte{}
	for i := 0; i < 3; i++ {
		p := fmt.Sprintf("new%d.mov", i)
		fresh[p] = randBytes(int64(100_000+i*90_000), uint64(10+i))
		require.NotContains(t, putFile(t, da, p, fresh[p]).WrittenWith, 1)
	}
	require.NoError(t, da.Close())
	// What the old replace left: the chunks and manifests rebuilt onto a
	// blade marked active, written_with unchanged.
	require.NoError(t, os.Rename(dirs[1]+"-away", dirs[1]))
	ra, err := Open(dirs, OpenOptions{ReadWrite: true})
	require.NoError(t, err)
	require.Equal(t, "healthy", ra.Health().State, "the re-add at open put every file on role 1")
	for p := range fresh {
		m, _ := ra.Lookup(p)
		nm := *m
		nm.WrittenWith = []int{0, 2, 3}
		nm.Generation++
		for _, d := range dirs {
			require.NoError(t, writeAtomic(DirFS{Dir: d}, manifestName(m.FileID), encodeManifest(&nm)))
		}
	}
	require.NoError(t, ra.Close())

	ra, err = Open(dirs, OpenOptions{ReadWrite: true})
	require.NoError(t, err)
	h := ra.Health()
	require.Equal(t, "degraded", h.State)
	require.Len(t, h.Unprotected, 3)
	rep, err := ra.Scrub(false, nil, nil)
	require.NoError(t, err)
	require.Equal(t, map[string]int{IssueNoRedundancy: 3}, kinds(rep), "%+v", rep.Issues)
	rep, err = ra.Scrub(true, nil, nil)
	require.NoError(t, err)
	require.Equal(t, 3, rep.Repaired, "%+v", rep.Issues)
	rep, err = ra.Scrub(false, nil, nil)
	require.NoError(t, err)
	require.True(t, rep.Clean(), "%+v", rep.Issues)
	require.Equal(t, "healthy", ra.Health().State)
	require.NoError(t, ra.Close())

	require.NoError(t, os.Rename(dirs[0], dirs[0]+"-lost"))
	rb, err := Open([]string{dirs[2]}, OpenOptions{})
	require.NoError(t, err)
	for p, data := range fresh {
		got, err := getFile(rb, p)
		require.NoError(t, err, p)
		require.True(t, bytes.Equal(data, got), p)
	}
	got, err := getFile(rb, "old.mov")
	require.NoError(t, err)
	require.True(t, bytes.Equal(old, got))
	require.NoError(t, rb.Close())
}

// Replace refuses what would lose data: a role rebuilt while another is
// missing (it is rebuilt from all the others), a healthy role.
func TestReplacePreconditions(t *testing.T) {
	dirs, a := dirArray(t, RAID4, 4, 64<<10)
	putFile(t, a, "a.mov", randBytes(200_000, 3))
	empty := filepath.Join(t.TempDir(), "new")
	require.NoError(t, os.Mkdir(empty, 0o755))
	require.ErrorContains(t, a.Replace(2, empty, nil), "role 2 is healthy")
	require.NoError(t, a.Close())
	require.NoError(t, os.Rename(dirs[1], dirs[1]+"-away"))
	ra, err := Open([]string{dirs[0]}, OpenOptions{ReadWrite: true, AllowDegraded: true})
	require.NoError(t, err)
	defer ra.Close()
	require.ErrorContains(t, ra.Replace(2, empty, nil), "role 2 is healthy", "never while role 1 is missing: the array would lose two roles")
	require.Equal(t, MemberActive, ra.sb.Members[2].State, "nothing changed")
	ents, _ := os.ReadDir(empty)
	require.Empty(t, ents, "nothing written to the new folder")
	require.NoError(t, ra.Replace(1, empty, nil))
	require.Equal(t, "healthy", ra.Health().State)
}
