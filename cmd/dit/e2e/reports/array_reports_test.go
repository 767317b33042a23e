package reports

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
	"github.com/dit-org/dit/internal/format/ale"
	"github.com/dit-org/dit/internal/testneeds"
)

// What no output meant for another program says: a location in the
// array's own notation (array:BLADE//PATH; not the SVG's
// stroke-dasharray:), a doubled slash (not a URL's ://), and the HTML's
// data: URIs, left out of both, as is the summary's array_path (that
// notation, named so, beside the path to open: for dit's commands).
var (
	arrayWord      = regexp.MustCompile(`(^|[^-\w])array:`)
	doubledSlash   = regexp.MustCompile(`(^|[^:/])//`)
	dataURI        = regexp.MustCompile(`"data:[^"]*"`)
	arrayPathField = regexp.MustCompile(`"array_path":\s*"[^"]*"`)
)

// A day's card copied to a dit array, then from it to a shuttle (--then),
// with an ALE and ProRes proxies on both (the proxies made from the
// array's copy). Once the array is mounted at its place, every path that
// every report of the job names (the CSVs, the JSON, the HTML, the ALE,
// the EDL and the FCPXML in the array and on the shuttle, and what dit
// report, dit job show and dit find print, the job's summary too: dit
// offload --json's, dit job show's in JSON and text, read before mounting
// and after) opens; a clip's media holds
// the card's bytes; the PDF names the same places whole. The shuttle's
// lists name the shuttle's copies and proxies only (what an editor
// handed the shuttle relinks to), the array's name the array's.
func TestArrayJobEveryReportPathOpens(t *testing.T) {
	if _, err := os.Stat("/dev/fuse"); err != nil {
		t.Skip("no /dev/fuse on this machine: the array cannot be mounted (FUSE), paths not opened")
	}
	testneeds.Tool(t, "ffmpeg", "Debian: apt-get install ffmpeg")
	dir := t.TempDir()
	env := append(os.Environ(), "DIT_DB="+filepath.Join(dir, "catalog.db"), "DIT_ARRAY_MOUNTS="+filepath.Join(dir, "mounts"))
	dit := func(args ...string) string {
		t.Helper()
		r := e2e.RunDit(t, env, args...)
		require.Equal(t, 0, r.Code, "dit %v:\n%s%s", args, r.Stdout, r.Stderr)
		return r.Stdout
	}
	cards := filepath.Join(dir, "cards")
	dit("testdata", "cards", "--out", cards, "--cards", "1", "--size", "8MB", "--video", "--seed", "7")
	card := filepath.Join(cards, "A001")
	var blades []string
	for i := 1; i <= 3; i++ {
		b := filepath.Join(dir, "mnt", "blade"+string(rune('0'+i)), "RAID")
		require.NoError(t, os.MkdirAll(b, 0o755))
		blades = append(blades, b)
	}
	dit(append([]string{"array", "create", "--level", "4", "--stripe-unit", "64KiB", "--label", "cart"}, blades...)...)
	shuttle := filepath.Join(dir, "shuttle")
	require.NoError(t, os.Mkdir(shuttle, 0o755))
	events := dit("offload", "--json", "--name", "Day01", "--ale", "--proxies", "prores-proxy", "--proxies-to", blades[0], "--proxies-to", shuttle,
		"-d", blades[0], "--then", shuttle, card)
	out := filepath.Join(dir, "out")
	require.NoError(t, os.Mkdir(out, 0o755))
	dit("report", "1", "--out", out) // before mounting: the mount place
	// The job's summary, before mounting: the card's folder in the array
	// named where it opens once mounted, the array beside it.
	offSum := summaryLine(t, events)
	before := dit("job", "show", "1")
	place := filepath.Join(dir, "mounts", "cart-")
	summaryNamesTheArray(t, offSum, place, blades[0], false)
	summaryNamesTheArray(t, dit("job", "show", "1", "--json"), place, blades[0], false)
	require.Contains(t, before, "(in a dit array, not mounted: it opens once it is: dit array mount "+blades[0]+")")

	mountDir := mountArray(t, env, blades[0])
	arrayReports := filepath.Join(mountDir, "Day01", "reports")
	shuttleReports := filepath.Join(shuttle, "Day01", "reports")
	// Every path below the test's folder that a report names.
	pathRE := regexp.MustCompile(regexp.QuoteMeta(dir) + `/[^\s"',<>()\[\];]*`)
	opened := 0
	opens := func(from, text string) {
		t.Helper()
		text = dataURI.ReplaceAllString(text, "") // the HTML's thumbnails: base64, not paths
		text = arrayPathField.ReplaceAllString(text, "")
		for _, bad := range []*regexp.Regexp{arrayWord, doubledSlash} {
			if loc := bad.FindStringIndex(text); loc != nil {
				t.Fatalf("%s says %q: ...%s...", from, text[loc[0]:loc[1]], text[max(loc[0]-120, 0):min(loc[1]+120, len(text))])
			}
		}
		for _, p := range pathRE.FindAllString(text, -1) {
			p = strings.TrimSuffix(p, ":") // a text's "PATH: 13 verified"
			_, err := os.Stat(p)
			require.NoError(t, err, "%s names %s", from, p)
			opened++
			rel, err := filepath.Rel(filepath.Join(mountDir, "Day01", "A001"), p)
			if err != nil || strings.HasPrefix(rel, "..") {
				rel, err = filepath.Rel(filepath.Join(shuttle, "Day01", "A001"), p)
			}
			if err == nil && !strings.HasPrefix(rel, "..") && strings.HasSuffix(p, ".mov") {
				want, err := os.ReadFile(filepath.Join(card, rel))
				require.NoError(t, err)
				got, err := os.ReadFile(p)
				require.NoError(t, err)
				require.True(t, bytes.Equal(want, got), "%s: %s holds the card's %s", from, p, rel)
			}
		}
	}
	// Once mounted: dit offload's summary (read before) and dit job show's,
	// in JSON and text, name paths that open; the text no array: and no
	// doubled slash, mounted or not.
	opens("dit offload --json's summary", offSum)
	showJSON := dit("job", "show", "1", "--json")
	summaryNamesTheArray(t, showJSON, mountDir, blades[0], true)
	opens("dit job show --json", showJSON)
	opens("dit job show before mounting", before)
	shown := dit("job", "show", "1")
	opens("dit job show", shown)
	require.Contains(t, shown, "-> "+filepath.Join(mountDir, "Day01", "A001")+": ")
	require.Contains(t, shown, "(in a dit array, mounted: it opens now)")
	var lists []string
	for _, rd := range []string{arrayReports, shuttleReports, out} {
		ents, err := os.ReadDir(rd)
		require.NoError(t, err)
		for _, e := range ents {
			if e.IsDir() || filepath.Ext(e.Name()) == ".pdf" {
				continue
			}
			b, err := os.ReadFile(filepath.Join(rd, e.Name()))
			require.NoError(t, err)
			opens(filepath.Join(rd, e.Name()), string(b))
			if ext := filepath.Ext(e.Name()); ext == ".ale" || ext == ".edl" || ext == ".fcpxml" {
				lists = append(lists, filepath.Join(rd, e.Name()))
			}
		}
	}
	require.Len(t, lists, 9, "an ALE, an EDL and an FCPXML in each reports folder")
	checkListsOnTheirDestination(t, lists, mountDir, shuttle)

	// What dit prints: dit find, dit job show's copies and proxies.
	opens("dit find --json", dit("find", "A001C", "--json"))
	opens("dit job show --proxies --json", dit("job", "show", "1", "--proxies", "--json"))
	opens("dit job show --proxies", dit("job", "show", "1", "--proxies"))
	var show struct {
		Cards []struct {
			FileList []struct {
				Copies []struct{ Path string }
			} `json:"file_list"`
		}
	}
	require.NoError(t, json.Unmarshal([]byte(dit("job", "show", "1", "--json")), &show))
	var copies []string
	for _, f := range show.Cards[0].FileList {
		for _, c := range f.Copies {
			copies = append(copies, c.Path)
		}
	}
	opens("dit job show --json's copies", strings.Join(copies, "\n"))
	copyLine := regexp.MustCompile(`(?m)^      -> (\S+)  verified$`)
	text := dit("job", "show", "1")
	var lines []string
	for _, m := range copyLine.FindAllStringSubmatch(text, -1) {
		lines = append(lines, m[1])
	}
	require.Len(t, lines, len(copies), "dit job show lists each copy:\n%s", text)
	opens("dit job show's copies", strings.Join(lines, "\n"))
	require.Contains(t, text, "Copies on array cart: mounted at "+mountDir)

	// The PDF: the card's folders and the proxies it names, whole once
	// its line breaks are taken out.
	if _, err := exec.LookPath("pdftotext"); err == nil {
		var rep struct {
			Cards []struct {
				Destinations []struct{ Path string }
				Proxies      []struct{ Path, Source string }
			}
		}
		b, err := os.ReadFile(filepath.Join(arrayReports, "dit-report_job1_Day01.json"))
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(b, &rep))
		pdf, err := exec.Command("pdftotext", "-raw", filepath.Join(arrayReports, "dit-report_job1_Day01.pdf"), "-").Output()
		require.NoError(t, err)
		flat := strings.Join(strings.Fields(string(pdf)), "")
		require.NotContains(t, flat, "array:")
		for _, d := range rep.Cards[0].Destinations {
			require.Contains(t, flat, d.Path)
		}
		require.NotEmpty(t, rep.Cards[0].Proxies)
		for _, p := range rep.Cards[0].Proxies {
			require.Contains(t, flat, p.Path)
			require.True(t, strings.HasPrefix(p.Source, mountDir+string(filepath.Separator)), "a proxy made from the array's copy: %s", p.Source)
		}
	}
	require.Greater(t, opened, 50, "paths opened")
}

// checkListsOnTheirDestination: each ALE in the array or on the shuttle
// names, for every clip, its copy and its proxy on that same destination
// (the shuttle's relink to the shuttle); dit report's (written to out)
// names the first destination's, the array's.
func checkListsOnTheirDestination(t *testing.T, lists []string, mountDir, shuttle string) {
	t.Helper()
	for _, p := range lists {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		on, other := mountDir, shuttle
		if strings.HasPrefix(p, shuttle+string(filepath.Separator)) {
			on, other = shuttle, mountDir
		}
		require.NotContains(t, string(b), other+string(filepath.Separator), "%s names the other destination", p)
		if filepath.Ext(p) != ".ale" {
			continue
		}
		_, cols, rows, err := ale.Read(bytes.NewReader(b))
		require.NoError(t, err, p)
		require.NotEmpty(t, rows, p)
		src, px := slices.Index(cols, "Source File"), slices.Index(cols, "Proxy File")
		for _, row := range rows {
			require.True(t, strings.HasPrefix(row[src], filepath.Join(on, "Day01", "A001")+string(filepath.Separator)), "%s: %s", p, row[src])
			require.True(t, strings.HasPrefix(row[px], filepath.Join(on, "proxies", "Day01", "A001")+string(filepath.Separator)), "%s: %s", p, row[px])
			require.Equal(t, strings.TrimSuffix(filepath.Base(row[src]), filepath.Ext(row[src])),
				strings.TrimSuffix(filepath.Base(row[px]), filepath.Ext(row[px])), "a proxy named after its clip")
		}
	}
}

// summaryLine is the summary line of dit offload --json's events.
func summaryLine(t *testing.T, events string) string {
	t.Helper()
	for _, l := range strings.Split(events, "\n") {
		var e struct{ Type string }
		if json.Unmarshal([]byte(l), &e) == nil && e.Type == "summary" {
			return l
		}
	}
	t.Fatalf("no summary line in dit offload --json:\n%s", events)
	return ""
}

// summaryNamesTheArray: the job's summary (JSON: dit offload's or dit job
// show's) names the card's folder in the array below dir (the mount
// point, or the mount place: a prefix) and names the array beside it:
// its UUID, array:BLADE//Day01/A001 for dit's commands, whether it is
// mounted and, when not, the command that mounts it; a cascade's second
// run read the same path; the shuttle's folder has no array's fields.
func summaryNamesTheArray(t *testing.T, js, dir, blade string, mounted bool) {
	t.Helper()
	var raw struct {
		Cards []struct {
			Destinations []map[string]any `json:"destinations"`
			Then         struct {
				Source       string           `json:"source"`
				Destinations []map[string]any `json:"destinations"`
			} `json:"then"`
		} `json:"cards"`
	}
	require.NoError(t, json.Unmarshal([]byte(js), &raw))
	require.Len(t, raw.Cards, 1)
	c := raw.Cards[0]
	require.Len(t, c.Destinations, 1)
	d := c.Destinations[0]
	p, _ := d["path"].(string)
	require.True(t, strings.HasPrefix(p, dir), "%s below %s", p, dir)
	require.True(t, strings.HasSuffix(p, string(filepath.Separator)+filepath.Join("Day01", "A001")), p)
	require.NotContains(t, p, "//")
	require.Equal(t, p, c.Then.Source, "the second run read the array's copy")
	require.NotEmpty(t, d["array_uuid"])
	require.Equal(t, "array:"+blade+"//Day01/A001", d["array_path"])
	require.Equal(t, mounted, d["array_mounted"])
	if mounted {
		require.NotContains(t, d, "mount_command")
	} else {
		require.Equal(t, "dit array mount "+blade, d["mount_command"])
	}
	require.Len(t, c.Then.Destinations, 1)
	require.NotContains(t, c.Then.Destinations[0], "array_path", "the shuttle is a folder")
}
