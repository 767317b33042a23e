package plan

import (
	_ "embed"
	"fmt"
	"sort"

	"go.yaml.in/yaml/v3"

	"github.com/dit-org/dit/internal/hashing"
)

//go:embed profiles.yaml
var defaultProfilesYAML []byte

// Media is a camera medium in its usual reader.
type Media struct {
	Name string
	// Read is the sustained read rate in bytes/s.
	Read float64
	// Reader is the bus kind of its usual reader (used for what-if cards
	// on buses of their own).
	Reader string
}

// BusKind is a kind of link: its raw signalling rate, what it carries in
// practice, and what one device gets.
type BusKind struct {
	Name    string
	Title   string // for people: "USB 3.2 Gen 2 (10 Gbit/s)"
	Aliases []string
	Raw     float64 // bytes/s on the wire
	Usable  float64 // bytes/s of data, shared by everything on the bus (per direction)
	Device  float64 // bytes/s one device gets at most (0: Usable)
	// HalfDuplex buses share one budget between reads and writes.
	HalfDuplex bool
}

// DestKind is a kind of destination volume.
type DestKind struct {
	Name      string
	Write     float64 // bytes/s the blades take together (parity included)
	Read      float64 // bytes/s read back
	Blades    int     // SSDs or disks striped together (0 or 1: a single drive)
	RAID      int     // 0, 1, 4 or 5 (with Blades >= 2)
	BladeRate float64 // bytes/s one blade writes at most (0: no cap)
}

// Profiles are the planning figures: media, bus kinds, destination kinds
// and per-core hash speeds. DefaultProfiles gives dit's defaults
// (profiles.yaml, with the source of each figure); a topology file can
// override any of them.
type Profiles struct {
	Media map[string]Media
	Buses map[string]BusKind // by name and by alias
	Dests map[string]DestKind
	// HashRates are single-core hash speeds in bytes/s.
	HashRates map[hashing.Algo]float64
}

// DefaultProfiles returns a fresh copy of dit's defaults.
func DefaultProfiles() *Profiles {
	p := &Profiles{Media: map[string]Media{}, Buses: map[string]BusKind{}, Dests: map[string]DestKind{},
		HashRates: map[hashing.Algo]float64{}}
	var root yaml.Node
	if err := yaml.Unmarshal(defaultProfilesYAML, &root); err != nil {
		panic("plan: profiles.yaml: " + err.Error())
	}
	if err := p.merge(reader{file: "profiles.yaml"}, root.Content[0], "media", "bus_kinds", "destination_kinds", "hash_rates"); err != nil {
		panic("plan: " + err.Error())
	}
	return p
}

// Clone returns a deep copy.
func (p *Profiles) Clone() *Profiles {
	q := &Profiles{Media: map[string]Media{}, Buses: map[string]BusKind{}, Dests: map[string]DestKind{},
		HashRates: map[hashing.Algo]float64{}}
	for k, v := range p.Media {
		q.Media[k] = v
	}
	for k, v := range p.Buses {
		q.Buses[k] = v
	}
	for k, v := range p.Dests {
		q.Dests[k] = v
	}
	for k, v := range p.HashRates {
		q.HashRates[k] = v
	}
	return q
}

// MediaNames lists the media names, sorted.
func (p *Profiles) MediaNames() []string { return sortedKeys(p.Media) }

// BusKindNames lists the bus kind names and aliases, sorted.
func (p *Profiles) BusKindNames() []string { return sortedKeys(p.Buses) }

// DestKindNames lists the destination kind names, sorted.
func (p *Profiles) DestKindNames() []string { return sortedKeys(p.Dests) }

// merge reads the profile sections present in mapping m (only the keys
// listed in sections are looked at; the caller checks the others).
func (p *Profiles) merge(r reader, m *yaml.Node, sections ...string) error {
	f := map[string]*yaml.Node{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if contains(sections, m.Content[i].Value) {
			f[m.Content[i].Value] = m.Content[i+1]
		}
	}
	steps := []struct {
		section string
		merge   func(reader, *yaml.Node) error
	}{
		{"media", p.mergeMedium},
		{"bus_kinds", p.mergeBusKind},
		{"destination_kinds", p.mergeDestKind},
	}
	for _, st := range steps {
		items, err := r.seq(f[st.section], st.section)
		if err != nil {
			return err
		}
		for _, n := range items {
			if err := st.merge(r, n); err != nil {
				return err
			}
		}
	}
	if h := f["hash_rates"]; h != nil {
		if err := p.mergeHashRates(r, h); err != nil {
			return err
		}
	}
	return nil
}

// mergeMedium adds or overrides one medium (an override keeps the
// read_rate and reader it does not give).
func (p *Profiles) mergeMedium(r reader, n *yaml.Node) error {
	v, err := r.fields(n, "a medium", "name", "read_rate", "reader")
	if err != nil {
		return err
	}
	var md Media
	if md.Name, err = r.str(v["name"], "name"); err != nil {
		return err
	}
	if md.Name == "" {
		return r.errf(n, "a medium needs a name")
	}
	old := p.Media[md.Name]
	if md.Read, err = r.rate(v["read_rate"], "read_rate"); err != nil {
		return err
	}
	if md.Read == 0 {
		md.Read = old.Read
	}
	if md.Read == 0 {
		return r.errf(n, "medium %q needs a read_rate such as 0.55GB/s", md.Name)
	}
	if md.Reader, err = r.str(v["reader"], "reader"); err != nil {
		return err
	}
	if md.Reader == "" {
		md.Reader = old.Reader
	}
	p.Media[md.Name] = md
	return nil
}

// mergeBusKind adds or overrides one bus kind, under its name and each
// alias.
func (p *Profiles) mergeBusKind(r reader, n *yaml.Node) error {
	v, err := r.fields(n, "a bus kind", "name", "title", "aliases", "raw_rate", "usable_rate", "device_rate", "half_duplex")
	if err != nil {
		return err
	}
	var k BusKind
	if k.Name, err = r.str(v["name"], "name"); err != nil {
		return err
	}
	if k.Name == "" {
		return r.errf(n, "a bus kind needs a name")
	}
	old := p.Buses[k.Name]
	if k.Title, err = r.str(v["title"], "title"); err != nil {
		return err
	}
	if k.Aliases, err = r.strings(v["aliases"], "aliases"); err != nil {
		return err
	}
	if k.Raw, err = r.rate(v["raw_rate"], "raw_rate"); err != nil {
		return err
	}
	if k.Usable, err = r.rate(v["usable_rate"], "usable_rate"); err != nil {
		return err
	}
	if k.Device, err = r.rate(v["device_rate"], "device_rate"); err != nil {
		return err
	}
	if k.HalfDuplex, err = r.boolean(v["half_duplex"], "half_duplex"); err != nil {
		return err
	}
	if old.Name != "" {
		// An override: keep what it does not say. An alias override
		// changes the kind it names.
		k.Name = old.Name
		if k.Title == "" {
			k.Title = old.Title
		}
		k.Aliases = append(append([]string{}, old.Aliases...), k.Aliases...)
		if k.Raw == 0 {
			k.Raw = old.Raw
		}
		if k.Usable == 0 {
			k.Usable = old.Usable
		}
		if v["device_rate"] == nil {
			k.Device = old.Device
		}
		if v["half_duplex"] == nil {
			k.HalfDuplex = old.HalfDuplex
		}
	}
	if k.Usable == 0 {
		return r.errf(n, "bus kind %q needs a usable_rate such as 1.15GB/s", k.Name)
	}
	if k.Raw == 0 {
		k.Raw = k.Usable
	}
	if k.Title == "" {
		k.Title = k.Name
	}
	for _, name := range append([]string{k.Name}, k.Aliases...) {
		p.Buses[name] = k
	}
	return nil
}

// mergeDestKind adds or overrides one destination kind (an override
// keeps the fields it does not give).
func (p *Profiles) mergeDestKind(r reader, n *yaml.Node) error {
	v, err := r.fields(n, "a destination kind", "name", "write_rate", "read_rate", "blades", "raid", "blade_rate")
	if err != nil {
		return err
	}
	var d DestKind
	if d.Name, err = r.str(v["name"], "name"); err != nil {
		return err
	}
	if d.Name == "" {
		return r.errf(n, "a destination kind needs a name")
	}
	if old, ok := p.Dests[d.Name]; ok {
		d = old
	}
	if err := r.destFields(v, &d.Write, &d.Read, &d.Blades, &d.RAID, &d.BladeRate); err != nil {
		return err
	}
	if err := checkRAID(r, n, "destination kind "+d.Name, d.Blades, d.RAID); err != nil {
		return err
	}
	p.Dests[d.Name] = d
	return nil
}

func (p *Profiles) mergeHashRates(r reader, h *yaml.Node) error {
	if h.Kind != yaml.MappingNode {
		return r.errf(h, "hash_rates must be a mapping such as {md5: 0.7GB/s}, not %s", describe(h))
	}
	for i := 0; i+1 < len(h.Content); i += 2 {
		a, err := hashing.Parse(h.Content[i].Value)
		if err != nil {
			return r.errf(h.Content[i], "hash_rates: %v", err)
		}
		v, err := r.rate(h.Content[i+1], "hash_rates."+a.String())
		if err != nil {
			return err
		}
		p.HashRates[a] = v
	}
	return nil
}

// destFields reads the rate fields shared by destinations and destination
// kinds; absent keys leave the values as they are.
func (r reader) destFields(v map[string]*yaml.Node, write, read *float64, blades, raid *int, bladeRate *float64) error {
	var err error
	set := func(key string, dst *float64) {
		if err == nil && v[key] != nil {
			*dst, err = r.rate(v[key], key)
		}
	}
	set("write_rate", write)
	set("read_rate", read)
	set("blade_rate", bladeRate)
	if err == nil && v["blades"] != nil {
		*blades, err = r.integer(v["blades"], "blades")
	}
	if err == nil && v["raid"] != nil {
		*raid, err = r.integer(v["raid"], "raid")
	}
	return err
}

func checkRAID(r reader, n *yaml.Node, what string, blades, raid int) error {
	switch raid {
	case 0:
	case 1, 4, 5:
		if blades < 2 || (raid != 1 && blades < 3) {
			return r.errf(n, "%s: RAID %d needs more blades than %d", what, raid, blades)
		}
	default:
		return r.errf(n, "%s: raid %d is not supported: use 0, 1, 4 or 5", what, raid)
	}
	return nil
}

// WriteAmplification is the bytes the blades write per byte of data: 1
// for a single drive or RAID 0, the blade count for RAID 1, (k+1)/k for
// RAID 4 or 5 over k+1 blades.
func WriteAmplification(blades, raid int) float64 {
	switch {
	case raid == 1 && blades >= 2:
		return float64(blades)
	case (raid == 4 || raid == 5) && blades >= 3:
		return float64(blades) / float64(blades-1)
	}
	return 1
}

// bladeShare is the fraction of each byte of data one blade writes.
func bladeShare(blades, raid int) float64 {
	if blades < 1 {
		return 1
	}
	return WriteAmplification(blades, raid) / float64(blades)
}

// hashRate returns the single-core speed of a, or an error naming it.
func (p *Profiles) hashRate(a hashing.Algo) (float64, error) {
	if v := p.HashRates[a]; v > 0 {
		return v, nil
	}
	return 0, fmt.Errorf("no hash speed known for %s: add it under cpu.hash_rates", a)
}

func sortedAlgos(m map[hashing.Algo]float64) []hashing.Algo {
	var out []hashing.Algo
	for a := range m {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
