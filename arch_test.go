package dit

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/dit-org/dit/"

// fyne is split so that a grep for the import finds only real ones.
const fyne = "fyne" + ".io"

// An importRule says what the packages under from (module-relative path
// prefixes, minus except) may not import: nothing under forbid, nothing
// of forbidExact (that package itself, not those below it), and, when
// only is set, nothing of dit outside only. Paths of other modules are
// matched whole (e.g. fyne.io). With prodOnly the rule holds for the
// packages' own code, not their tests.
type importRule struct {
	from, except []string
	forbid, only []string
	forbidExact  []string
	prodOnly     bool
	why          string
}

// testMark starts an import of a package's tests in an import graph.
const testMark = "test:"

// layering is dit's package rules (docs/design.md describes the layers).
var layering = []importRule{
	{
		from:   []string{""},
		except: []string{"ui", "cmd/dit-gui"},
		forbid: []string{fyne},
		why:    "only ui/ and cmd/dit-gui import fyne",
	},
	{
		from:   []string{""},
		except: []string{"cmd", "ui"},
		forbid: []string{"cmd", "ui"},
		why:    "nothing outside cmd/ imports a front end (cmd/, ui/)",
	},
	{
		// The composition layer (internal/assembly) attaches the
		// reports to a job, so it alone under internal/ may import them.
		from:   []string{"internal", "raid"},
		except: []string{"internal/assembly"},
		forbid: []string{"reports"},
		why:    "the core (internal/, raid/) imports no report (reports/)",
	},
	{
		// dit watch and dit serve are front ends that live under internal/.
		from:   []string{""},
		except: []string{"cmd", "ui", "internal/watch", "internal/serve"},
		forbid: []string{"internal/watch", "internal/serve"},
		why:    "only front ends import internal/watch and internal/serve",
	},
	{
		from:   []string{"internal", "raid", "reports"},
		except: []string{"internal/assembly", "internal/watch", "internal/serve"},
		forbid: []string{"internal/assembly"},
		why:    "the core does not import the composition layer (internal/assembly)",
	},
	{
		// The format libraries sit on the floor below the engine. Besides
		// each other they use the hash encodings, the filesystem interface
		// (ascmhl.FSStore: a history on an array) and the crash tests'
		// named steps: leaf packages that import no engine either.
		// The cloud destination drives the rclone binary: a leaf that
		// knows nothing of the engine that uses it (its tests may ask
		// internal/testneeds, a leaf that imports nothing of dit's,
		// whether they may build or start what they need), and starts
		// rclone through internal/tether (a leaf too).
		from: []string{"internal/cloud"},
		only: []string{"internal/cloud", "internal/testneeds", "internal/tether"},
		why:  "internal/cloud imports nothing of dit's outside internal/cloud but internal/tether (internal/testneeds in its tests)",
	},
	{
		// The collector's headroom is process-wide: a leaf the engine
		// tells what it holds.
		from: []string{"internal/gcgoal"},
		only: []string{"internal/gcgoal"},
		why:  "internal/gcgoal imports nothing of dit's",
	},
	{
		// Starting a child that dies with dit is a leaf concern.
		from: []string{"internal/tether"},
		only: []string{"internal/tether"},
		why:  "internal/tether imports nothing of dit's",
	},
	{
		// The engine's pipeline knows a destination through
		// internal/offload/dest (its kind, the Store interface); the
		// remote kind (rclone, S3's checksums, listings) registers
		// itself there, imported by the composition layer
		// (internal/assembly). The pipeline's tests register it too.
		from:     []string{"internal/offload"},
		except:   []string{"internal/offload/dest/remote"},
		forbid:   []string{"internal/offload/dest/remote"},
		prodOnly: true,
		why:      "the pipeline (internal/offload) does not import the remote kind (internal/offload/dest/remote)",
	},
	{
		// rclone's driver (internal/cloud) is the remote kind's: the
		// pipeline carries its settings as dest.Settings, opaque but
		// for what a job records. Its tests reach a local S3 server
		// (internal/cloud/s3test) and give the kind an rclone.
		from:     []string{"internal/offload"},
		except:   []string{"internal/offload/dest"},
		forbid:   []string{"internal/cloud"},
		prodOnly: true,
		why:      "the pipeline (internal/offload) does not import rclone's driver (internal/cloud): the remote kind (internal/offload/dest/remote) does",
	},
	{
		// The read model reads a recorded job from the catalog; it
		// knows nothing of the pipeline that wrote it. It names a copy
		// in a dit array where it opens (the array's mount point or
		// mount place: raid, raid/mountplace).
		from: []string{"internal/offload/summary"},
		only: []string{"internal/offload/summary", "internal/offload/dest", "internal/catalog", "internal/verdict", "internal/units", "raid", "raid/mountplace"},
		why:  "the read model (internal/offload/summary) imports of dit only the catalog, verdict, units, internal/offload/dest and where an array opens (raid, raid/mountplace)",
	},
	{
		// The pipeline (internal/offload itself) imports what it
		// builds on: the destinations, what earlier runs and jobs left
		// and what of it can be trusted (internal/offload/earlier), and
		// dit verify (internal/offload/recheck), which reads back what
		// a job recorded; none of them imports the pipeline.
		from:        []string{"internal/offload/cascade", "internal/offload/dest", "internal/offload/earlier", "internal/offload/recheck", "internal/offload/resume", "internal/offload/summary"},
		forbidExact: []string{"internal/offload"},
		why:         "the pipeline (internal/offload) imports its subpackages, never the reverse",
	},
	{
		// The pipeline's rules of a cascade's second run (what it
		// expects of the first copy, its turns) and of a resume (a
		// file's checkpoints, a kept temp proved, the recorded spec, an
		// absent card's copies) are plain logic over the catalog's
		// records, the hashes and the files: they import no pipeline,
		// no destination kind, no storage.
		from:   []string{"internal/offload/cascade", "internal/offload/resume"},
		forbid: []string{"internal/offload/dest/remote", "internal/cloud"},
		only: []string{"internal/offload/cascade", "internal/offload/resume", "internal/offload/earlier", "internal/offload/dest", "internal/offload/summary",
			"internal/catalog", "internal/hashing", "internal/fsys", "internal/source"},
		why: "the cascade's and the resume's rules (internal/offload/cascade, internal/offload/resume) import of dit only each other, earlier, dest, summary, the catalog, hashing, fsys and source",
	},
	{
		from:   []string{"internal/offload/dest"},
		except: []string{"internal/offload/dest/remote"},
		forbid: []string{"internal/cloud", "internal/offload/dest/remote"},
		why:    "the destination interface (internal/offload/dest) names no storage (internal/cloud is the remote kind's)",
	},
	{
		from: []string{"internal/format"},
		only: []string{"internal/format", "internal/hashing", "internal/fsys", "internal/crashpoint"},
		why:  "internal/format/* imports of dit only internal/format, hashing, fsys and crashpoint",
	},
}

// under reports whether path is prefix or inside it ("" is everything).
func under(path, prefix string) bool {
	return prefix == "" || path == prefix || strings.HasPrefix(path, prefix+"/")
}

func underAny(path string, prefixes []string) bool {
	for _, p := range prefixes {
		if under(path, p) {
			return true
		}
	}
	return false
}

// violations checks an import graph (package -> imports, full import
// paths) against rules and returns one line per offending import, naming
// the package, the import and the rule.
func violations(graph map[string][]string, rules []importRule) []string {
	var out []string
	for full, imports := range graph {
		pkg, ok := strings.CutPrefix(full+"/", module)
		if !ok {
			continue
		}
		pkg = strings.TrimSuffix(pkg, "/")
		for _, r := range rules {
			if !underAny(pkg, r.from) || underAny(pkg, r.except) {
				continue
			}
			for _, imp := range imports {
				imp, test := strings.CutPrefix(imp, testMark)
				if test && r.prodOnly {
					continue
				}
				rel, ours := strings.CutPrefix(imp, module)
				switch {
				case underAny(rel, r.forbid):
				case ours && slices.Contains(r.forbidExact, rel):
				case ours && r.only != nil && !underAny(rel, r.only):
				default:
					continue
				}
				out = append(out, pkg+" imports "+rel+": "+r.why)
			}
		}
	}
	sort.Strings(out)
	return out
}

// TestLayering enforces the package rules on the real import graph, tests'
// imports included (marked testMark).
func TestLayering(t *testing.T) {
	out, err := exec.Command("go", "list", "-f",
		`{{.ImportPath}} {{join .Imports " "}} | {{join .TestImports " "}} {{join .XTestImports " "}}`, "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	graph := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		prod, tests, _ := strings.Cut(line, " | ")
		f := strings.Fields(prod)
		graph[f[0]] = f[1:]
		for _, imp := range strings.Fields(tests) {
			graph[f[0]] = append(graph[f[0]], testMark+imp)
		}
	}
	if len(graph) < 20 || graph[module+"internal/offload"] == nil {
		t.Fatalf("go list found %d packages, internal/offload not among them", len(graph))
	}
	for _, v := range violations(graph, layering) {
		t.Error(v)
	}
}

// TestLayeringCatches feeds the rules a graph with one offence of each
// kind: each is named, and the allowed imports are not.
func TestLayeringCatches(t *testing.T) {
	m := func(p string) string { return module + p }
	graph := map[string][]string{
		m("internal/offload"):             {m("internal/format/ascmhl"), m("reports/jobreport"), m("internal/offload/dest/remote"), m("internal/cloud"), testMark + m("internal/cloud/s3test"), "fmt"},
		m("internal/offload/dest"):        {m("internal/cloud"), m("raid")},
		m("internal/offload/summary"):     {m("internal/offload"), m("internal/catalog")},
		m("internal/offload/x"):           {testMark + m("internal/offload/dest/remote")},
		m("internal/offload/earlier"):     {m("internal/offload"), m("internal/offload/dest"), m("internal/offload/summary")},
		m("internal/offload/recheck"):     {testMark + m("internal/offload"), m("internal/offload/earlier"), m("internal/offload/dest")},
		m("internal/offload/dest/remote"): {m("internal/cloud"), m("internal/offload/dest")},
		m("internal/offload/cascade"):     {m("internal/offload"), m("internal/offload/dest/remote"), m("internal/offload/earlier"), m("internal/catalog"), m("internal/source")},
		m("internal/offload/resume"):      {testMark + m("internal/offload"), m("internal/offload/cascade"), m("internal/hashing"), m("raid")},
		m("internal/assembly/x"):          {m("internal/offload/dest/remote")},
		m("raid"):                         {m("cmd/dit")},
		m("internal/assembly"):            {m("reports/jobreport"), m("internal/seal"), m("ui")},
		m("internal/format/mhlv1"):        {m("internal/format/ascmhl"), m("internal/hashing"), m("internal/units"), "encoding/xml"},
		m("internal/format/ascmhl"):       {m("internal/fsys"), m("internal/crashpoint"), m("internal/offload")},
		m("reports/jobreport"):            {m("internal/format/ascmhl"), fyne + "/fyne/v2"},
		m("ui"):                           {fyne + "/fyne/v2", m("ui/internal/x"), m("internal/offload")},
		m("cmd/dit"):                      {m("cmd/dit/internal/termview"), m("reports/jobreport"), m("internal/watch"), m("internal/assembly")},
		m("internal/sched"):               {m("internal/watch"), m("internal/plan")},
		m("reports/dayreport"):            {m("internal/assembly")},
		m("internal/watch"):               {m("internal/assembly"), m("internal/offload")},
		m("internal/proxies"):             {m("internal/clips"), m("internal/catalog"), m("raid"), m("reports/jobreport"), m("internal/assembly")},
		"example.org/other":               {m("cmd/dit")},
	}
	want := []string{
		"internal/assembly imports ui: nothing outside cmd/ imports a front end (cmd/, ui/)",
		"internal/format/ascmhl imports internal/offload: internal/format/* imports of dit only internal/format, hashing, fsys and crashpoint",
		"internal/format/mhlv1 imports internal/units: internal/format/* imports of dit only internal/format, hashing, fsys and crashpoint",
		"internal/offload imports internal/cloud: the pipeline (internal/offload) does not import rclone's driver (internal/cloud): the remote kind (internal/offload/dest/remote) does",
		"internal/offload imports internal/offload/dest/remote: the pipeline (internal/offload) does not import the remote kind (internal/offload/dest/remote)",
		"internal/offload imports reports/jobreport: the core (internal/, raid/) imports no report (reports/)",
		"internal/offload/cascade imports internal/offload/dest/remote: the cascade's and the resume's rules (internal/offload/cascade, internal/offload/resume) import of dit only each other, earlier, dest, summary, the catalog, hashing, fsys and source",
		"internal/offload/cascade imports internal/offload/dest/remote: the pipeline (internal/offload) does not import the remote kind (internal/offload/dest/remote)",
		"internal/offload/cascade imports internal/offload: the cascade's and the resume's rules (internal/offload/cascade, internal/offload/resume) import of dit only each other, earlier, dest, summary, the catalog, hashing, fsys and source",
		"internal/offload/cascade imports internal/offload: the pipeline (internal/offload) imports its subpackages, never the reverse",
		"internal/offload/dest imports internal/cloud: the destination interface (internal/offload/dest) names no storage (internal/cloud is the remote kind's)",
		"internal/offload/earlier imports internal/offload: the pipeline (internal/offload) imports its subpackages, never the reverse",
		"internal/offload/recheck imports internal/offload: the pipeline (internal/offload) imports its subpackages, never the reverse",
		"internal/offload/resume imports internal/offload: the cascade's and the resume's rules (internal/offload/cascade, internal/offload/resume) import of dit only each other, earlier, dest, summary, the catalog, hashing, fsys and source",
		"internal/offload/resume imports internal/offload: the pipeline (internal/offload) imports its subpackages, never the reverse",
		"internal/offload/resume imports raid: the cascade's and the resume's rules (internal/offload/cascade, internal/offload/resume) import of dit only each other, earlier, dest, summary, the catalog, hashing, fsys and source",
		"internal/offload/summary imports internal/offload: the pipeline (internal/offload) imports its subpackages, never the reverse",
		"internal/offload/summary imports internal/offload: the read model (internal/offload/summary) imports of dit only the catalog, verdict, units, internal/offload/dest and where an array opens (raid, raid/mountplace)",
		"internal/proxies imports internal/assembly: the core does not import the composition layer (internal/assembly)",
		"internal/proxies imports reports/jobreport: the core (internal/, raid/) imports no report (reports/)",
		"internal/sched imports internal/watch: only front ends import internal/watch and internal/serve",
		"raid imports cmd/dit: nothing outside cmd/ imports a front end (cmd/, ui/)",
		"reports/dayreport imports internal/assembly: the core does not import the composition layer (internal/assembly)",
		"reports/jobreport imports " + fyne + "/fyne/v2: only ui/ and cmd/dit-gui import fyne",
	}
	got := violations(graph, layering)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestFrontEndsUseTheAssembly enforces the composition layer: a front end
// (cmd/..., ui) builds its jobs through internal/assembly and never
// imports the scheduler (internal/sched) or the sealer (internal/seal,
// internal/seal) itself, so a job is put together one way for the CLI,
// dit watch and dit-gui.
//
// reports/jobreport is two things: the report of a finished job, read
// from the catalog (Build, CardClips, Formats, FormatError), which a
// front end renders on request (dit report, dit job clips, dit-gui's
// History exporting a past job's report); and the clips and reports a
// running job makes (NewClipper, Clipper, AfterJob), which belong to the
// assembly. A front end may use the first, not the second.
func TestFrontEndsUseTheAssembly(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}|{{.Dir}}|{{join .GoFiles " "}} {{join .CgoFiles " "}}|{{join .Imports " "}}`, "./cmd/...", "./ui/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const mod = "github.com/dit-org/dit/"
	banned := map[string]string{
		"internal/sched": "the scheduler", "internal/seal": "the sealer", "internal/proxies": "the proxy maker",
	}
	assemblyOnly := map[string]bool{"NewClipper": true, "Clipper": true, "AfterJob": true}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "|")
		pkg, dir, files, imports := strings.TrimPrefix(f[0], mod), f[1], strings.Fields(f[2]), strings.Fields(f[3])
		for _, imp := range imports {
			if what, ok := banned[strings.TrimPrefix(imp, mod)]; ok {
				t.Errorf("%s imports %s (%s): a front end assembles its jobs through internal/assembly", pkg, imp, what)
			}
		}
		for _, name := range files {
			file, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			local := ""
			for _, is := range file.Imports {
				if p := strings.Trim(is.Path.Value, `"`); path.Base(p) == "jobreport" && strings.HasPrefix(p, mod) {
					local = "jobreport"
					if is.Name != nil {
						local = is.Name.Name
					}
				}
			}
			if local == "" {
				continue
			}
			ast.Inspect(file, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok {
					if id, ok := sel.X.(*ast.Ident); ok && id.Name == local && assemblyOnly[sel.Sel.Name] {
						t.Errorf("%s/%s uses jobreport.%s: a running job's clips and reports are attached by internal/assembly", pkg, name, sel.Sel.Name)
					}
				}
				return true
			})
		}
	}
}
