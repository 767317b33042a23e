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
	"writing": true, "stalled": true, "present": true, "seal_failed": true, "skipped": true,
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

// The check itself: it finds each way a front end could read meaning
// from words (a state compared or switched on as a literal, a message
// searched for a verdict's words) and passes typed comparisons.
func TestFrontEndWordsCatches(t *testing.T) {
	src := `package x

import "strings"

func f(c card, msg string) {
	if c.State == "failed" {}              // bad: 1
	if "interrupted" != string(c.Phase) {} // bad: 2
	switch c.Type {
	case "card_done":                      // bad: 3
	case verdict.Safe:
	}
	if strings.HasPrefix(c.Verdict, "FAILED") {}        // bad: 4
	if strings.HasSuffix(c.Label, " (2nd run)") {}     // bad: 5
	if strings.Contains(msg, "NOT safe to format") {}  // bad: 6
	if c.State == verdict.Failed || c.Phase == live.Copying {}
	if c.Name == "A001" || strings.HasPrefix(c.Name, "CLIPS/") {}
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := stateWordUses(fset, f)
	if len(got) != 6 {
		t.Fatalf("found %d uses, want the 6 marked bad:\n%s", len(got), strings.Join(got, "\n"))
	}
	for i, line := range []int{6, 7, 9, 12, 13, 14} {
		if want := "x.go:" + strconv.Itoa(line) + ":"; !strings.HasPrefix(got[i], want) {
			t.Errorf("use %d: %s, want at %s", i+1, got[i], want)
		}
	}
}

// rateAllowed are the functions (file and name) of the front ends whose
// divisions by a time are no rate or estimate of a job, each with why.
var rateAllowed = map[string]string{
	"ui/chart.go rebuild": "a point's place on the chart's time axis (what fraction of the chart's span has passed)",
}

// A front end renders the live model's rates and estimates (package
// live) and computes none of its own: no quantity divided by a duration
// it measured (x / d.Seconds(), x / time.Since(t)), nor a duration
// divided by a quantity.
func TestFrontEndsComputeNoRates(t *testing.T) {
	fset := token.NewFileSet()
	var bad []string
	for _, dir := range frontEnds {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
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
			for _, u := range timeDivisions(fset, f) {
				if _, ok := rateAllowed[path+" "+u.fn]; !ok {
					bad = append(bad, u.at+" (func "+u.fn+"): divides by or into a measured time")
				}
			}
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
		t.Log("a front end renders the live model's Rate, TBPerHour and ETA (package live), never a rate or estimate of its own")
	}
}

// timeDivision is a division by or into a measured time: where (file
// and line) and in which function.
type timeDivision struct{ at, fn string }

// timeDivisions lists the divisions in f with a measured time on either
// side: a call of Seconds, Minutes, Hours, time.Since or time.Until.
func timeDivisions(fset *token.FileSet, f *ast.File) []timeDivision {
	var out []timeDivision
	timed := func(e ast.Expr) bool {
		found := false
		ast.Inspect(e, func(n ast.Node) bool {
			if c, ok := n.(*ast.CallExpr); ok {
				if sel, ok := c.Fun.(*ast.SelectorExpr); ok {
					switch sel.Sel.Name {
					case "Seconds", "Minutes", "Hours", "Since", "Until":
						found = true
					}
				}
			}
			return !found
		})
		return found
	}
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		add := func(n ast.Node) {
			p := fset.Position(n.Pos())
			out = append(out, timeDivision{at: filepath.ToSlash(p.Filename) + ":" + strconv.Itoa(p.Line), fn: fn.Name.Name})
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			if b, ok := n.(*ast.BinaryExpr); ok && b.Op == token.QUO && (timed(b.X) || timed(b.Y)) {
				add(b)
			}
			if a, ok := n.(*ast.AssignStmt); ok && a.Tok == token.QUO_ASSIGN && len(a.Rhs) == 1 && timed(a.Rhs[0]) {
				add(a)
			}
			return true
		})
	}
	return out
}

func TestFrontEndsComputeNoRatesCatches(t *testing.T) {
	src := `package x

func f(bytes int64, start time.Time, d time.Duration, j live.Job) {
	_ = float64(bytes) / time.Since(start).Seconds() // bad: 4
	_ = float64(bytes) / d.Seconds()                 // bad: 5
	left := float64(bytes) / j.Rate
	secs := d.Seconds()
	secs /= d.Hours()                                // bad: 8
	_, _ = left, secs
	_ = j.ETA.Safe.Seconds + float64(bytes)/2
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := timeDivisions(fset, f)
	if len(got) != 3 {
		t.Fatalf("found %d, want the 3 marked bad: %+v", len(got), got)
	}
	for i, line := range []int{4, 5, 8} {
		if want := (timeDivision{at: "x.go:" + strconv.Itoa(line), fn: "f"}); got[i] != want {
			t.Errorf("%d: %+v, want %+v", i+1, got[i], want)
		}
	}
}
