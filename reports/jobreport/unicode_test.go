package jobreport

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
	"golang.org/x/text/unicode/norm"

	"github.com/dit-org/dit/internal/offload"
)

// unicodeNames are names as cards and jobs carry them: emoji (above
// U+FFFF, with a joiner and a variation selector), CJK, Arabic, Greek,
// Cyrillic, combining marks and a name in NFD.
var unicodeNames = []string{
	"Day 1 🎬", "東京ロケ 撮影", "مرحبا بالعالم", "Ελληνικά", "Кириллица", "Ame\u0301lie NFD", "👩‍💻 crew ❤️", "카메라 A",
}

// unicodeReport is resumedReport with every name in unicodeNames.
func unicodeReport() *Report {
	r := resumedReport()
	r.Job.Name = unicodeNames[0] + " " + unicodeNames[1]
	c := &r.Cards[0]
	c.Label = "A001 🎬"
	c.Source = "/Volumes/" + unicodeNames[2]
	c.FileList[0].Path = "A001/" + unicodeNames[3] + "/" + unicodeNames[4] + ".mxf"
	c.Failures = []Failure{{Path: unicodeNames[5] + "/" + unicodeNames[6] + ".wav", Error: "read-back: xxh64 differs"}}
	c.Skipped = []Skip{{Path: unicodeNames[7] + "/.DS_Store", Kind: "metadata", Reason: "macOS Finder metadata"},
		{Path: unicodeNames[3] + "/" + unicodeNames[4], Kind: "symlink", Reason: "symbolic link, not followed"}}
	c.Destinations[0].Path = "/Volumes/Raid 🎬/" + unicodeNames[1] + "/A001 🎬"
	return r
}

// squashNFC is s in NFC without its white space (pdftotext lays text out)
// and bidi controls (pdftotext marks right-to-left text with them).
func squashNFC(s string) string {
	s = strings.Map(func(r rune) rune {
		if r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069 {
			return -1
		}
		return r
	}, s)
	return strings.Join(strings.Fields(norm.NFC.String(s)), "")
}

func TestPDFDrawsAnyUnicodeName(t *testing.T) {
	var warned []string
	prev := Warn
	Warn = func(m string) { warned = append(warned, m) }
	defer func() { Warn = prev }()
	r := unicodeReport()
	// A character no embedded font has: drawn as U+FFFD and logged.
	r.Cards[0].Skipped = append(r.Cards[0].Skipped, Skip{Path: "linear-b-\U00010000 private-\uE000", Kind: "metadata", Reason: "odd"})
	var b bytes.Buffer
	require.NoError(t, r.WritePDF(&b))
	require.Len(t, warned, 1)
	require.Contains(t, warned[0], "U+10000")
	require.Contains(t, warned[0], "U+E000")
	p := filepath.Join(t.TempDir(), "report.pdf")
	require.NoError(t, os.WriteFile(p, b.Bytes(), 0o644))
	if keep := os.Getenv("DIT_KEEP_PDF"); keep != "" {
		require.NoError(t, os.WriteFile(keep, b.Bytes(), 0o644))
	}
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Skip("pdftotext not installed (Debian: apt-get install poppler-utils): the PDF's text is not checked")
	}
	out, err := exec.Command("pdftotext", p, "-").Output()
	require.NoError(t, err)
	text := squashNFC(string(out))
	for _, n := range unicodeNames {
		require.Contains(t, text, squashNFC(n), "pdftotext:\n%s", out)
	}
	// The card's chart is titled in the report's fonts too.
	require.Contains(t, text, squashNFC("A001 🎬: throughput per second"), "pdftotext:\n%s", out)
}

func TestTextFormatsKeepUnicodeNames(t *testing.T) {
	r := unicodeReport()
	for _, f := range []string{"csv", "json", "html"} {
		var b bytes.Buffer
		require.NoError(t, r.Write(f, &b), f)
		s := b.String()
		switch f {
		case "csv":
			_, err := csv.NewReader(strings.NewReader(s)).ReadAll()
			require.NoError(t, err)
		case "json":
			var v any
			require.NoError(t, json.Unmarshal(b.Bytes(), &v))
		}
		for _, n := range unicodeNames[3:5] {
			require.Contains(t, s, n, f)
		}
		if f != "csv" {
			require.Contains(t, s, r.Job.Name, f)
		}
	}
	require.Equal(t, "dit-report_job12_Day 1 🎬 東京ロケ 撮影.pdf", r.FileName("pdf"))
}

// A long name makes a file name of at most 255 bytes, cut at a character.
func TestReportFileNameOfALongName(t *testing.T) {
	r := resumedReport()
	r.Job.Name = strings.Repeat("🎬e\u0301", 80)
	n := r.FileName("pdf")
	require.LessOrEqual(t, len(n), 255)
	require.True(t, utf8.ValidString(n))
	require.True(t, strings.HasSuffix(n, "e\u0301.pdf"), n)
}

// A verdict that starts with a name keeps its first character whole.
func TestShortVerdictOfAUnicodeStart(t *testing.T) {
	require.Equal(t, "NOT safe: éCLAIR 🎬 gone", shortVerdict(&Card{CardFigures: offload.CardFigures{Verdict: "ÉCLAIR 🎬 gone"}}))
}
