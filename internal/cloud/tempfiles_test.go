//go:build unix

package cloud

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A dit killed leaves its temporary files: the next sweeps those of
// processes that are gone (an upload's list, a staged history folder with
// what is in it) and leaves this process's, a running process's, an older
// dit's (no process id in the name) and anything else.
func TestSweepTempRemovesOnlyTheDeadsFiles(t *testing.T) {
	dir := t.TempDir()
	gone := exec.Command("true")
	require.NoError(t, gone.Run()) // waited for: its pid is no process now
	dead := strconv.Itoa(gone.Process.Pid)
	running := strconv.Itoa(os.Getppid())
	self := strconv.Itoa(os.Getpid())
	files := []string{"dit-upload-" + dead + "-123.txt", "dit-upload-" + self + "-5.txt", "dit-upload-" + running + "-6.txt",
		"dit-upload-777.txt", "other-" + dead + "-1.txt"}
	dirs := []string{"dit-history-" + dead + "-42", "dit-history-there-" + dead + "-43", "dit-history-" + running + "-44", "dit-history-99"}
	for _, f := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), []byte("a.mov\n"), 0o600))
	}
	for _, d := range dirs {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, d, "ascmhl"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, d, "ascmhl", "ascmhl_chain.xml"), []byte("<chain/>"), 0o600))
	}

	removed := SweepTemp(dir)
	slices.Sort(removed)
	require.Equal(t, []string{"dit-history-" + dead + "-42", "dit-history-there-" + dead + "-43", "dit-upload-" + dead + "-123.txt"}, removed)
	left, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range left {
		names = append(names, e.Name())
	}
	want := []string{"dit-upload-" + self + "-5.txt", "dit-upload-" + running + "-6.txt", "dit-upload-777.txt", "other-" + dead + "-1.txt",
		"dit-history-" + running + "-44", "dit-history-99"}
	slices.Sort(want)
	require.Equal(t, want, names)
	_, err = os.Stat(filepath.Join(dir, "dit-history-"+running+"-44", "ascmhl", "ascmhl_chain.xml"))
	require.NoError(t, err, "a running process's staged history is left whole")
}

// The temporary names carry this process's id, so a later dit can tell
// whose they are.
func TestTempNamesCarryTheProcessID(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	f, err := CreateTemp("dit-upload-", ".txt")
	require.NoError(t, err)
	f.Close()
	d, err := MkdirTemp("dit-history-")
	require.NoError(t, err)
	for _, p := range []string{f.Name(), d} {
		m := tempName.FindStringSubmatch(filepath.Base(p))
		require.NotNil(t, m, p)
		require.Equal(t, strconv.Itoa(os.Getpid()), m[2], p)
	}
	require.True(t, strings.HasSuffix(f.Name(), ".txt"))
	require.Empty(t, SweepTemp(os.TempDir()), "this process's own are not swept")
}
