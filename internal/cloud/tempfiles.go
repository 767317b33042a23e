package cloud

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
)

// The temporary files and folders dit makes beside rclone (an upload's
// list of files, dit-upload-PID-*.txt; the empty folder a check runs
// rclone in, dit-probe-PID-*; a card's history staged to go up,
// dit-history-PID-*, or read back, dit-history-there-PID-*) are named
// with the id of the process that made them (PID). A dit killed (kill -9,
// a crash) cannot remove its own: the first one a later dit makes sweeps
// from the temporary folder those of processes that are gone, never one
// of a process still running.

// tempName is a temporary name of CreateTemp or MkdirTemp: its prefix
// and the process id.
var tempName = regexp.MustCompile(`^dit-(upload|history|history-there|probe)-([0-9]+)-`)

var sweepOnce sync.Once

// CreateTemp is os.CreateTemp in the temporary folder, its name prefix
// ("dit-upload-"), the process id, "-", a random part and suffix; the
// first call sweeps the temporary folder (SweepTemp).
func CreateTemp(prefix, suffix string) (*os.File, error) {
	sweepOnce.Do(func() { SweepTemp(os.TempDir()) })
	return os.CreateTemp("", prefix+strconv.Itoa(os.Getpid())+"-*"+suffix)
}

// MkdirTemp is os.MkdirTemp in the temporary folder, named as CreateTemp's
// ("dit-history-PID-" and a random part); the first call sweeps too.
func MkdirTemp(prefix string) (string, error) {
	sweepOnce.Do(func() { SweepTemp(os.TempDir()) })
	return os.MkdirTemp("", prefix+strconv.Itoa(os.Getpid())+"-")
}

// SweepTemp removes from dir the temporary files and folders of
// CreateTemp and MkdirTemp whose process is gone (not this one, not one
// that is running, whoever's it is); it returns the names it removed.
// Names without a process id (an older dit's) are left alone: who made
// them cannot be told.
func SweepTemp(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var removed []string
	for _, e := range entries {
		m := tempName.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		pid, err := strconv.Atoi(m[2])
		if err != nil || pid <= 0 || pid == os.Getpid() || processAlive(pid) {
			continue
		}
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err == nil {
			removed = append(removed, e.Name())
		}
	}
	return removed
}
