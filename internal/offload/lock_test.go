package offload

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// Two destinations that are one folder (a share mounted twice, where
// flock does not clash): the second lock overwrites the first's file, and
// reading the locks back tells. One physical copy must never count as two.
func TestLocksOfOneFolderMountedTwiceAreRefused(t *testing.T) {
	d1, d2 := t.TempDir(), t.TempDir()
	l1, err := lockDest(d1, 7)
	require.NoError(t, err)
	defer l1.release()
	l2, err := lockDest(d2, 7)
	require.NoError(t, err)
	defer l2.release()
	require.NoError(t, checkLocksDistinct([]*destLock{l1, l2}))

	// What the second mount's lock write does to the one real file.
	b, err := os.ReadFile(l2.path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(l1.path, b, 0o644))
	err = checkLocksDistinct([]*destLock{l1, l2})
	var ue *UsageError
	require.ErrorAs(t, err, &ue)
	require.Contains(t, err.Error(), d1)
	require.Contains(t, err.Error(), d2)
	require.Contains(t, err.Error(), "same folder")

	// Rewritten by something else altogether.
	require.NoError(t, os.WriteFile(l1.path, []byte("pid 1 on elsewhere, job 3, lock 0123\n"), 0o644))
	err = checkLocksDistinct([]*destLock{l1, l2})
	require.ErrorContains(t, err, "rewritten by someone else")
}

// The same folder reached twice on one machine (a bind mount): the second
// flock clashes with this job's own first one, and the message says so.
func TestLockClashWithOwnJobNamesTheSameFolder(t *testing.T) {
	d := t.TempDir()
	l1, err := lockDest(d, 9)
	require.NoError(t, err)
	defer l1.release()
	_, err = lockDest(d, 9)
	require.ErrorContains(t, err, "same folder as another destination of this job")
	_, err = lockDest(d, 10)
	require.ErrorContains(t, err, "in use by another dit offload")
}
