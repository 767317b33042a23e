package dest

import (
	"fmt"
	"os"
	"path"
	"strings"
	"time"
)

// ExpandLayout fills a --layout template. Placeholders: {job}, {card},
// {date} (YYYY-MM-DD of the job start), {time} (HHMMSS), {host}. The result
// is a relative slash path with no "..": the card's folder on every
// destination (DEST/<layout>).
func ExpandLayout(tmpl, job, card string, start time.Time) (string, error) {
	host, _ := os.Hostname()
	r := strings.NewReplacer("{job}", job, "{card}", card, "{date}", start.Format("2006-01-02"),
		"{time}", start.Format("150405"), "{host}", host)
	out := r.Replace(tmpl)
	if strings.ContainsAny(out, "{}") {
		return "", fmt.Errorf("invalid --layout %q: unknown placeholder (use {job}, {card}, {date}, {time}, {host})", tmpl)
	}
	if !strings.Contains(tmpl, "{card}") {
		return "", fmt.Errorf("invalid --layout %q: it must contain {card}, so that cards never land in one folder", tmpl)
	}
	clean := path.Clean(out)
	if path.IsAbs(clean) || clean == "." || clean == ".." || strings.HasPrefix(clean, "../") {
		return "", fmt.Errorf("invalid --layout %q: it must give a folder inside the destination (got %q)", tmpl, out)
	}
	for _, part := range strings.Split(clean, "/") {
		if part == ".." {
			return "", fmt.Errorf("invalid --layout %q: %q leaves the destination", tmpl, out)
		}
	}
	return clean, nil
}
