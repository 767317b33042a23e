package watch

import (
	"os"
	"path/filepath"
	"strings"
)

// cameraDirs are top folders camera cards carry.
var cameraDirs = map[string]string{
	"DCIM":     "a DCIM folder (stills, DNG and many cameras)",
	"PRIVATE":  "a PRIVATE folder (Sony XAVC, AVCHD)",
	"XDROOT":   "an XDROOT folder (Sony X-OCN / Venice)",
	"M4ROOT":   "an M4ROOT folder (Sony XAVC)",
	"CONTENTS": "a CONTENTS folder (Canon Cinema RAW Light / XF-AVC)",
	"CLIPS":    "a CLIPS folder",
	"CLIP":     "a CLIP folder",
}

// mediaExt are camera media files looked for in a card's first two levels.
var mediaExt = map[string]string{
	".ari": "ARRIRAW", ".arx": "ARRIRAW HDE", ".mxf": "MXF clips", ".r3d": "RED R3D", ".braw": "Blackmagic RAW",
	".crm": "Canon Cinema RAW Light", ".mov": "QuickTime clips", ".mp4": "MP4 clips", ".dng": "DNG frames",
}

// Recognize tells whether the volume at path is a camera card a watch with
// preset p offloads, and why (or why not), in words.
func Recognize(path string, p *Preset) (bool, string) {
	clean := filepath.Clean(path)
	if p != nil {
		for _, d := range append(append([]string(nil), p.Dests...), p.Then...) {
			d = filepath.Clean(d)
			if clean == d || strings.HasPrefix(d, clean+string(filepath.Separator)) || strings.HasPrefix(clean, d+string(filepath.Separator)) {
				return false, "a destination of the preset (" + d + ")"
			}
			if rd, err := filepath.EvalSymlinks(d); err == nil {
				if rc, err := filepath.EvalSymlinks(clean); err == nil && rc == rd {
					return false, "a destination of the preset (" + d + ")"
				}
			}
		}
	}
	if systemMounts[clean] {
		return false, "a system volume"
	}
	if fi, err := os.Stat(filepath.Join(clean, "dit-array")); err == nil && fi.IsDir() {
		return false, "a blade of a dit array"
	}
	if _, err := os.Lstat(filepath.Join(clean, ".dit.lock")); err == nil {
		return false, "a dit destination (it holds .dit.lock)"
	}
	ents, err := os.ReadDir(clean)
	if err != nil {
		return false, "unreadable: " + err.Error()
	}
	if p != nil {
		name := filepath.Base(clean)
		for _, pat := range p.VolumePattern {
			if ok, _ := filepath.Match(pat, name); ok {
				return true, "its name matches the preset's volume_pattern " + pat
			}
		}
	}
	for _, e := range ents {
		if why, ok := cameraDirs[strings.ToUpper(e.Name())]; ok && e.IsDir() {
			return true, why
		}
	}
	// Media files in the first two levels (ARRI, RED, Blackmagic cards
	// keep clips in a reel folder).
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if why, ok := mediaExt[strings.ToLower(filepath.Ext(e.Name()))]; ok && !e.IsDir() {
			return true, why + " at its top"
		}
		if !e.IsDir() {
			continue
		}
		sub, err := os.ReadDir(filepath.Join(clean, e.Name()))
		if err != nil {
			continue
		}
		for _, s := range sub {
			if why, ok := mediaExt[strings.ToLower(filepath.Ext(s.Name()))]; ok && !strings.HasPrefix(s.Name(), ".") {
				return true, why + " in " + e.Name()
			}
			if strings.HasSuffix(strings.ToUpper(s.Name()), ".RDC") || strings.HasSuffix(strings.ToUpper(e.Name()), ".RDM") {
				return true, "RED clips"
			}
		}
	}
	return false, "not a camera card (no camera folders or media files; name not in the preset's volume_pattern)"
}
