package jobreport

import "strings"

// ShotTitle heads the list of what the camera was set to for a card's
// clips, in the HTML and PDF reports.
const ShotTitle = "Camera settings (as the clips' sidecars say them):"

// shotLines are what the camera was set to for card c's clips that say
// it, one clip a line: "C001: ISO 800, WB 5600K, lens Zeiss CP.3 50mm".
// A clip whose sidecar said none of it has no line.
func shotLines(c *Card) []string {
	var out []string
	for _, k := range c.Clips {
		var ps []string
		if k.ISO != "" {
			ps = append(ps, "ISO "+k.ISO)
		}
		if k.WhiteBalance != "" {
			ps = append(ps, "WB "+k.WhiteBalance)
		}
		if k.Lens != "" {
			ps = append(ps, "lens "+k.Lens)
		}
		if len(ps) > 0 {
			out = append(out, k.Name+": "+strings.Join(ps, ", "))
		}
	}
	return out
}

// noteList is a list under a card's clip table: its title and lines.
type noteList struct {
	title string
	lines []string
}

// clipNotes are the lists under a card's clip table: where media and
// sidecars disagreed, and what the camera was set to; a list without
// lines is left out.
func clipNotes(c *Card) []noteList {
	var out []noteList
	if ls := conflictLines(c); len(ls) > 0 {
		out = append(out, noteList{ConflictsTitle, ls})
	}
	if ls := shotLines(c); len(ls) > 0 {
		out = append(out, noteList{ShotTitle, ls})
	}
	return out
}
