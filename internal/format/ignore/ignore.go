package ignore

import (
	"regexp"
	"strings"
)

// Matcher matches paths against ignore patterns (gitignore syntax, see the
// ASC MHL specification's Appendix C): "*", "?", "[...]", "**", a leading
// "/" or a slash inside anchoring the pattern to the scope's root, a
// trailing "/" matching folders only, "!" re-including, "\" escaping. As
// in git, a path inside an ignored folder is ignored whatever later
// patterns say. A nil *Matcher ignores nothing.
type Matcher struct {
	patterns []string
	rules    []ignoreRule
}

type ignoreRule struct {
	re      *regexp.Regexp
	negate  bool
	dirOnly bool
	base    bool // no slash: matches the last element at any depth
}

// New compiles patterns; blank lines and "#" comments are skipped, and a
// pattern that cannot be understood is skipped too (it then ignores
// nothing).
func New(patterns []string) *Matcher {
	ig := &Matcher{patterns: append([]string(nil), patterns...)}
	for _, p := range patterns {
		if r, ok := compile(p); ok {
			ig.rules = append(ig.rules, r)
		}
	}
	return ig
}

// Patterns returns the patterns as given.
func (ig *Matcher) Patterns() []string { return append([]string(nil), ig.patterns...) }

// Match reports whether rel (a relative slash path; a folder when dir is
// true) is ignored, itself or through a folder it is in.
func (ig *Matcher) Match(rel string, dir bool) bool {
	if ig == nil || len(ig.rules) == 0 {
		return false
	}
	parts := strings.Split(rel, "/")
	for k := 1; k <= len(parts); k++ {
		isDir := k < len(parts) || dir
		if ig.matchOne(strings.Join(parts[:k], "/"), parts[k-1], isDir) {
			return true
		}
	}
	return false
}

func (ig *Matcher) matchOne(p, base string, dir bool) bool {
	ignored := false
	for _, r := range ig.rules {
		if r.dirOnly && !dir {
			continue
		}
		s := p
		if r.base {
			s = base
		}
		if r.re.MatchString(s) {
			ignored = !r.negate
		}
	}
	return ignored
}

func compile(p string) (ignoreRule, bool) {
	var r ignoreRule
	// Trailing spaces are dropped unless escaped.
	for strings.HasSuffix(p, " ") && !strings.HasSuffix(p, "\\ ") {
		p = p[:len(p)-1]
	}
	if p == "" || p[0] == '#' {
		return r, false
	}
	if p[0] == '!' {
		r.negate, p = true, p[1:]
	} else if strings.HasPrefix(p, "\\!") || strings.HasPrefix(p, "\\#") {
		p = p[1:]
	}
	if strings.HasSuffix(p, "/") {
		r.dirOnly, p = true, strings.TrimRight(p, "/")
	}
	if p == "" {
		return r, false
	}
	if strings.Contains(p, "/") {
		p = strings.TrimPrefix(p, "/")
	} else {
		r.base = true
	}
	re, err := regexp.Compile("^" + globToRegexp(p) + "$")
	if err != nil {
		return r, false
	}
	r.re = re
	return r, true
}

// globToRegexp translates one gitignore pattern (without its anchor and
// trailing slash) into a regular expression over slash paths.
func globToRegexp(p string) string {
	var b strings.Builder
	b.WriteString("(?s)")
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '*' && strings.HasPrefix(p[i:], "**"):
			atStart := i == 0 || p[i-1] == '/'
			j := i + 2
			switch {
			case atStart && j < len(p) && p[j] == '/': // "**/": zero or more folders
				b.WriteString("(?:.*/)?")
				i = j
			case atStart && j == len(p): // trailing "/**" or a lone "**": everything
				b.WriteString(".*")
				i = j - 1
			default: // other runs of asterisks are a plain "*"
				b.WriteString("[^/]*")
				for i+1 < len(p) && p[i+1] == '*' {
					i++
				}
			}
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		case c == '[':
			end := strings.IndexByte(p[i+1:], ']')
			if end < 0 {
				b.WriteString(`\[`)
				continue
			}
			class := p[i+1 : i+1+end]
			if end == 0 { // "[]...]": a literal ] first
				end2 := strings.IndexByte(p[i+2:], ']')
				if end2 < 0 {
					b.WriteString(`\[`)
					continue
				}
				class = p[i+1 : i+2+end2]
				end = end2 + 1
			}
			neg := strings.HasPrefix(class, "!") || strings.HasPrefix(class, "^")
			if neg {
				class = class[1:]
			}
			b.WriteByte('[')
			if neg {
				b.WriteByte('^')
			}
			for k := 0; k < len(class); k++ {
				ch := class[k]
				if ch == '\\' && k+1 < len(class) {
					k++
					ch = class[k]
					b.WriteString(regexp.QuoteMeta(string(ch)))
					continue
				}
				if ch == '-' {
					b.WriteByte('-')
					continue
				}
				if strings.IndexByte(`\]^[`, ch) >= 0 {
					b.WriteByte('\\')
				}
				b.WriteByte(ch)
			}
			if neg {
				b.WriteString("/")
			}
			b.WriteByte(']')
			i += end + 1
		case c == '\\' && i+1 < len(p):
			i++
			b.WriteString(regexp.QuoteMeta(p[i : i+1]))
		default:
			b.WriteString(regexp.QuoteMeta(p[i : i+1]))
		}
	}
	return b.String()
}

// Escape turns a file name into a pattern that matches exactly that name
// at any depth.
func Escape(name string) string {
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		c := name[i]
		if strings.IndexByte(`\*?[]`, c) >= 0 || (i == 0 && (c == '!' || c == '#')) || (c == ' ' && i == len(name)-1) {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String()
}
