package dit

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLayering enforces the package rules: only ui/ and cmd/dit-gui import
// fyne; nothing outside cmd/ imports cmd/ or ui/ (except ui's own main).
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
		}
	}
}
