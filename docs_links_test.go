package dit

import (
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// mdLink is a Markdown link or image, [text](target) or
// ![alt](target "title"), or an HTML src= or href=.
var mdLink = regexp.MustCompile(`\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)|(?:src|href)="([^"]+)"`)

// localLinks are the repository files the Markdown text of file links to
// (relative to file's folder; fragments dropped, web addresses and fenced
// code left out), cleaned, relative to the repository root.
func localLinks(t *testing.T, file string) []string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	fenced := false
	for line := range strings.SplitSeq(string(b), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			text.WriteString(line + "\n")
		}
	}
	var out []string
	for _, m := range mdLink.FindAllStringSubmatch(text.String(), -1) {
		target := m[1] + m[2]
		if u, err := url.Parse(target); err != nil || u.Scheme != "" || u.Host != "" {
			continue
		}
		target, _, _ = strings.Cut(target, "#")
		if target == "" {
			continue // a link within the page
		}
		if p, err := url.PathUnescape(target); err == nil {
			target = p
		}
		out = append(out, filepath.Clean(filepath.Join(filepath.Dir(file), target)))
	}
	return out
}

// Every file in docs/ (pages and images) is reachable from README.md:
// linked from it, or from a page it links to, and so on; and every link
// on the way leads to a file that is there.
func TestEveryDocReachableFromReadme(t *testing.T) {
	reached := map[string]bool{"README.md": true}
	queue := []string{"README.md"}
	for len(queue) > 0 {
		page := queue[0]
		queue = queue[1:]
		for _, l := range localLinks(t, page) {
			if _, err := os.Stat(l); err != nil {
				t.Errorf("%s links to %s, which is not there", page, l)
				continue
			}
			if reached[l] {
				continue
			}
			reached[l] = true
			if strings.HasSuffix(l, ".md") {
				queue = append(queue, l)
			}
		}
	}
	var unreached []string
	err := filepath.WalkDir("docs", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if !reached[filepath.Clean(p)] {
			unreached = append(unreached, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(unreached)
	for _, p := range unreached {
		t.Errorf("%s is not reachable from README.md: link it from README.md or from a page README.md leads to", p)
	}
	if len(reached) < 10 {
		t.Fatalf("only %d files reached from README.md: the link parser is broken", len(reached))
	}
}
