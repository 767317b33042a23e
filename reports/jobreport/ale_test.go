package jobreport

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dit-org/dit/internal/format/ale"
	"github.com/dit-org/dit/internal/offload"
)

// One rate, one ALE named like the reports; a clip whose rate nobody
// knows goes into it with no timecode; asked for, it is among the
// outputs.
func TestALEOneRate(t *testing.T) {
	r := &Report{Job: Job{ID: 3, Name: "day 03", Layout: "{job}/{card}"}, Destinations: []DestTotals{{Path: "/Volumes/RAID"}},
		Cards: []Card{{CardFigures: offload.CardFigures{Label: "A001"}, Clips: []Clip{
			{Name: "A001C001", FPS: "25", Frames: 50, TCStart: "10:00:00:00", TCEnd: "10:00:02:00", Resolution: "1920x1080", SourceFile: "A001C001.mxf"},
			{Name: "A001_C002_0512AB", SourceFile: "A001_C002_0512AB.RDC/A001_C002_0512AB_001.R3D"},
		}}}}
	if got := r.Outputs(); strings.Contains(strings.Join(got, " "), "ale") {
		t.Errorf("ALE among the outputs unasked: %v", got)
	}
	r.ale = true
	if got := r.Outputs(); !slices.Equal(got[len(got)-3:], []string{"ale", "edl", "fcpxml"}) || r.OutputName("ale") != "dit-report_job3_day 03.ale" ||
		r.OutputName("edl") != "dit-report_job3_day 03.edl" || r.OutputName("fcpxml") != "dit-report_job3_day 03.fcpxml" {
		t.Errorf("outputs %v, names %q %q %q", got, r.OutputName("ale"), r.OutputName("edl"), r.OutputName("fcpxml"))
	}
	var b bytes.Buffer
	if err := r.Write("ale", &b); err != nil {
		t.Fatal(err)
	}
	head, cols, rows, err := ale.Read(&b)
	if err != nil {
		t.Fatal(err)
	}
	if head["FPS"] != "25" || head["VIDEO_FORMAT"] != "1080" || len(rows) != 2 || len(cols) != len(ALEColumns) {
		t.Fatalf("heading %v, %d rows, columns %v", head, len(rows), cols)
	}
	if rows[0][2] != "10:00:00:00" || rows[0][3] != "10:00:02:00" || rows[0][4] != "00:00:02:00" || rows[0][6] != "/Volumes/RAID/day 03/A001/A001C001.mxf" {
		t.Errorf("first row %q", rows[0])
	}
	if rows[1][0] != "A001_C002_0512AB" || rows[1][2] != "" || rows[1][4] != "" {
		t.Errorf("a clip of unknown rate: %q", rows[1])
	}
}

// The ALE, EDL and FCPXML written into each destination's reports
// folder name the clips' files on that destination (a shuttle's lists
// relink to the shuttle); the ones dit report writes name the first
// destination's.
func TestALEOnEachDestinationNamesItsFiles(t *testing.T) {
	raid, shuttle := t.TempDir(), t.TempDir()
	r := &Report{Job: Job{ID: 4, Name: "day04", Layout: "{job}/{card}"}, Destinations: []DestTotals{{Path: raid}, {Path: shuttle}},
		Cards: []Card{{CardFigures: offload.CardFigures{Label: "A001"}, Clips: []Clip{
			{Name: "A001C001", FPS: "25", Frames: 50, TCStart: "10:00:00:00", TCEnd: "10:00:02:00", SourceFile: "CLIPS/A001C001.mxf"},
		}}}, ale: true}
	if _, err := r.WriteToDestinations(nil); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{raid, shuttle} {
		want := filepath.Join(d, "day04", "A001", "CLIPS", "A001C001.mxf")
		for _, f := range []string{"edl", "fcpxml"} {
			b, err := os.ReadFile(filepath.Join(d, "day04", "reports", r.OutputName(f)))
			if err != nil {
				t.Fatal(err)
			}
			if f == "fcpxml" {
				want = "file://" + filepath.ToSlash(want)
			}
			if !strings.Contains(string(b), want) {
				t.Errorf("the %s in %s does not name %s:\n%s", f, d, want, b)
			}
			for _, other := range []string{raid, shuttle} {
				if other != d && strings.Contains(string(b), other) {
					t.Errorf("the %s in %s names the other destination %s:\n%s", f, d, other, b)
				}
			}
		}
	}
	for _, d := range []string{raid, shuttle} {
		f, err := os.Open(filepath.Join(d, "day04", "reports", r.OutputName("ale")))
		if err != nil {
			t.Fatal(err)
		}
		_, cols, rows, err := ale.Read(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		src := slices.Index(cols, "Source File")
		if want := filepath.Join(d, "day04", "A001", "CLIPS", "A001C001.mxf"); rows[0][src] != want {
			t.Errorf("the ALE in %s names %q, want %q", d, rows[0][src], want)
		}
	}
}
