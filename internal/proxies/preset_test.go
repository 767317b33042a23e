package proxies

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/dit-org/dit/internal/testneeds"
	"github.com/stretchr/testify/require"
)

func TestParseSpec(t *testing.T) {
	for in, want := range map[string]string{"prores-proxy": "prores-proxy", "H264,burnin": "h264,burnin",
		"dnxhr-lb": "dnxhr-lb", " dnxhr-lb-mov , burnin ": "dnxhr-lb-mov,burnin"} {
		s, err := ParseSpec(in)
		require.NoError(t, err, in)
		require.Equal(t, want, s.String())
	}
	for _, bad := range []string{"", "prores", "burnin", "h264,h264", "h264,burn"} {
		_, err := ParseSpec(bad)
		require.Error(t, err, bad)
		require.Contains(t, err.Error(), "prores-proxy, h264, dnxhr-lb, dnxhr-lb-mov", "the error names the presets")
	}
}

// Each preset's arguments, without ffmpeg: its codec, container and
// the source's timecode; no -r (the source's rate); the output not
// overwritten (-n).
func TestArgsPerPreset(t *testing.T) {
	want := map[string][]string{
		"prores-proxy": {"-c:v", "prores_ks", "-profile:v", "0", "-f", "mov"},
		"h264":         {"-c:v", "libx264", "-f", "mp4"},
		"dnxhr-lb":     {"-c:v", "dnxhd", "-profile:v", "dnxhr_lb", "-f", "mxf"},
		"dnxhr-lb-mov": {"-c:v", "dnxhd", "-profile:v", "dnxhr_lb", "-f", "mov"},
	}
	for _, p := range Presets {
		a := Args(Spec{Preset: p}, Source{In: "/x/A001C001.mxf", TC: "10:00:01:00", Rate: "25"}, "/o/.tmp"+p.Ext)
		joined := strings.Join(a, " ")
		for i := 0; i < len(want[p.Name]); i += 2 {
			require.Contains(t, joined, want[p.Name][i]+" "+want[p.Name][i+1], p.Name)
		}
		require.Contains(t, joined, "-timecode 10:00:01:00")
		require.Contains(t, joined, "-i /x/A001C001.mxf")
		require.NotContains(t, a, "-r")
		require.NotContains(t, a, "-y")
		require.Equal(t, []string{"-n", "/o/.tmp" + p.Ext}, a[len(a)-2:])
		require.NotContains(t, joined, "drawtext")
	}
	a := Args(Spec{Preset: Presets[1]}, Source{In: "in.mp4"}, "out.mp4")
	require.NotContains(t, a, "-timecode", "no timecode in the source: none invented")
}

func TestFilterValue(t *testing.T) {
	require.Equal(t, `10\\:00\\:01\\:00`, FilterValue("10:00:01:00"))
	require.Equal(t, `a\\\'b\,c\;d\[e\]f\\\\g`, FilterValue(`a'b,c;d[e]f\g`))
	require.Equal(t, "場景🎬 Ä", FilterValue("場景🎬 Ä"))
	f := Filter(Spec{Preset: Presets[0], Burnin: true}, Source{Name: "x:y", TC: "01:00:00;02", Rate: "29.97"})
	require.Contains(t, f, `drawtext=timecode=01\\:00\\:00\;02:rate=29.97:`)
	require.Contains(t, f, `text=x\\:y:`)
	require.Contains(t, f, "expansion=none")
}

// A name of every kind of punctuation the filter graph and drawtext
// treat specially, and Unicode of every kind, burnt in by the real
// ffmpeg: the graph parses and the proxy is made.
func TestBurninEscapesAnyName(t *testing.T) {
	tools(t)
	dir := t.TempDir()
	in := clip(t, dir, "src.mov", "-f", "lavfi", "-i", "testsrc=d=0.4:s=320x180:r=25", "-c:v", "prores_ks", "-timecode", "01:00:00:00")
	for _, name := range []string{`a'b"c:d,e;f[g]h\i%{pts}j=k`, "場景 🎬 Ä Å", "Cafe\u0301 NFD", "'", `\`, "%"} {
		out := dir + "/out.mov"
		spec := Spec{Preset: Presets[0], Burnin: true}
		cmd := exec.Command("ffmpeg", Args(spec, Source{In: in, Name: name, TC: "01:00:00:00", Rate: "25"}, out)...)
		b, err := cmd.CombinedOutput()
		require.NoError(t, err, "%q: %s", name, b)
		runOK(t, "rm", out)
	}
}

func TestErrorLine(t *testing.T) {
	require.Equal(t, "Error opening input files: Invalid data found when processing input",
		ErrorLine("[in#0 @ 0x1] Error opening input: Invalid data\nError opening input file x.\nError opening input files: Invalid data found when processing input\n"))
	require.Equal(t, "x: No such file", ErrorLine("x: No such file\nConversion failed!\n"))
}

func tools(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"ffmpeg", "ffprobe"} {
		testneeds.Tool(t, tool, "Debian: apt-get install ffmpeg")
	}
}

func clip(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	p := dir + "/" + name
	b, err := exec.Command("ffmpeg", slices.Concat([]string{"-v", "error", "-nostdin"}, args, []string{p})...).CombinedOutput()
	require.NoError(t, err, string(b))
	return p
}

func runOK(t *testing.T, name string, args ...string) {
	t.Helper()
	b, err := exec.Command(name, args...).CombinedOutput()
	require.NoError(t, err, string(b))
}

// A CJK name is drawn in a font that has its characters, found by
// fontconfig; the font's path goes into the graph escaped.
func TestFontFor(t *testing.T) {
	if _, err := exec.LookPath("fc-match"); err != nil {
		t.Skip("fc-match not installed (Debian: fontconfig)")
	}
	f := FontFor("場景 🎬")
	require.NotEmpty(t, f)
	f2 := Filter(Spec{Preset: Presets[0], Burnin: true}, Source{Name: "x", Font: "/fonts/a:b.ttc"})
	require.Contains(t, f2, `fontfile=/fonts/a\\:b.ttc:text=x`)
}
