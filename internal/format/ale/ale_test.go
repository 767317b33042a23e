package ale

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func sample() *File {
	return &File{FPS: "25", VideoFormat: VideoFormat("1920x1080"),
		Columns: []string{"Name", "Tracks", "Start", "End", "Duration", "Tape", "Source File", "Camera", "Codec"},
		Rows: []map[string]string{
			{"Name": "A001C001_230512_R2EC", "Tracks": Tracks(2), "Start": "10:00:01:00", "End": "10:00:03:00", "Duration": "00:00:02:00",
				"Tape": "A001", "Source File": "A001C001_230512_R2EC.mxf", "Camera": "ARRI ALEXA 35", "Codec": "Avid DNxHD"},
			{"Name": "A001C002_230512_R2EC", "Tracks": "V", "Start": "10:05:00:00", "End": "10:05:10:12", "Duration": "00:00:10:12",
				"Tape": "A001", "Source File": "Clips/A001C002\t.mxf", "Camera": "ARRI ALEXA 35", "Codec": "Apple ProRes 4444 XQ"},
			{"Name": "Ünïcødé 🎬 クリップ", "Tracks": "V", "Tape": "A002", "Source File": "x.mov"},
		}}
}

func TestWriteIsReadBack(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, sample()); err != nil {
		t.Fatal(err)
	}
	h, cols, rows, err := Read(&b)
	if err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	if h["FPS"] != "25" || h["FIELD_DELIM"] != "TABS" || h["VIDEO_FORMAT"] != "1080" {
		t.Errorf("heading %v", h)
	}
	if len(cols) != 9 || len(rows) != 3 || rows[1][6] != "Clips/A001C002 .mxf" || rows[2][0] != "Ünïcødé 🎬 クリップ" || rows[2][2] != "" {
		t.Errorf("cols %q rows %q", cols, rows)
	}
	for _, bad := range []string{"Column\nName\nData\nx\n", "Heading\nFPS 25\nColumn\nName\nData\n", "Heading\nFPS\t25\nColumn\nName\tStart\nData\na\tb\tc\n"} {
		if _, _, _, err := Read(strings.NewReader(bad)); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

// Tracks as Avid writes them: picture, then one A per audio channel.
func TestTracks(t *testing.T) {
	for n, want := range map[int]string{0: "V", 1: "VA1", 2: "VA1A2", 4: "VA1A2A3A4", 10: "VA1A2A3A4A5A6A7A8A9A10"} {
		if got := Tracks(n); got != want {
			t.Errorf("Tracks(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestSplitByRate(t *testing.T) {
	rows := []map[string]string{{"FPS": "25", "Name": "a"}, {"FPS": "23.976", "Name": "b"}, {"FPS": "25", "Name": "c"}}
	rates, groups := Split(rows, "FPS")
	if strings.Join(rates, ",") != "25,23.976" || len(groups[0]) != 2 || groups[1][0]["Name"] != "b" {
		t.Errorf("%v %v", rates, groups)
	}
}

// OpenTimelineIO's ALE adapter (PyPI) reads the file: names, timecodes,
// durations and custom columns as written.
func TestOpenTimelineIOReadsIt(t *testing.T) {
	py := otio(t)
	p := filepath.Join(t.TempDir(), "day01.ale")
	var b bytes.Buffer
	if err := Write(&b, sample()); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	script := `
import json, sys
import opentimelineio as otio
col = otio.adapters.read_from_file(sys.argv[1], adapter_name="ale")
out = []
for c in col:
    r = {"name": c.name, "meta": dict(c.metadata["ALE"])}
    if c.source_range is not None:
        r["start"] = otio.opentime.to_timecode(c.source_range.start_time, 25)
        r["frames"] = c.source_range.duration.to_frames(25)
    if c.media_reference is not None and hasattr(c.media_reference, "target_url"):
        r["source"] = c.media_reference.target_url
    out.append(r)
print(json.dumps(out))
`
	out, err := exec.Command(py, "-c", script, p).CombinedOutput()
	if err != nil {
		t.Fatalf("OpenTimelineIO could not read the ALE: %v\n%s\n%s", err, out, b.String())
	}
	var got []struct {
		Name   string            `json:"name"`
		Start  string            `json:"start"`
		Frames int               `json:"frames"`
		Source string            `json:"source"`
		Meta   map[string]string `json:"meta"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(got) != 3 || got[0].Name != "A001C001_230512_R2EC" || got[0].Start != "10:00:01:00" || got[0].Frames != 50 ||
		got[1].Frames != 262 || got[0].Meta["Tape"] != "A001" || got[1].Meta["Codec"] != "Apple ProRes 4444 XQ" ||
		got[2].Name != "Ünïcødé 🎬 クリップ" || got[0].Source != "A001C001_230512_R2EC.mxf" || got[0].Meta["Tracks"] != "VA1A2" ||
		got[1].Meta["Tracks"] != "V" {
		t.Errorf("read back: %+v", got)
	}
}

// otio is a Python with OpenTimelineIO and its ALE adapter, installed once
// into .cache/otio-venv from PyPI; the test skips under -short, without
// python3, or when PyPI cannot be reached.
func otio(t *testing.T) string {
	t.Helper()
	if testing.Short() { // internal/testneeds's words (format imports little of dit)
		t.Skip("end-to-end (needs OpenTimelineIO from PyPI): not under -short; make test runs it")
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed: skipping the OpenTimelineIO ALE check")
	}
	root, _ := filepath.Abs("../../..")
	venv := filepath.Join(root, ".cache", "otio-venv")
	marker := filepath.Join(venv, ".dit-otio-0.18.1-ale-1.1.0")
	bin := filepath.Join(venv, "bin", "python")
	if _, err := os.Stat(marker); err == nil {
		return bin
	}
	// The end-to-end tests install the same venv, maybe at this moment.
	os.MkdirAll(filepath.Dir(venv), 0o755)
	defer lockFile(t, venv+".lock")()
	if _, err := os.Stat(marker); err == nil {
		return bin
	}
	os.RemoveAll(venv)
	if out, err := exec.Command(py, "-m", "venv", venv).CombinedOutput(); err != nil {
		t.Skipf("python3 -m venv failed (Debian: python3-venv): %v\n%s", err, out)
	}
	pip := exec.Command(filepath.Join(venv, "bin", "pip"), "install", "-q", "--disable-pip-version-check", "opentimelineio==0.18.1", "otio-ale-adapter==1.1.0")
	if out, err := pip.CombinedOutput(); err != nil {
		t.Skipf("pip install opentimelineio otio-ale-adapter failed (PyPI must be reachable): skipping the OpenTimelineIO ALE check: %v\n%s", err, out)
	}
	os.WriteFile(marker, []byte(time.Now().UTC().Format(time.RFC3339)+"\n"), 0o644)
	return bin
}
