package jobreport

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// A writer that panics (or fails) leaves the other formats written, and its
// error names the format, the job and the path.
func TestAWriterThatPanicsLeavesTheOthers(t *testing.T) {
	for _, bad := range []string{"pdf", "csv"} {
		t.Run(bad, func(t *testing.T) {
			prev := writeFormat
			writeFormat = func(r *Report, format string, w io.Writer) error {
				if format == bad {
					var m map[string]int
					//lint:ignore SA5000 the test needs a runtime panic, as a bug in a writer would make
					m["boom"]++ // a nil map: panics
				}
				return prev(r, format, w)
			}
			defer func() { writeFormat = prev }()

			r := unicodeReport()
			r.Job.Layout = "{job}/{card}"
			dest := t.TempDir()
			r.Destinations = r.Destinations[:1]
			r.Destinations[0].Path = dest
			written, err := r.WriteToDestinations(nil)
			require.Error(t, err)
			var fe *FormatError
			require.True(t, errors.As(err, &fe), "%v", err)
			require.Equal(t, bad, fe.Format)
			require.Equal(t, int64(12), fe.JobID)
			require.NotNil(t, fe.Panic)
			require.Equal(t, filepath.Join(dest, filepath.FromSlash(Dir(r.Job.Layout, r.Job.Name, r.Job.Started, nil)), r.OutputName(bad)), fe.Path)
			require.Contains(t, err.Error(), "the "+bad+" report of job 12")
			require.Contains(t, err.Error(), "assignment to entry in nil map")

			require.Len(t, written, len(r.Outputs())-1)
			dir := filepath.Join(dest, filepath.FromSlash(Dir(r.Job.Layout, r.Job.Name, r.Job.Started, nil)))
			for _, f := range r.Outputs() {
				_, err := os.Stat(filepath.Join(dir, r.OutputName(f)))
				if f == bad {
					require.True(t, os.IsNotExist(err), f)
				} else {
					require.NoError(t, err, f)
				}
			}
		})
	}
}

// Write itself recovers: a caller that renders one format (dit report, the
// app) gets an error, not a crash.
func TestWriteRecoversAPanic(t *testing.T) {
	prev := writeFormat
	writeFormat = func(*Report, string, io.Writer) error { panic("drawing failed") }
	defer func() { writeFormat = prev }()
	err := resumedReport().Write("html", io.Discard)
	require.EqualError(t, err, "the html report of job 12: crashed: drawing failed (a bug in dit: please report it)")
}

// A destination that cannot take a file: the error names the format and
// the path, and the other destinations get every format.
func TestAFormatNotWrittenNamesItsPath(t *testing.T) {
	r := resumedReport()
	good := t.TempDir()
	bad := filepath.Join(t.TempDir(), "ro")
	require.NoError(t, os.MkdirAll(bad, 0o755))
	r.Destinations = r.Destinations[:2]
	r.Destinations[0].Path, r.Destinations[1].Path = bad, good
	rel := Dir(r.Job.Layout, r.Job.Name, r.Job.Started, nil)
	// The PDF's name is taken by a folder there.
	require.NoError(t, os.MkdirAll(filepath.Join(bad, filepath.FromSlash(rel), r.FileName("pdf")), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(bad, filepath.FromSlash(rel), r.FileName("pdf"), "x"), nil, 0o644))
	written, err := r.WriteToDestinations(nil)
	require.Error(t, err)
	var fe *FormatError
	require.True(t, errors.As(err, &fe), "%v", err)
	require.Equal(t, "pdf", fe.Format)
	require.Equal(t, filepath.Join(bad, filepath.FromSlash(rel), r.FileName("pdf")), fe.Path)
	require.Len(t, written, 2*len(r.Outputs())-1)
}
