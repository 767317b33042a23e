package jobreport

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/fsys"
)

// reportsDir is the reports folder of r on destination dest.
func reportsDir(r *Report, dest string) string {
	return filepath.Join(dest, filepath.FromSlash(Dir(r.Job.Layout, r.Job.Name, r.Job.Started, nil)))
}

// temps are the temporary files in dir.
func temps(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), tempSuffix) {
			out = append(out, e.Name())
		}
	}
	return out
}

// Each format is written into every destination as it is rendered, not
// held whole in memory and written after: while the CSV's writer is
// still running, what it has written is already in a temporary file on
// each destination. Once done, each destination has the same bytes,
// those of the format written on its own, and no temporary file.
func TestEachFormatStreamsIntoEveryDestination(t *testing.T) {
	r := build(t)
	d1, d2 := t.TempDir(), t.TempDir()
	r.Destinations[0].Path, r.Destinations[1].Path = d1, d2
	const chunk, chunks = 64 << 10, 32 // 2 MiB
	seen := map[string]int64{}
	prev := writeFormat
	writeFormat = func(r *Report, f string, w io.Writer) error {
		if f != "csv" {
			return prev(r, f, w)
		}
		block := bytes.Repeat([]byte("x"), chunk-1)
		block = append(block, '\n')
		for range chunks {
			if _, err := w.Write(block); err != nil {
				return err
			}
		}
		// The 2 MiB are on each destination before the writer returns.
		for _, d := range []string{d1, d2} {
			ts := temps(t, reportsDir(r, d))
			for _, n := range ts {
				if strings.Contains(n, ".csv.") {
					fi, err := os.Stat(filepath.Join(reportsDir(r, d), n))
					require.NoError(t, err)
					seen[d] = fi.Size()
				}
			}
		}
		return nil
	}
	defer func() { writeFormat = prev }()
	paths, err := r.WriteToDestinations(nil)
	writeFormat = prev
	require.NoError(t, err)
	require.Len(t, paths, 2*len(r.Outputs()))
	require.Equal(t, map[string]int64{d1: chunk * chunks, d2: chunk * chunks}, seen)

	for _, d := range []string{d1, d2} {
		dir := reportsDir(r, d)
		require.Empty(t, temps(t, dir))
		csv, err := os.ReadFile(filepath.Join(dir, r.OutputName("csv")))
		require.NoError(t, err)
		require.Len(t, csv, chunk*chunks)
		for _, f := range []string{"json", "html"} {
			var want bytes.Buffer
			require.NoError(t, r.Write(f, &want))
			got, err := os.ReadFile(filepath.Join(dir, r.OutputName(f)))
			require.NoError(t, err)
			require.Equal(t, want.String(), string(got), f)
		}
	}
	p1, err := os.ReadFile(filepath.Join(reportsDir(r, d1), r.OutputName("pdf")))
	require.NoError(t, err)
	p2, err := os.ReadFile(filepath.Join(reportsDir(r, d2), r.OutputName("pdf")))
	require.NoError(t, err)
	require.Equal(t, p1, p2, "one PDF rendered, the same bytes on each destination")
	require.True(t, bytes.HasPrefix(p1, []byte("%PDF-")))
}

// failFS is the OS, but a file made in dir fails to be written after
// its first budget bytes.
type failFS struct {
	fsys.OS
	dir    string
	budget int
}

func (f failFS) CreateTemp(dir, pattern string) (fsys.WFile, error) {
	w, err := f.OS.CreateTemp(dir, pattern)
	if err != nil || !strings.HasPrefix(dir, f.dir) {
		return w, err
	}
	return &failFile{WFile: w, left: f.budget}, nil
}

type failFile struct {
	fsys.WFile
	left int
}

func (f *failFile) Write(p []byte) (int, error) {
	if len(p) > f.left {
		return 0, errors.New("no space left on device")
	}
	f.left -= len(p)
	return f.WFile.Write(p)
}

// A destination that fails midway through a format (its disk full) loses
// that format only: the error names it and its path there, the other
// destination gets every format whole, and no temporary file is left.
func TestADestinationThatFailsMidwayLeavesTheOthers(t *testing.T) {
	r := build(t)
	good, bad := t.TempDir(), t.TempDir()
	r.Destinations[0].Path, r.Destinations[1].Path = bad, good
	paths, err := r.WriteToDestinations(failFS{dir: bad, budget: 100})
	require.Error(t, err)
	var fe *FormatError
	require.True(t, errors.As(err, &fe), "%v", err)
	require.Contains(t, err.Error(), "no space left on device")
	require.Contains(t, err.Error(), filepath.Join(reportsDir(r, bad), r.OutputName("csv")))
	require.Contains(t, err.Error(), "not written")
	require.Len(t, paths, len(r.Outputs()), "every format on the good destination, none on the bad one (each is more than 100 bytes)")
	for _, f := range r.Outputs() {
		var want bytes.Buffer
		require.NoError(t, r.Write(f, &want))
		got, err := os.ReadFile(filepath.Join(reportsDir(r, good), r.OutputName(f)))
		require.NoError(t, err)
		if f != "pdf" {
			require.Equal(t, want.String(), string(got), f)
		}
		_, err = os.Stat(filepath.Join(reportsDir(r, bad), r.OutputName(f)))
		require.True(t, os.IsNotExist(err), f)
	}
	require.Empty(t, temps(t, reportsDir(r, good)))
	require.Empty(t, temps(t, reportsDir(r, bad)))
}

// Ctrl-C while a format is being written: the writer's next write fails,
// no report is written (a resume writes them), and no temporary file is
// left.
func TestCancelledWhileWritingLeavesNothing(t *testing.T) {
	r := build(t)
	d1, d2 := t.TempDir(), t.TempDir()
	r.Destinations[0].Path, r.Destinations[1].Path = d1, d2
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var after error
	prev := writeFormat
	writeFormat = func(r *Report, f string, w io.Writer) error {
		if f != "json" {
			return prev(r, f, w)
		}
		if _, err := w.Write([]byte("{")); err != nil {
			return err
		}
		cancel()
		_, after = w.Write([]byte("}"))
		return after
	}
	defer func() { writeFormat = prev }()
	paths, err := r.WriteToDestinationsContext(ctx, nil)
	require.ErrorIs(t, err, context.Canceled)
	require.ErrorIs(t, after, context.Canceled, "a write after Ctrl-C fails")
	require.Empty(t, paths)
	for _, d := range []string{d1, d2} {
		ents, err := os.ReadDir(reportsDir(r, d))
		require.NoError(t, err)
		require.Empty(t, ents, "no report and no temporary file")
	}
}

// A run of the job cut short (kill -9) left temporary files of its
// reports: the next run's reports remove them, and leave another job's.
func TestAnEarlierRunsTempsAreRemoved(t *testing.T) {
	r := build(t)
	d := t.TempDir()
	r.Destinations = r.Destinations[:1]
	r.Destinations[0].Path = d
	dir := reportsDir(r, d)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	mine := "." + r.OutputName("csv") + ".123456" + tempSuffix
	other := ".dit-report_job99_Other.csv.123456" + tempSuffix
	for _, n := range []string{mine, other} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, n), []byte("cut short"), 0o644))
	}
	_, err := r.WriteToDestinations(nil)
	require.NoError(t, err)
	require.Equal(t, []string{other}, temps(t, dir))
}
