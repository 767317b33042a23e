//go:build unix

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/dit-org/dit/internal/catalog"
)

// TestGeneratedJobLooksReal offloads a generated card with the real dit
// binary, then generates a job of as many files into another catalog,
// and compares the two as dit job show --json gives them: the same
// fields, the same states and verdicts, every file verified on both
// destinations; and the rows: the same columns set and left NULL.
func TestGeneratedJobLooksReal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the dit binary")
	}
	dir := t.TempDir()
	dit := filepath.Join(dir, "dit")
	if out, err := exec.Command("go", "build", "-o", dit, "../dit").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	run := func(args ...string) []byte {
		t.Helper()
		out, err := exec.Command(dit, args...).Output()
		if err != nil {
			t.Fatalf("dit %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return out
	}
	d1, d2 := filepath.Join(dir, "d1"), filepath.Join(dir, "d2")
	os.Mkdir(d1, 0o755)
	os.Mkdir(d2, 0o755)
	run("testdata", "cards", "--out", filepath.Join(dir, "cards"), "--cards", "1", "--size", "3MB", "--style", "dng", "--seed", "1")
	realDB, genDB := filepath.Join(dir, "real.db"), filepath.Join(dir, "gen.db")
	run("offload", "--db", realDB, "-d", d1, "-d", d2, "--name", "Day01", "--hash", "md5,xxh64", filepath.Join(dir, "cards", "A001"))
	var real map[string]any
	if err := json.Unmarshal(run("job", "show", "1", "--json", "--db", realDB), &real); err != nil {
		t.Fatal(err)
	}
	files := int(real["files"].(float64))

	cat, err := catalog.Open(genDB)
	if err != nil {
		t.Fatal(err)
	}
	s := Spec{Dests: [2]string{d1, d2}}
	k := genCard{label: "A001", cam: 'A', reel: 1, files: files, failAt: -1, stopAt: -1, started: time.Now()}
	if _, err := genJob(cat, s, "Day01", time.Now(), []genCard{k}, func(int) {}); err != nil {
		t.Fatal(err)
	}
	if err := cat.Close(); err != nil {
		t.Fatal(err)
	}
	var gen map[string]any
	if err := json.Unmarshal(run("job", "show", "1", "--json", "--db", genDB), &gen); err != nil {
		t.Fatal(err)
	}
	if a, b := keyPaths(real, ""), keyPaths(gen, ""); strings.Join(a, " ") != strings.Join(b, " ") {
		t.Errorf("fields differ:\nreal %v\ngen  %v", a, b)
	}
	for _, p := range []string{"state", "stored_state", "exit_code", "hashes", "verify", "layout", "runs", "files", "failed", "mhl",
		"cards.0.state", "cards.0.stored_state", "cards.0.first_run", "cards.0.safe_to_format", "cards.0.verdict", "cards.0.files",
		"cards.0.destinations.0.verified", "cards.0.destinations.1.verified", "cards.0.destinations.1.failed",
		"cards.0.file_list.0.state", "cards.0.file_list.0.copies.1.state", "cards.0.file_list.0.copies.1.verified_by"} {
		if a, b := get(real, p), get(gen, p); a != b {
			t.Errorf("%s: real %v, generated %v", p, a, b)
		}
	}
	if v := get(gen, "cards.0.destinations.1.verified"); v != float64(files) {
		t.Errorf("generated: %v of %d files verified", v, files)
	}
	for _, table := range []string{"jobs", "cards", "destinations", "files", "copies", "runs", "samples"} {
		if a, b := nullPattern(t, realDB, table), nullPattern(t, genDB, table); a != b {
			t.Errorf("%s: columns set in a real offload's row: %s; in a generated one: %s", table, a, b)
		}
	}
}

// keyPaths lists the fields of a JSON value, arrays by their first
// element, sorted.
func keyPaths(v any, prefix string) []string {
	var out []string
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			out = append(out, prefix+k)
			out = append(out, keyPaths(e, prefix+k+".")...)
		}
	case []any:
		if len(x) > 0 {
			out = keyPaths(x[0], prefix)
		}
	}
	sort.Strings(out)
	return out
}

// get is the value at a dotted path (numbers index arrays).
func get(v any, path string) any {
	for _, p := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[p]
		case []any:
			i := 0
			for _, c := range p {
				i = i*10 + int(c-'0')
			}
			if i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// nullPattern says which columns of table's first row are NULL or empty.
func nullPattern(t *testing.T, db, table string) string {
	t.Helper()
	cat, err := catalog.OpenExisting(db)
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	rows, err := cat.Query(`SELECT * FROM ` + table + ` LIMIT 1`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	if !rows.Next() {
		return "no rows"
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i, c := range cols {
		set := vals[i] != nil && vals[i] != ""
		if s, ok := vals[i].(string); ok && s == "" {
			set = false
		}
		if set {
			b.WriteString(c + " ")
		} else {
			b.WriteString("-" + c + " ")
		}
	}
	return b.String()
}
