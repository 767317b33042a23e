package watch

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/dit-org/dit/internal/assembly"
	"github.com/dit-org/dit/internal/cloud"
)

// Preset is what a watch offloads each card with (see the package doc for
// the file format): the job's settings, an assembly.Spec (the preset's
// job keys, the same as dit offload's flags), and the watch's own keys.
type Preset struct {
	// File is the preset file: its errors name it, its folder anchors
	// the relative paths.
	File string
	// Spec is the job's settings (destinations, then, hashes, verify,
	// limit, proxies, ...: assembly.SpecKeys), checked when the file is
	// read; JobSettings makes a job's of them.
	assembly.Spec
	// Topology is the set's topology file for the bus budget (dit plan).
	Topology string
	// VolumePattern are names of volumes taken for cards (shell globs).
	VolumePattern []string
	// Eject ejects each card once it is free.
	Eject bool
	// Notify is the preset's notify: section as YAML, for internal/notify
	// (nil when absent).
	Notify *yaml.Node
	// lines are the line of each key in File, for its errors.
	lines map[string]int
}

// WatchKeys are the keys of a preset file that are the watch's own; the
// others are the job's (assembly.SpecKeys).
var WatchKeys = []string{"topology", "volume_pattern", "eject", "notify"}

// listKeys take one value or a list: "limit: 1.5GB/s" is "limit: [1.5GB/s]".
var listKeys = []string{"destinations", "then", "ignore", "limit", "proxies_to", "volume_pattern"}

// LoadPreset reads a preset file.
func LoadPreset(path string) (*Preset, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("preset: %w", err)
	}
	return ParsePreset(path, b)
}

// ParsePreset reads a preset; file names it in errors and anchors its
// relative paths. Every value is checked as dit offload checks its flags
// (assembly.Spec.Settings): a bad one is refused naming its key and line.
func ParsePreset(file string, b []byte) (*Preset, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("preset %s: %w", file, err)
	}
	p := &Preset{File: file, lines: map[string]int{}}
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
	known := append(assembly.SpecKeys(), WatchKeys...)
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i], top.Content[i+1]
		if !slices.Contains(known, k.Value) {
			return nil, errf(k, "unknown key %q (keys: %s)", k.Value, strings.Join(slices.Sorted(slices.Values(known)), ", "))
		}
		if l, twice := p.lines[k.Value]; twice {
			return nil, errf(k, "%s is given twice (line %d too)", k.Value, l)
		}
		p.lines[k.Value] = k.Line
		if slices.Contains(listKeys, k.Value) && v.Kind == yaml.ScalarNode {
			v = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: v.Line, Column: v.Column, Content: []*yaml.Node{v}}
		}
		var err error
		switch k.Value {
		case "topology":
			err = v.Decode(&p.Topology)
		case "volume_pattern":
			err = v.Decode(&p.VolumePattern)
		case "eject":
			err = v.Decode(&p.Eject)
		case "notify":
			p.Notify = v
		default:
			// One key of the job's settings into the Spec (its other
			// fields are left as they are).
			one := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{k, v}}
			err = one.Decode(&p.Spec)
		}
		if err != nil {
			return nil, errf(v, "%s: %v", k.Value, err)
		}
	}
	if len(p.Dests) == 0 {
		return nil, fmt.Errorf("preset %s: no destinations: name at least one, e.g. destinations: [/Volumes/RAID]", file)
	}
	for _, pat := range p.VolumePattern {
		if _, err := filepath.Match(pat, ""); err != nil {
			return nil, errf(&yaml.Node{Line: p.lines["volume_pattern"]}, "volume_pattern %q: %v", pat, err)
		}
	}
	p.anchor(filepath.Dir(file))
	if _, err := p.Spec.Settings(p.Names(), nil); err != nil {
		return nil, err
	}
	return p, nil
}

// Names names the job's settings as the preset's keys, with their lines
// in the file (assembly.PresetLines): the Namer of its errors.
func (p *Preset) Names() assembly.Namer { return assembly.PresetLines(p.File, p.lines) }

// JobSettings are the settings of a job of the preset with these cards
// (assembly.Spec.Settings, a bad value named by its key and line in the
// preset), its name's {date}, {time} and {host} filled in at now. The
// front end adds the catalog, its hooks, the notifications (Notify) and
// the topology (Topology).
func (p *Preset) JobSettings(cards []string, now time.Time) (assembly.Settings, error) {
	s := p.Spec
	s.Name = JobName(s.Name, now)
	return s.Settings(p.Names(), cards)
}

// JobName is a preset's job name at now: {date} (2006-01-02), {time}
// (150405) and {host} filled in.
func JobName(name string, now time.Time) string {
	if !strings.Contains(name, "{") {
		return name
	}
	host, _ := os.Hostname()
	return strings.NewReplacer("{date}", now.Format("2006-01-02"), "{time}", now.Format("150405"), "{host}", host).Replace(name)
}

// anchor makes the preset's relative paths relative to base, its folder.
func (p *Preset) anchor(base string) {
	abs := func(s string) string {
		if s == "" || filepath.IsAbs(s) || cloud.IsDest(s) {
			return s
		}
		return filepath.Join(base, s)
	}
	for _, l := range [][]string{p.Dests, p.Then, p.ProxiesTo} {
		for i := range l {
			l[i] = abs(l[i])
		}
	}
	p.Topology = abs(p.Topology)
	p.IgnoreFile = abs(p.IgnoreFile)
	p.RcloneConfig = abs(p.RcloneConfig)
}
