package raid

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	out, err := exec.Command("cp", "-a", from, to).CombinedOutput()
	require.NoError(t, err, string(out))
}

// Fault test 13: wipe a blade, replace it, crash the rebuild at several
// points, resume.
func TestReplaceAndRebuildWithCrashes(t *testing.T) {
	dirs, a := dirArray(t, RAID4, 4, 64<<10)
	files := map[string][]byte{}
	for i := 0; i < 6; i++ {
		p := fmt.Sprintf("A001/C%03d.mov", i)
		files[p] = randBytes(int64(100_000+i*150_000), uint64(30+i))
		putFile(t, a, p, files[p])
	}
	require.NoError(t, a.Mkdir("A001/EMPTY", mtime0))
	// Hashes of blade 3's chunks before the failure.
	before := map[string][32]byte{}
	filepath.Walk(filepath.Join(dirs[3], Dir, "chunks"), func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			rel, _ := filepath.Rel(dirs[3], p)
			before[rel] = fileSum(t, p)
		}
		return nil
	})
	oldUUID := a.sb.Members[3].BladeUUID
	oldEvents := a.sb.Events
	require.NoError(t, a.Close())
	backup := filepath.Join(t.TempDir(), "old-blade")
	copyDir(t, dirs[3], backup)
	require.NoError(t, os.RemoveAll(dirs[3]))

	newDir := filepath.Join(t.TempDir(), "new-blade")
	require.NoError(t, os.Mkdir(newDir, 0o755))
	// Crash points: fail the n-th write to the new blade (mid-chunk, and
	// later ones: before and after manifest copies).
	for _, failAt := range []int{1, 4, 9} {
		var nf *faultFS
		mk := func(d string) BladeFS {
			if d == newDir {
				nf = newFaultFS(DirFS{Dir: d})
				nf.add(&fault{op: "write", match: "", after: failAt, err: syscall.EIO})
				return nf
			}
			return DirFS{Dir: d}
		}
		ra, err := Open(dirs[:3], OpenOptions{ReadWrite: true, AllowDegraded: true, FS: mk})
		require.NoError(t, err)
		err = ra.Replace(3, newDir, nil)
		require.Error(t, err, "the rebuild crashed at write %d", failAt)
		ra.Close()
	}
	ra, err := Open(dirs[:3], OpenOptions{ReadWrite: true, AllowDegraded: true, Blades: []string{newDir}})
	require.NoError(t, err)
	require.Equal(t, MemberRebuilding, ra.sb.Members[3].State)
	require.NoError(t, ra.Replace(3, newDir, nil), "the rebuild resumes")
	require.Equal(t, MemberActive, ra.sb.Members[3].State)
	require.NotEqual(t, oldUUID, ra.sb.Members[3].BladeUUID, "new blade uuid")
	require.Greater(t, ra.sb.Events, oldEvents)
	for rel, sum := range before {
		require.Equal(t, sum, fileSum(t, filepath.Join(newDir, rel)), "rebuilt %s byte-identical", rel)
	}
	rep, err := ra.Scrub(false, nil, nil)
	require.NoError(t, err)
	require.True(t, rep.Clean(), "%+v", rep.Issues)
	for p, data := range files {
		got, err := getFile(ra, p)
		require.NoError(t, err)
		require.True(t, bytes.Equal(data, got))
	}
	require.NoError(t, ra.Close())
	// The old blade comes back: rejected.
	_, err = Open([]string{backup}, OpenOptions{})
	require.ErrorContains(t, err, "replaced")
	rb, err := Open(append(dirs[:3:3], newDir, backup), OpenOptions{})
	require.NoError(t, err, "the array assembles without the old blade")
	require.Empty(t, rb.Missing())
	require.Equal(t, newDir, rb.BladeDir(3))
	rejected := false
	for _, ev := range rb.Events() {
		rejected = rejected || ev.Kind == "rejected"
	}
	require.True(t, rejected)
	rb.Close()
}

// Fault test 14: stale re-add rebuilds only what was written without it.
func TestStaleReAdd(t *testing.T) {
	mb, dirs, a := memArray(t, RAID4, 4, 64<<10)
	old := map[string][]byte{}
	for i := 0; i < 4; i++ {
		p := fmt.Sprintf("old%d.mov", i)
		old[p] = randBytes(300_000, uint64(40+i))
		putFile(t, a, p, old[p])
	}
	require.NoError(t, a.Close())
	mb.hidden = map[string]bool{dirs[1]: true}
	da, err := Open([]string{dirs[0]}, OpenOptions{FS: mb.fs, ReadWrite: true, AllowDegraded: true})
	require.NoError(t, err)
	fresh := map[string][]byte{}
	for i := 0; i < 3; i++ {
		p := fmt.Sprintf("new%d.mov", i)
		fresh[p] = randBytes(250_000, uint64(50+i))
		m := putFile(t, da, p, fresh[p])
		require.NotContains(t, m.WrittenWith, 1)
	}
	require.NoError(t, da.Close())
	mb.hidden = map[string]bool{}
	ra, err := Open(dirs, OpenOptions{FS: mb.fs, ReadWrite: true})
	require.NoError(t, err)
	require.Equal(t, []int{3}, ra.readded, "only the 3 files written without role 1 were rebuilt")
	require.Equal(t, MemberActive, ra.sb.Members[1].State)
	for p, data := range fresh {
		got, err := getFile(ra, p)
		require.NoError(t, err)
		require.True(t, bytes.Equal(data, got))
		m, _ := ra.Lookup(p)
		require.Contains(t, m.WrittenWith, 1)
	}
	for p, data := range old {
		got, err := getFile(ra, p)
		require.NoError(t, err)
		require.True(t, bytes.Equal(data, got))
	}
	rep, err := ra.Scrub(false, nil, nil)
	require.NoError(t, err)
	require.True(t, rep.Clean(), "%+v", rep.Issues)
	require.NoError(t, ra.Close())

	// A blade that claims higher events while the others went on without it.
	mb.hidden = map[string]bool{dirs[2]: true}
	da, err = Open([]string{dirs[0]}, OpenOptions{FS: mb.fs, ReadWrite: true, AllowDegraded: true})
	require.NoError(t, err)
	require.NoError(t, da.Close())
	mb.hidden = map[string]bool{}
	b2 := mb.blades[dirs[2]]
	sb, _, err := readSuperblock(b2)
	require.NoError(t, err)
	sb.Events += 10
	require.NoError(t, writeSuperblock(b2, sb))
	_, err = Open(dirs, OpenOptions{FS: mb.fs, ReadWrite: true})
	require.ErrorContains(t, err, "newer array state")
}

// Fault test 15: metadata damage and identity.
func TestMetadataDamageAndIdentity(t *testing.T) {
	dirs, a := dirArray(t, RAID4, 4, 64<<10)
	data := randBytes(600_000, 60)
	m := putFile(t, a, "C001.mov", data)
	require.NoError(t, a.Close())
	// Corrupt blade 0's SUPERBLOCK (CRC) and blade 2's manifest replica.
	sbp := filepath.Join(dirs[0], Dir, "SUPERBLOCK")
	flipByte(t, sbp, 20)
	mp := filepath.Join(dirs[2], filepath.FromSlash(manifestName(m.FileID)))
	flipByte(t, mp, 40)
	// Shuffled order.
	shuffled := []string{dirs[2], dirs[0], dirs[3], dirs[1]}
	ra, err := Open(shuffled, OpenOptions{ReadWrite: true})
	require.NoError(t, err)
	for r := 0; r < 4; r++ {
		require.Equal(t, dirs[r], ra.BladeDir(r), "assembled by role, not by argument order")
	}
	var sbNote, mNote bool
	for _, ev := range ra.Events() {
		sbNote = sbNote || ev.Kind == "superblock"
		mNote = mNote || ev.Kind == "manifest"
	}
	require.True(t, sbNote, "the damaged superblock was noticed and .prev used")
	require.True(t, mNote, "the damaged manifest replica was noticed")
	got, err := getFile(ra, "C001.mov")
	require.NoError(t, err)
	require.True(t, bytes.Equal(data, got))
	rep, err := ra.Scrub(true, nil, nil)
	require.NoError(t, err)
	// The superblock fallback (.prev) was a dirty one, so the open ran the
	// quick-verify, which may already have re-replicated the manifest.
	found := kinds(rep)[IssueManifest]
	if ra.lastRecovery != nil {
		found += kinds(ra.lastRecovery)[IssueManifest]
	}
	require.Equal(t, 1, found, "the damaged replica was reported once")
	good, err := os.ReadFile(filepath.Join(dirs[0], filepath.FromSlash(manifestName(m.FileID))))
	require.NoError(t, err)
	fixed, err := os.ReadFile(mp)
	require.NoError(t, err)
	require.Equal(t, good, fixed, "re-replicated")
	rep, _ = ra.Scrub(false, nil, nil)
	require.True(t, rep.Clean())
	require.NoError(t, ra.Close())
	_, _, err = readSuperblock(DirFS{Dir: dirs[0]})
	require.NoError(t, err)
	sbData, _ := os.ReadFile(sbp)
	_, err = decodeSuperblock(sbData)
	require.NoError(t, err, "the superblock was rewritten")

	// A blade of another array mixed in.
	otherDirs, other := dirArray(t, RAID4, 3, 64<<10)
	other.Close()
	_, err = Open([]string{dirs[0], otherDirs[1]}, OpenOptions{})
	require.ErrorContains(t, err, "two arrays mixed")
	// A duplicate role (a blade folder copied).
	dup := filepath.Join(t.TempDir(), "copy-of-1")
	copyDir(t, dirs[1], dup)
	_, err = Open([]string{dirs[0], dirs[1], dirs[2], dirs[3], dup}, OpenOptions{})
	require.ErrorContains(t, err, "duplicate role 1")
	// A folder that is not a blade.
	_, err = Open([]string{t.TempDir()}, OpenOptions{})
	require.ErrorIs(t, err, ErrNotBlade)
}

func TestSecondWriterRefusedAndRAID0MissingListsFiles(t *testing.T) {
	dirs, a := dirArray(t, RAID0, 3, 64<<10)
	putFile(t, a, "big.mov", randBytes(500_000, 1))
	putFile(t, a, "tiny.txt", randBytes(10, 2))
	_, err := Open([]string{dirs[1]}, OpenOptions{ReadWrite: true})
	require.ErrorContains(t, err, "open for writing by another process")
	require.NoError(t, a.Close())
	require.NoError(t, os.Rename(dirs[2], dirs[2]+"-gone"))
	_, err = Open([]string{dirs[0]}, OpenOptions{ReadWrite: true})
	require.ErrorContains(t, err, "cannot be written")
	require.ErrorContains(t, err, "big.mov")
}

func TestManifestPathsCannotEscape(t *testing.T) {
	for _, p := range []string{"../x", "/etc/passwd", "a/../../b", "a//b", "./a", "a/", "a\\..\\b", ""} {
		m := &Manifest{Meta: Meta{FileID: newID(), ArrayUUID: newID(), Path: p, Dir: true}, Roles: 3}
		_, err := decodeManifest(encodeManifest(m))
		require.Error(t, err, "%q must be refused", p)
	}
}

func TestRemoveAndRenameSurviveCrashes(t *testing.T) {
	mb, dirs, a := memArray(t, RAID4, 3, 64<<10)
	putFile(t, a, "chain.xml", []byte("old chain"))
	putFile(t, a, "keep.mov", randBytes(200_000, 3))
	require.NoError(t, a.Rename("keep.mov", "kept.mov"))
	_, ok := a.Lookup("keep.mov")
	require.False(t, ok)
	got, err := getFile(a, "kept.mov")
	require.NoError(t, err)
	require.Len(t, got, 200_000)
	require.ErrorIs(t, a.Rename("kept.mov", "chain.xml"), os.ErrExist)
	require.NoError(t, a.Close())
	// Crash after every operation of a delete: afterwards the file is
	// either fully there (readable) or fully gone (no manifest, no chunk).
	for i := 1; i < 60; i++ {
		ra, err := Open(dirs, OpenOptions{FS: mb.fs, ReadWrite: true})
		require.NoError(t, err)
		if _, ok := ra.Lookup("chain.xml"); !ok {
			putFile(t, ra, "chain.xml", []byte("old chain"))
		}
		m, _ := ra.Lookup("chain.xml")
		mb.w.mu.Lock()
		mb.w.crashAt, mb.w.ops = i, 0
		mb.w.mu.Unlock()
		err = ra.Remove("chain.xml")
		crashed := mb.w.crashed
		mb.crash()
		rb, err2 := Open(dirs, OpenOptions{FS: mb.fs, ReadWrite: true})
		require.NoError(t, err2)
		if _, ok := rb.Lookup("chain.xml"); ok {
			got, err := getFile(rb, "chain.xml")
			require.NoError(t, err, "op %d", i)
			require.Equal(t, "old chain", string(got))
		} else {
			for _, d := range dirs {
				_, err := mb.blades[d].Stat(manifestName(m.FileID))
				require.Error(t, err, "op %d: no manifest left", i)
			}
		}
		require.Empty(t, leftovers(t, rb), "op %d", i)
		_, ok := rb.Lookup("kept.mov")
		require.True(t, ok, "the rename is durable")
		rb.Close()
		if !crashed && err == nil {
			return
		}
	}
}

// Replacing a file (the ASC MHL chain is rewritten): after a crash at any
// point the path holds the old or the new content, never nothing.
func TestRenameReplaceNeverLosesThePath(t *testing.T) {
	mb, dirs, a := memArray(t, RAID4, 3, 64<<10)
	putFile(t, a, "ascmhl/ascmhl_chain.xml", []byte("chain v1"))
	require.NoError(t, a.Close())
	for i := 1; i < 80; i++ {
		ra, err := Open(dirs, OpenOptions{FS: mb.fs, ReadWrite: true})
		require.NoError(t, err)
		if _, ok := ra.Lookup("ascmhl/.tmp-chain"); ok {
			require.NoError(t, ra.Remove("ascmhl/.tmp-chain"))
		}
		putFile(t, ra, "ascmhl/.tmp-chain", []byte("chain v2"))
		mb.w.mu.Lock()
		mb.w.crashAt, mb.w.ops = i, 0
		mb.w.mu.Unlock()
		err = ra.RenameReplace("ascmhl/.tmp-chain", "ascmhl/ascmhl_chain.xml")
		crashed := mb.w.crashed
		mb.crash()
		rb, err2 := Open(dirs, OpenOptions{FS: mb.fs, ReadWrite: true})
		require.NoError(t, err2)
		got, gerr := getFile(rb, "ascmhl/ascmhl_chain.xml")
		require.NoError(t, gerr, "op %d: the chain is never missing", i)
		require.Contains(t, []string{"chain v1", "chain v2"}, string(got), "op %d", i)
		if !crashed && err == nil {
			require.Equal(t, "chain v2", string(got))
			_, ok := rb.Lookup("ascmhl/.tmp-chain")
			require.False(t, ok)
			rb.Close()
			return
		}
		// Start the next round from v1 again.
		if string(got) == "chain v2" {
			require.NoError(t, rb.Remove("ascmhl/ascmhl_chain.xml"))
			putFile(t, rb, "ascmhl/ascmhl_chain.xml", []byte("chain v1"))
		}
		rb.Close()
	}
	t.Fatal("the replace never completed")
}
