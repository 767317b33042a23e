package dit

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"
)

// TestLayering enforces the package rules: only ui/ and cmd/dit-gui import
// fyne; nothing outside cmd/ imports cmd/ or ui/ (except ui's own main);
// only the front ends import the composition layer (internal/assembly).
func TestLayering(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}} {{join .TestImports " "}}`, "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const mod = "github.com/dit-org/dit/"
	const fyne = "fyne" + ".io/" // split so a grep for the import finds only real ones
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg, imports := strings.TrimPrefix(f[0], mod), f[1:]
		for _, imp := range imports {
			if strings.HasPrefix(imp, fyne) && !strings.HasPrefix(pkg, "ui") && pkg != "cmd/dit-gui" {
				t.Errorf("%s imports %s: only ui/ and cmd/dit-gui may import fyne", pkg, imp)
			}
			rel := strings.TrimPrefix(imp, mod)
			if rel == imp {
				continue
			}
			if !strings.HasPrefix(pkg, "cmd/") && (strings.HasPrefix(rel, "cmd/") || (strings.HasPrefix(rel, "ui") && !strings.HasPrefix(pkg, "ui"))) {
				t.Errorf("%s imports %s: core packages never import cmd/ or ui/", pkg, rel)
			}
			frontEnd := strings.HasPrefix(pkg, "cmd/") || strings.HasPrefix(pkg, "ui")
			if rel == "internal/assembly" && !frontEnd && !strings.HasPrefix(pkg, "internal/assembly") {
				t.Errorf("%s imports %s: only the front ends (cmd/, ui) use the composition layer; the core never does", pkg, rel)
			}
		}
	}
}

// TestFrontEndsUseTheAssembly enforces the composition layer: a front end
// (cmd/..., ui) builds its jobs through internal/assembly and never
// imports the scheduler (internal/sched) or the sealer (reports/seal,
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
		"internal/sched": "the scheduler", "reports/seal": "the sealer", "internal/seal": "the sealer",
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
