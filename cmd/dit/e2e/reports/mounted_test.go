package reports

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
	"github.com/dit-org/dit/internal/format/ale"
)

// Every path dit find and the reports print for the copies of a job that
// went to a dit array is one a person (or an editing suite) opens: below
// the array's mount place. Before the array is mounted dit find says so
// and gives the command; once `dit array mount BLADE` mounts it there,
// every path dit find, the ALE, the JSON report and the clip sheet name
// opens and holds the card's bytes. No output meant for another program
// says "array:" or has a doubled slash.
func TestArrayPathsOpenOnceMounted(t *testing.T) {
	if _, err := os.Stat("/dev/fuse"); err != nil {
		t.Skip("no /dev/fuse on this machine: the array cannot be mounted (FUSE), paths not opened")
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "catalog.db")
	env := append(os.Environ(), "DIT_DB="+db, "DIT_ARRAY_MOUNTS="+filepath.Join(dir, "mounts"))
	dit := func(args ...string) e2e.Result {
		t.Helper()
		r := e2e.RunDit(t, env, args...)
		require.Equal(t, 0, r.Code, "dit %v:\n%s%s", args, r.Stdout, r.Stderr)
		return r
	}
	cards := filepath.Join(dir, "cards")
	dit("testdata", "cards", "--out", cards, "--cards", "1", "--size", "3MB", "--seed", "42")
	var blades []string
	for i := 1; i <= 3; i++ {
		b := filepath.Join(dir, "mnt", "blade"+string(rune('0'+i)), "RAID")
		require.NoError(t, os.MkdirAll(b, 0o755))
		blades = append(blades, b)
	}
	dit(append([]string{"array", "create", "--level", "4", "--stripe-unit", "64KiB", "--label", "cart"}, blades...)...)
	// The blade named with a trailing slash, as a shell's completion writes it.
	off := dit("offload", "--name", "Day01", "--ale", "-d", blades[0]+"/", filepath.Join(cards, "A001"))
	place := filepath.Join(dir, "mounts")
	require.Contains(t, off.Stdout, "not mounted", "the offload says the array is not mounted")
	require.Contains(t, off.Stdout, "dit array mount "+blades[0], "and how to mount it")

	// Not mounted: the paths are below the mount place, and dit find says so.
	r := dit("find", "A001C00")
	require.Contains(t, r.Stdout, place+string(filepath.Separator))
	require.Contains(t, r.Stdout, "not mounted")
	require.Contains(t, r.Stdout, "dit array mount "+blades[0])
	var found []struct {
		File, Path    string
		Mounted       *bool  `json:"array_mounted"`
		MountCommand  string `json:"mount_command"`
		State, Status string
	}
	require.NoError(t, json.Unmarshal([]byte(dit("find", "A001C00", "--json").Stdout), &found))
	require.NotEmpty(t, found)
	for _, f := range found {
		require.NotNil(t, f.Mounted, f.Path)
		require.False(t, *f.Mounted)
		require.Equal(t, "dit array mount "+blades[0], f.MountCommand)
		_, err := os.Stat(f.Path)
		require.Error(t, err, "%s opens before the array is mounted?", f.Path)
	}

	// Reports written before mounting, into a folder.
	out := filepath.Join(dir, "out")
	require.NoError(t, os.Mkdir(out, 0o755))
	dit("report", "1", "--out", out)

	mountDir := mountArray(t, env, blades[0])
	require.True(t, strings.HasPrefix(mountDir, place+string(filepath.Separator)), "mounted at its mount place: %s", mountDir)

	card := filepath.Join(cards, "A001")
	opens := func(p, rel, from string) {
		t.Helper()
		require.NotContains(t, p, "array:", from)
		require.NotContains(t, strings.TrimPrefix(p, "//"), "//", from)
		got, err := os.ReadFile(p)
		require.NoError(t, err, "%s names %s", from, p)
		if rel != "" {
			want, err := os.ReadFile(filepath.Join(card, filepath.FromSlash(rel)))
			require.NoError(t, err)
			require.True(t, bytes.Equal(want, got), "%s: %s holds the card's %s", from, p, rel)
		}
	}

	r = dit("find", "A001C00")
	require.Contains(t, r.Stdout, "mounted at "+mountDir)
	require.NotContains(t, r.Stdout, "not mounted")
	found = nil
	require.NoError(t, json.Unmarshal([]byte(dit("find", "A001C00", "--json").Stdout), &found))
	require.NotEmpty(t, found)
	for _, f := range found {
		require.True(t, *f.Mounted)
		require.Empty(t, f.MountCommand)
		opens(f.Path, f.File, "dit find --json")
	}

	// The ALEs: the one written into the array at the job's end, read
	// through the mount, and the one dit report wrote before mounting.
	ales := []string{filepath.Join(mountDir, "Day01", "reports", "dit-report_job1_Day01.ale"), filepath.Join(out, "dit-report_job1_Day01.ale")}
	var perALE []int
	for _, a := range ales {
		f, err := os.Open(a)
		require.NoError(t, err)
		_, cols, rows, err := ale.Read(f)
		f.Close()
		require.NoError(t, err, a)
		require.NotEmpty(t, rows, a)
		perALE = append(perALE, len(rows))
		src := slices.Index(cols, "Source File")
		require.GreaterOrEqual(t, src, 0)
		for _, row := range rows {
			rel, err := filepath.Rel(filepath.Join(mountDir, "Day01", "A001"), row[src])
			require.NoError(t, err)
			opens(row[src], filepath.ToSlash(rel), a)
		}
	}
	require.Equal(t, perALE[0], perALE[1], "the same clips in both ALEs")

	// The JSON report: each card's folder on each destination, and the
	// array's place.
	var rep struct {
		Destinations []struct {
			Path  string
			Array *struct {
				Dir     string
				Mounted bool
			}
		}
		Cards []struct {
			Destinations []struct{ Path string }
		}
	}
	b, err := os.ReadFile(filepath.Join(mountDir, "Day01", "reports", "dit-report_job1_Day01.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &rep))
	require.NotNil(t, rep.Destinations[0].Array)
	require.Equal(t, mountDir, rep.Destinations[0].Array.Dir)
	for _, c := range rep.Cards {
		for _, d := range c.Destinations {
			fi, err := os.Stat(d.Path)
			require.NoError(t, err, "the JSON report names %s", d.Path)
			require.True(t, fi.IsDir())
		}
	}
	// Nothing meant for a program says array: or doubles a slash.
	for _, name := range []string{"dit-report_job1_Day01.csv", "dit-report_job1_Day01_clips.csv", "dit-report_job1_Day01.ale", "dit-report_job1_Day01.json"} {
		b, err := os.ReadFile(filepath.Join(out, name))
		require.NoError(t, err)
		require.NotContains(t, string(b), "array:", name)
		require.NotContains(t, strings.ReplaceAll(string(b), "://", ""), "//", name)
		if strings.HasSuffix(name, ".csv") {
			_, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
			require.NoError(t, err, name)
		}
	}
}

// mountArray mounts the array blade is a blade of at its default place
// (dit array mount, run until the test ends) and returns where it is
// mounted, once the command says so; it skips the test when FUSE cannot
// mount it here.
func mountArray(t *testing.T, env []string, blade string) string {
	t.Helper()
	mnt := exec.Command(e2e.Bin, "array", "mount", blade)
	mnt.Env = env
	stdout, err := mnt.StdoutPipe()
	require.NoError(t, err)
	var stderr bytes.Buffer
	mnt.Stderr = &stderr
	require.NoError(t, mnt.Start())
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	if !strings.HasPrefix(line, "array mounted read-only at ") {
		mnt.Wait()
		t.Skipf("the array could not be mounted (FUSE unavailable here?): %s%s", line, stderr.String())
	}
	t.Cleanup(func() {
		mnt.Process.Signal(syscall.SIGINT)
		require.NoError(t, mnt.Wait(), stderr.String())
	})
	return strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(line, "array mounted read-only at "), "; Ctrl-C to unmount\n"))
}
