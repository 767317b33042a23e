package plan

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/dit-org/dit/internal/units"
)

// Error is a problem in a topology or profiles file, at a line.
type Error struct {
	File string
	Line int // 0: not tied to a line (a topology built in code)
	Msg  string
}

func (e *Error) Error() string {
	switch {
	case e.File != "" && e.Line > 0:
		return fmt.Sprintf("%s line %d: %s", e.File, e.Line, e.Msg)
	case e.Line > 0:
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	case e.File != "":
		return e.File + ": " + e.Msg
	}
	return e.Msg
}

// reader walks a YAML node tree strictly: every mapping is checked against
// its known keys, every value against its type, and each error names the
// line.
type reader struct{ file string }

func (r reader) errf(n *yaml.Node, format string, a ...any) error {
	line := 0
	if n != nil {
		line = n.Line
	}
	return &Error{File: r.file, Line: line, Msg: fmt.Sprintf(format, a...)}
}

// fields returns the values of mapping n by key, refusing unknown and
// repeated keys. what names the thing for messages ("a bus").
func (r reader) fields(n *yaml.Node, what string, known ...string) (map[string]*yaml.Node, error) {
	if n.Kind != yaml.MappingNode {
		return nil, r.errf(n, "%s must be a mapping such as {%s: ...}, not %s", what, known[0], describe(n))
	}
	out := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if !contains(known, k.Value) {
			hint := ""
			if s := closest(k.Value, known); s != "" {
				hint = fmt.Sprintf(" (did you mean %q?)", s)
			}
			return nil, r.errf(k, "unknown key %q in %s%s; known keys: %s", k.Value, what, hint, strings.Join(known, ", "))
		}
		if _, dup := out[k.Value]; dup {
			return nil, r.errf(k, "key %q is given twice in %s", k.Value, what)
		}
		out[k.Value] = v
	}
	return out, nil
}

func (r reader) seq(n *yaml.Node, what string) ([]*yaml.Node, error) {
	if n == nil {
		return nil, nil
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil, nil
	}
	if n.Kind != yaml.SequenceNode {
		return nil, r.errf(n, "%s must be a list (- {...} items), not %s", what, describe(n))
	}
	return n.Content, nil
}

func (r reader) str(n *yaml.Node, key string) (string, error) {
	if n == nil {
		return "", nil
	}
	if n.Kind != yaml.ScalarNode {
		return "", r.errf(n, "%s must be a single value, not %s", key, describe(n))
	}
	if n.Tag == "!!null" {
		return "", nil
	}
	return n.Value, nil
}

func (r reader) rate(n *yaml.Node, key string) (float64, error) {
	s, err := r.str(n, key)
	if err != nil || s == "" {
		return 0, err
	}
	v, err := units.ParseRate(s)
	if err != nil {
		return 0, r.errf(n, "%s: %v", key, err)
	}
	if v <= 0 {
		return 0, r.errf(n, "%s must be above zero, got %q", key, s)
	}
	return v, nil
}

func (r reader) size(n *yaml.Node, key string) (int64, error) {
	s, err := r.str(n, key)
	if err != nil || s == "" {
		return 0, err
	}
	v, err := units.ParseBytes(s)
	if err != nil {
		return 0, r.errf(n, "%s: %v", key, err)
	}
	return v, nil
}

func (r reader) integer(n *yaml.Node, key string) (int, error) {
	s, err := r.str(n, key)
	if err != nil || s == "" {
		return 0, err
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < 0 {
		return 0, r.errf(n, "%s must be a whole number, got %q", key, s)
	}
	return v, nil
}

func (r reader) boolean(n *yaml.Node, key string) (bool, error) {
	s, err := r.str(n, key)
	if err != nil || s == "" {
		return false, err
	}
	switch strings.ToLower(s) {
	case "true", "yes":
		return true, nil
	case "false", "no":
		return false, nil
	}
	return false, r.errf(n, "%s must be true or false, got %q", key, s)
}

func (r reader) strings(n *yaml.Node, key string) ([]string, error) {
	items, err := r.seq(n, key)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, it := range items {
		s, err := r.str(it, key)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return fmt.Sprintf("%q", n.Value)
	case yaml.AliasNode:
		return "an alias"
	}
	return "nothing"
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// closest returns the known word nearest to s by edit distance, if close.
func closest(s string, known []string) string {
	best, bestD := "", 3
	for _, k := range known {
		if d := editDistance(strings.ToLower(s), strings.ToLower(k)); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := 1
			if a[i-1] == b[j-1] {
				c = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+c)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// FormatRate writes a rate the way a topology file spells it: "0.55GB/s",
// "42MB/s".
func FormatRate(v float64) string {
	if v >= 0.1e9 {
		return strconv.FormatFloat(v/1e9, 'f', -1, 64) + "GB/s"
	}
	return strconv.FormatFloat(v/1e6, 'f', -1, 64) + "MB/s"
}
