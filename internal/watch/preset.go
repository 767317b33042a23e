package watch

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/dit-org/dit/internal/cloud"
	"github.com/dit-org/dit/internal/proxies"
	"github.com/dit-org/dit/internal/units"
)

// Preset is what a watch offloads each card with (see the package doc for
// the file format).
type Preset struct {
	File          string
	Destinations  []string
	Then          []string
	ThenParallel  int
	Hashes        string
	Verify        string
	VerifyHashes  string
	Layout        string
	Name          string
	MHL           string
	Ignore        []string
	IncludeHidden bool
	Topology      string
	VolumePattern []string
	Eject         bool
	// Limits cap the destinations' writes as dit offload --limit does:
	// "RATE" (every destination) or "DEST=RATE" (preset key limit:).
	Limits []string
	// Proxies is dit offload --proxies (PRESET[,burnin]: editorial proxies
	// of each card's clips, internal/proxies); ProxiesTo --proxies-to
	// (preset keys proxies:, proxies_to:).
	Proxies   string
	ProxiesTo []string
	// Notify is the preset's notify: section as YAML, for internal/notify
	// (nil when absent).
	Notify *yaml.Node
}

var presetKeys = map[string]bool{"destinations": true, "then": true, "then_parallel": true, "hashes": true, "verify": true,
	"verify_hashes": true, "layout": true, "name": true, "mhl": true, "ignore": true, "include_hidden": true,
	"topology": true, "volume_pattern": true, "eject": true, "notify": true, "limit": true,
	"proxies": true, "proxies_to": true}

// LoadPreset reads a preset file.
func LoadPreset(path string) (*Preset, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("preset: %w", err)
	}
	return ParsePreset(path, b)
}

// ParsePreset reads a preset; file names it in errors and anchors its
// relative paths.
func ParsePreset(file string, b []byte) (*Preset, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("preset %s: %w", file, err)
	}
	p := &Preset{File: file, Hashes: "xxh64,md5", Verify: "dest", VerifyHashes: "fastest", MHL: "asc", ThenParallel: 1}
	if len(doc.Content) == 0 {
		return nil, fmt.Errorf("preset %s is empty: it needs at least \"destinations:\"", file)
	}
	top := doc.Content[0]
	if top.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("preset %s:%d: expected keys such as \"destinations:\"", file, top.Line)
	}
	errf := func(n *yaml.Node, format string, a ...any) error {
		return fmt.Errorf("preset %s:%d: %s", file, n.Line, fmt.Sprintf(format, a...))
	}
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i], top.Content[i+1]
		if !presetKeys[k.Value] {
			var known []string
			for key := range presetKeys {
				known = append(known, key)
			}
			return nil, errf(k, "unknown key %q (keys: %s)", k.Value, strings.Join(sortStrings(known), ", "))
		}
		var err error
		switch k.Value {
		case "destinations":
			err = v.Decode(&p.Destinations)
		case "then":
			err = v.Decode(&p.Then)
		case "then_parallel":
			err = v.Decode(&p.ThenParallel)
		case "hashes":
			err = v.Decode(&p.Hashes)
		case "verify":
			err = v.Decode(&p.Verify)
		case "verify_hashes":
			err = v.Decode(&p.VerifyHashes)
		case "layout":
			err = v.Decode(&p.Layout)
		case "name":
			err = v.Decode(&p.Name)
		case "mhl":
			err = v.Decode(&p.MHL)
		case "ignore":
			err = v.Decode(&p.Ignore)
		case "include_hidden":
			err = v.Decode(&p.IncludeHidden)
		case "topology":
			err = v.Decode(&p.Topology)
		case "volume_pattern":
			if v.Kind == yaml.ScalarNode {
				p.VolumePattern = []string{v.Value}
			} else {
				err = v.Decode(&p.VolumePattern)
			}
		case "eject":
			err = v.Decode(&p.Eject)
		case "limit":
			if v.Kind == yaml.ScalarNode {
				p.Limits = []string{v.Value}
			} else {
				err = v.Decode(&p.Limits)
			}
			for _, l := range p.Limits {
				rate := l
				if i := strings.LastIndex(l, "="); i >= 0 {
					rate = l[i+1:]
				}
				if _, perr := units.ParseRate(rate); perr != nil && err == nil {
					err = fmt.Errorf("%q: give RATE or DEST=RATE, e.g. 1.5GB/s or /Volumes/RAID=1.5GB/s (%v)", l, perr)
				}
			}
		case "notify":
			p.Notify = v
		case "proxies":
			if err = v.Decode(&p.Proxies); err == nil {
				_, err = proxies.ParseSpec(p.Proxies)
			}
		case "proxies_to":
			if v.Kind == yaml.ScalarNode {
				p.ProxiesTo = []string{v.Value}
			} else {
				err = v.Decode(&p.ProxiesTo)
			}
		}
		if err != nil {
			return nil, errf(v, "%s: %v", k.Value, err)
		}
	}
	if len(p.Destinations) == 0 {
		return nil, fmt.Errorf("preset %s: no destinations: name at least one, e.g. destinations: [/Volumes/RAID]", file)
	}
	if p.ThenParallel < 1 {
		return nil, fmt.Errorf("preset %s: then_parallel %d: give 1 or more", file, p.ThenParallel)
	}
	for _, pat := range p.VolumePattern {
		if _, err := filepath.Match(pat, ""); err != nil {
			return nil, fmt.Errorf("preset %s: volume_pattern %q: %v", file, pat, err)
		}
	}
	p.anchor(filepath.Dir(file))
	return p, nil
}

// anchor makes the preset's relative paths relative to base, its folder.
func (p *Preset) anchor(base string) {
	abs := func(s string) string {
		if s == "" || filepath.IsAbs(s) || cloud.IsDest(s) {
			return s
		}
		return filepath.Join(base, s)
	}
	for _, l := range [][]string{p.Destinations, p.Then, p.ProxiesTo} {
		for i := range l {
			l[i] = abs(l[i])
		}
	}
	p.Topology = abs(p.Topology)
}

func sortStrings(s []string) []string {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return s
}
