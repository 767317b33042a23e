package main

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// The limits: a function fits a screen, a file is read in one sitting,
// a struct's fields are held in mind at once (group them: per card, per
// destination, per phase).
const (
	maxFuncLines    = 120
	maxFileLines    = 700
	maxStructFields = 20
)

// An offender is a function, a file or a struct over its limit. Its key
// names it in the debt list: "func PATH NAME" (NAME is Recv.Method for a
// method), "file PATH" or "struct PATH NAME" (a named struct type
// declared at a file's top level), PATH slash-separated and relative to
// the folder walked. lines is its size: lines, or a struct's fields (an
// embedded one counts once).
type offender struct {
	key   string
	lines int
}

// generated is the marker of a generated file (go help generate).
var generated = regexp.MustCompile(`(?m)^// Code generated .* DO NOT EDIT\.$`)

// scan lists the offenders under dir, sorted by key.
func scan(dir string) ([]offender, error) {
	var out []offender
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != dir && (strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		found, err := scanFile(path, filepath.ToSlash(rel))
		out = append(out, found...)
		return err
	})
	sort.Slice(out, func(i, j int) bool { return out[i].key < out[j].key })
	return out, err
}

// scanFile lists the offenders of one Go file, rel its name in keys.
func scanFile(path, rel string) ([]offender, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if generated.Match(src) {
		return nil, nil
	}
	var out []offender
	if n := bytes.Count(src, []byte("\n")); n > maxFileLines {
		out = append(out, offender{"file " + rel, n})
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	for _, decl := range f.Decls {
		if gd, ok := decl.(*ast.GenDecl); ok {
			out = append(out, bigStructs(gd, rel)...)
			continue
		}
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
		if n > maxFuncLines {
			out = append(out, offender{"func " + rel + " " + funcName(fn), n})
		}
	}
	return out, nil
}

// bigStructs are the struct types declared by gd with more than
// maxStructFields fields.
func bigStructs(gd *ast.GenDecl, rel string) []offender {
	var out []offender
	for _, spec := range gd.Specs {
		ts, ok := spec.(*ast.TypeSpec)
		if !ok {
			continue
		}
		st, ok := ts.Type.(*ast.StructType)
		if !ok {
			continue
		}
		n := 0
		for _, f := range st.Fields.List {
			n += max(len(f.Names), 1)
		}
		if n > maxStructFields {
			out = append(out, offender{"struct " + rel + " " + ts.Name.Name, n})
		}
	}
	return out
}

// funcName is fn's name, with its receiver's type for a method.
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	t := fn.Recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
			continue
		case *ast.IndexExpr:
			t = x.X
			continue
		case *ast.IndexListExpr:
			t = x.X
			continue
		case *ast.Ident:
			return x.Name + "." + fn.Name.Name
		}
		return fn.Name.Name
	}
}

// formatDebt is the debt list of found, one "KEY LINES" a line.
func formatDebt(found []offender) string {
	var b strings.Builder
	b.WriteString("# The size debt: non-test functions over 120 lines, Go files over 700\n")
	b.WriteString("# lines and structs over 20 fields that were there before the limit was\n")
	b.WriteString("# checked (make lint, cmd/sizecheck). One may shrink or go; none may grow,\n")
	b.WriteString("# and none is added.\n")
	b.WriteString("# Regenerate after paying some off: go run ./cmd/sizecheck -write\n")
	for _, o := range found {
		fmt.Fprintf(&b, "%s %d\n", o.key, o.lines)
	}
	return b.String()
}

// parseDebt reads a debt list: key -> lines.
func parseDebt(text string) (map[string]int, error) {
	out := map[string]int{}
	sc := bufio.NewScanner(strings.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		lines, err := strconv.Atoi(line[i+1:])
		key := line[:max(i, 0)]
		if i < 0 || err != nil || !(strings.HasPrefix(key, "func ") || strings.HasPrefix(key, "file ") || strings.HasPrefix(key, "struct ")) {
			return nil, fmt.Errorf("line %d: want \"func PATH NAME LINES\", \"file PATH LINES\" or \"struct PATH NAME FIELDS\", got %q", n, line)
		}
		out[key] = lines
	}
	return out, sc.Err()
}

// report is found compared with the debt list.
type report struct {
	debt  []string // listed offenders, as they are now
	bad   []string // new offenders, listed ones that grew
	notes []string // listed ones that shrank or went
}

func compare(found []offender, listed map[string]int) report {
	var r report
	seen := map[string]bool{}
	for _, o := range found {
		seen[o.key] = true
		was, ok := listed[o.key]
		switch {
		case !ok:
			r.bad = append(r.bad, fmt.Sprintf("%s: %d %s (new; over the limit of %d)", o.key, o.lines, unit(o.key), limit(o.key)))
		case o.lines > was:
			r.bad = append(r.bad, fmt.Sprintf("%s: %d %s, grew from %d (listed)", o.key, o.lines, unit(o.key), was))
		default:
			r.debt = append(r.debt, fmt.Sprintf("%s: %d %s", o.key, o.lines, unit(o.key)))
			if o.lines < was {
				r.notes = append(r.notes, fmt.Sprintf("%s: %d %s, listed at %d: lower it (-write)", o.key, o.lines, unit(o.key), was))
			}
		}
	}
	var gone []string
	for k := range listed {
		if !seen[k] {
			gone = append(gone, fmt.Sprintf("%s: within its limit now (or gone): remove it from the list (-write)", k))
		}
	}
	sort.Strings(gone)
	r.notes = append(r.notes, gone...)
	return r
}

func limit(key string) int {
	switch {
	case strings.HasPrefix(key, "file "):
		return maxFileLines
	case strings.HasPrefix(key, "struct "):
		return maxStructFields
	}
	return maxFuncLines
}

// unit is what an offender's size counts.
func unit(key string) string {
	if strings.HasPrefix(key, "struct ") {
		return "fields"
	}
	return "lines"
}

func (r report) print(w io.Writer, debtFile string) {
	fmt.Fprintf(w, "size debt (%s): %d over the limits (functions %d lines, files %d, structs %d fields)\n", debtFile, len(r.debt), maxFuncLines, maxFileLines, maxStructFields)
	for _, l := range r.debt {
		fmt.Fprintln(w, "  "+l)
	}
	for _, l := range r.notes {
		fmt.Fprintln(w, "note: "+l)
	}
	for _, l := range r.bad {
		fmt.Fprintln(w, "TOO BIG: "+l)
	}
	if len(r.bad) > 0 {
		fmt.Fprintf(w, "sizecheck: %d function(s), file(s) or struct(s) too big: split them along their seams\n", len(r.bad))
	}
}
