package dit

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The front ends render the engine's typed model; they never decide a
// state by its name. frontEnds are the folders they live in.
var frontEnds = []string{"cmd/dit", "cmd/dit-gui", "ui", "internal/serve", "internal/watch", "internal/notify"}

// stateWords are the names of states, phases and events: a front end
// that compares a value to one of these as a string literal is reading
// meaning from words (it must compare typed constants: verdict.State,
// live.Phase, live.DestState, offload.EventType, offload.State*).
var stateWords = map[string]bool{
	"failed": true, "interrupted": true, "verified": true, "copied": true, "safe_to_format": true,
	"card_free": true, "queued": true, "copying": true, "verifying": true, "sealing": true,
	"done": true, "pending": true, "running": true, "finishing": true, "unverified": true,
	"writing": true, "stalled": true, "present": true,
	"job_started": true, "card_started": true, "file": true, "progress": true, "run_done": true,
	"card_done": true, "warning": true, "card_copied": true, "card_retried": true, "card_added": true,
}

// verdictWords are pieces of the sentences the engine says a verdict in:
// a front end that searches a message for them is parsing words.
var verdictWords = []string{"FAILED", "Interrupted", "interrupted", "Verified", "NOT safe", "safe to format", "(2nd run)", "Second run", "2nd run"}

// wordsAllowed are the lines where a literal of stateWords is not a
// state: a user's own input parsed into a typed value (a flag), or a
// name of something else. Each says why.
var wordsAllowed = map[string]string{}

func TestFrontEndsReadNoStateWords(t *testing.T) {
	var bad []string
	fset := token.NewFileSet()
	for _, dir := range frontEnds {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			// The end-to-end harness reads the binary's output as a test
			// does; it is not a front end.
			if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || path == "cmd/dit/internal/e2e" || path == "cmd/dit/e2e") {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				return err
			}
			bad = append(bad, stateWordUses(fset, f)...)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, b := range bad {
		t.Errorf("%s", b)
	}
	if len(bad) > 0 {
		t.Log("front ends compare typed states (verdict.State, live.Phase, offload.EventType, ...), never words; see internal/verdict and internal/live")
	}
}

// stateWordUses lists the places in f where a state is compared to a
// word or a message searched for a verdict's words.
func stateWordUses(fset *token.FileSet, f *ast.File) []string {
	var out []string
	at := func(n ast.Node, what string) {
		p := fset.Position(n.Pos())
		key := filepath.ToSlash(p.Filename) + ":" + strconv.Itoa(p.Line)
		if _, ok := wordsAllowed[key]; !ok {
			out = append(out, key+": "+what)
		}
	}
	isWord := func(e ast.Expr) (string, bool) {
		lit, ok := e.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return "", false
		}
		v, err := strconv.Unquote(lit.Value)
		return v, err == nil && stateWords[v]
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BinaryExpr:
			if n.Op != token.EQL && n.Op != token.NEQ {
				return true
			}
			for _, side := range []ast.Expr{n.X, n.Y} {
				if w, ok := isWord(side); ok {
					at(n, "compares to the word "+strconv.Quote(w))
				}
			}
		case *ast.SwitchStmt:
			if n.Tag == nil {
				return true
			}
			for _, s := range n.Body.List {
				for _, e := range s.(*ast.CaseClause).List {
					if w, ok := isWord(e); ok {
						at(e, "switches on the word "+strconv.Quote(w))
					}
				}
			}
		case *ast.CallExpr:
			sel, ok := n.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			pkg, ok := sel.X.(*ast.Ident)
			if !ok || pkg.Name != "strings" {
				return true
			}
			switch sel.Sel.Name {
			case "HasPrefix", "HasSuffix", "Contains", "Index", "TrimPrefix", "TrimSuffix", "EqualFold", "CutPrefix", "CutSuffix":
			default:
				return true
			}
			for _, a := range n.Args[1:] {
				lit, ok := a.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					continue
				}
				v, _ := strconv.Unquote(lit.Value)
				for _, w := range verdictWords {
					if strings.Contains(v, w) {
						at(n, "searches words for "+strconv.Quote(v))
						break
					}
				}
			}
		}
		return true
	})
	return out
}
