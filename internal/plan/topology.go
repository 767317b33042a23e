package plan

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/dit-org/dit/internal/hashing"
)

// Bus is one link in a topology: a port, a hub, a controller. A bus with a
// parent shares the parent's budget with its siblings.
type Bus struct {
	Name   string
	Kind   string
	Parent string
	// Usable overrides the kind's usable rate (bytes/s; 0: the kind's).
	Usable float64
	Line   int
}

// Source is a card in its reader.
type Source struct {
	Name  string
	Path  string // empty: for planning only
	Media string // a media profile name; empty: unknown
	Bus   string // empty: not on a known bus
	// Read overrides the medium's read rate (bytes/s).
	Read float64
	// Size is the bytes to copy (0: unknown), for ETAs.
	Size int64
	Line int
	// LastFile is what is left to read back of the card when its copy
	// ends (0: unknown; internal/sched.LeftToReadBack: about its last
	// large file): it is verified when that is read back.
	LastFile int64
	// From is set by the planner on a cascade's second run of a card: the
	// name of the destination whose first copy it reads (Bus and Read are
	// that destination's); it writes the destinations of run 2.
	From string
	// Measured is what a speed test of the card's volume found (its Read
	// replaces the medium's table rate unless Read is set above).
	Measured *Measured
	// Files is the number of files to copy (0: unknown): a card whose
	// count is known is planned with its destinations' per-file and
	// fixed costs (Costs), one known by its size alone by its bytes.
	Files int
	// Copying is set by the scheduler's re-plans on a card whose copy
	// has begun: its start cost is paid.
	Copying bool
}

// Destination is a volume every card is copied to.
type Destination struct {
	Name string
	Path string // empty: for planning only
	Bus  string
	Kind string // a destination kind; empty: only the fields below
	// Write, Read, Blades, RAID and BladeRate override the kind's.
	Write, Read float64
	Blades      int
	RAID        int
	BladeRate   float64
	// Limit caps the data written per second (e.g. to keep headroom for
	// playback; dit offload --limit).
	Limit float64
	// Run is 2 for a cascade's second-run destination (dit offload
	// --then; topology key run: 2): written from the first copy on the
	// first run-1 destination once each card is free. 0 or 1: run 1.
	Run  int
	Line int
	// Measured is what a speed test of the volume found: its rates
	// replace the kind's (not Write or Read set above). A dit array's is
	// measured through its own writer (the rate of data, parity paid).
	Measured *Measured
	// CostKind is what the destination is to dit (CostFolder, CostArray;
	// a cloud remote is CostCloud), for its default costs; Costs, when
	// set, are its measured ones (internal/sched.ApplyCosts).
	CostKind string
	Costs    *Costs

	raidSet bool
}

// Measured is what dit speedtest found a volume sustains.
type Measured struct {
	// Read and Write are bytes/s (Write: the sustained rate, after a
	// cache ran out when one did; 0: not measured, as for a card).
	Read, Write float64
	When        time.Time
	// Link is the bus the volume was on when measured ("" unknown).
	Link string
}

// CPUSpec is the topology's cpu section.
type CPUSpec struct {
	Cores     float64 // 0: auto (the machine's, from the self-benchmark)
	HashRates map[hashing.Algo]float64
}

// Topology is the machine's cards, buses and destinations as a DIT draws
// them: a topology file (what the GUI saves as a preset), or built from
// discovery.
type Topology struct {
	File         string
	Profiles     *Profiles // dit's defaults with the file's overrides
	Buses        []Bus
	Sources      []Source
	Destinations []Destination
	CPU          CPUSpec
	// Upload is the cart's uplink (bytes/s, upload_rate:), shared by
	// every cloud destination (0: not given).
	Upload float64

	overrides *yaml.Node // the file's profile sections, kept for Encode
}

var topKeys = []string{"buses", "sources", "destinations", "cpu", "upload_rate", "media", "bus_kinds", "destination_kinds"}

// LoadTopology reads and checks a topology file.
func LoadTopology(path string) (*Topology, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read topology file: %w", err)
	}
	return ParseTopology(path, b)
}

// ParseTopology parses a topology file over dit's default profiles and
// checks it (see Validate). Errors name the file and line.
func ParseTopology(file string, data []byte) (*Topology, error) {
	r := reader{file: file}
	doc, err := decodeTopology(file, data)
	if err != nil {
		return nil, err
	}
	t := &Topology{File: file, Profiles: DefaultProfiles()}
	top, err := r.fields(doc, "the topology", topKeys...)
	if err != nil {
		return nil, err
	}
	if err := t.Profiles.merge(r, doc, "media", "bus_kinds", "destination_kinds"); err != nil {
		return nil, err
	}
	over := &yaml.Node{Kind: yaml.MappingNode}
	for i := 0; i+1 < len(doc.Content); i += 2 {
		if contains([]string{"media", "bus_kinds", "destination_kinds"}, doc.Content[i].Value) {
			over.Content = append(over.Content, doc.Content[i], doc.Content[i+1])
		}
	}
	if len(over.Content) > 0 {
		t.overrides = over
	}
	if t.Buses, err = readList(r, top["buses"], "buses", readBus); err != nil {
		return nil, err
	}
	if t.Sources, err = readList(r, top["sources"], "sources", readSource); err != nil {
		return nil, err
	}
	if t.Destinations, err = readList(r, top["destinations"], "destinations", readDestination); err != nil {
		return nil, err
	}
	if t.Upload, err = r.rate(top["upload_rate"], "upload_rate"); err != nil {
		return nil, err
	}
	if c := top["cpu"]; c != nil {
		if err := t.readCPU(r, c); err != nil {
			return nil, err
		}
	}
	if err := t.Validate(); err != nil {
		return nil, err
	}
	return t, nil
}

// decodeTopology parses a topology file's YAML into its document node;
// an error names the file and, when YAML says it, the line.
func decodeTopology(file string, data []byte) (*yaml.Node, error) {
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&root); err != nil {
		if err == io.EOF {
			return nil, &Error{File: file, Msg: "the file is empty: it needs buses:, sources: and destinations:"}
		}
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		var line int
		if _, perr := fmt.Sscanf(msg, "line %d:", &line); perr == nil {
			msg = strings.TrimSpace(msg[strings.Index(msg, ":")+1:])
		}
		return nil, &Error{File: file, Line: line, Msg: "not a valid topology file: " + msg}
	}
	return root.Content[0], nil
}

// readList reads the sequence n (the section key) item by item.
func readList[T any](r reader, n *yaml.Node, key string, item func(reader, *yaml.Node) (T, error)) ([]T, error) {
	items, err := r.seq(n, key)
	if err != nil {
		return nil, err
	}
	var out []T
	for _, n := range items {
		v, err := item(r, n)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// readBus reads one item of buses:.
func readBus(r reader, n *yaml.Node) (Bus, error) {
	v, err := r.fields(n, "a bus", "name", "kind", "parent", "usable_rate")
	if err != nil {
		return Bus{}, err
	}
	b := Bus{Line: n.Line}
	if b.Name, err = r.str(v["name"], "name"); err != nil {
		return Bus{}, err
	}
	if b.Kind, err = r.str(v["kind"], "kind"); err != nil {
		return Bus{}, err
	}
	if b.Parent, err = r.str(v["parent"], "parent"); err != nil {
		return Bus{}, err
	}
	if b.Usable, err = r.rate(v["usable_rate"], "usable_rate"); err != nil {
		return Bus{}, err
	}
	return b, nil
}

// readSource reads one item of sources:.
func readSource(r reader, n *yaml.Node) (Source, error) {
	v, err := r.fields(n, "a source", "name", "path", "media", "bus", "read_rate", "size", "files")
	if err != nil {
		return Source{}, err
	}
	s := Source{Line: n.Line}
	for key, dst := range map[string]*string{"name": &s.Name, "path": &s.Path, "media": &s.Media, "bus": &s.Bus} {
		if *dst, err = r.str(v[key], key); err != nil {
			return Source{}, err
		}
	}
	if s.Read, err = r.rate(v["read_rate"], "read_rate"); err != nil {
		return Source{}, err
	}
	if s.Size, err = r.size(v["size"], "size"); err != nil {
		return Source{}, err
	}
	if s.Files, err = r.integer(v["files"], "files"); err != nil {
		return Source{}, err
	}
	return s, nil
}

// readDestination reads one item of destinations:.
func readDestination(r reader, n *yaml.Node) (Destination, error) {
	v, err := r.fields(n, "a destination", "name", "path", "bus", "kind", "write_rate", "read_rate", "blades", "raid", "blade_rate", "limit", "run")
	if err != nil {
		return Destination{}, err
	}
	d := Destination{Line: n.Line}
	if run, err := r.str(v["run"], "run"); err != nil {
		return Destination{}, err
	} else if run != "" {
		if run != "1" && run != "2" {
			return Destination{}, r.errf(v["run"], "run must be 1 (the card is read) or 2 (a cascade's second run, from the first copy), got %q", run)
		}
		d.Run, _ = strconv.Atoi(run)
	}
	for key, dst := range map[string]*string{"name": &d.Name, "path": &d.Path, "bus": &d.Bus, "kind": &d.Kind} {
		if *dst, err = r.str(v[key], key); err != nil {
			return Destination{}, err
		}
	}
	if err := r.destFields(v, &d.Write, &d.Read, &d.Blades, &d.RAID, &d.BladeRate); err != nil {
		return Destination{}, err
	}
	d.raidSet = v["raid"] != nil
	if d.Limit, err = r.rate(v["limit"], "limit"); err != nil {
		return Destination{}, err
	}
	return d, nil
}

// readCPU reads cpu: its cores (auto or a number) and hash rates, which
// also override the profiles'.
func (t *Topology) readCPU(r reader, c *yaml.Node) error {
	v, err := r.fields(c, "cpu", "cores", "hash_rates")
	if err != nil {
		return err
	}
	cores, err := r.str(v["cores"], "cores")
	if err != nil {
		return err
	}
	if cores != "" && cores != "auto" {
		n, err := strconv.ParseFloat(cores, 64)
		if err != nil || n <= 0 {
			return r.errf(v["cores"], "cores must be auto or a number of cores above zero, got %q", cores)
		}
		t.CPU.Cores = n
	}
	if h := v["hash_rates"]; h != nil {
		tmp := &Profiles{HashRates: map[hashing.Algo]float64{}}
		if err := tmp.mergeHashRates(r, h); err != nil {
			return err
		}
		t.CPU.HashRates = tmp.HashRates
		for a, rate := range tmp.HashRates {
			t.Profiles.HashRates[a] = rate
		}
	}
	return nil
}

func (t *Topology) errf(line int, format string, a ...any) error {
	return &Error{File: t.File, Line: line, Msg: fmt.Sprintf(format, a...)}
}

// Validate checks names and references: unique names, known kinds and
// media, buses that exist, no cycle in the bus tree, sensible RAID
// settings. It fills in the default profiles when Profiles is nil.
func (t *Topology) Validate() error {
	if t.Profiles == nil {
		t.Profiles = DefaultProfiles()
	}
	buses := map[string]*Bus{}
	for i := range t.Buses {
		b := &t.Buses[i]
		if b.Name == "" {
			return t.errf(b.Line, "a bus needs a name")
		}
		if prev, dup := buses[b.Name]; dup {
			return t.errf(b.Line, "bus %q is defined twice%s: give each bus its own name", b.Name, alsoAt(prev.Line))
		}
		buses[b.Name] = b
		if b.Kind == "" {
			return t.errf(b.Line, "bus %q needs a kind (one of %s)", b.Name, strings.Join(t.Profiles.BusKindNames(), ", "))
		}
		if _, ok := t.Profiles.Buses[b.Kind]; !ok {
			return t.errf(b.Line, "bus %q: unknown kind %q%s; known kinds: %s (or define it under bus_kinds:)", b.Name, b.Kind,
				didYouMean(b.Kind, t.Profiles.BusKindNames()), strings.Join(t.Profiles.BusKindNames(), ", "))
		}
	}
	for i := range t.Buses {
		b := &t.Buses[i]
		if b.Parent == "" {
			continue
		}
		if _, ok := buses[b.Parent]; !ok {
			return t.errf(b.Line, "bus %q: parent %q is not a bus of this topology%s; buses: %s", b.Name, b.Parent,
				didYouMean(b.Parent, sortedKeys(buses)), strings.Join(sortedKeys(buses), ", "))
		}
		chain := []string{b.Name}
		seen := map[string]bool{b.Name: true}
		for p := b.Parent; p != ""; p = buses[p].Parent {
			chain = append(chain, p)
			if seen[p] {
				return t.errf(b.Line, "bus %q: the parent chain %s is a cycle: a bus cannot be inside itself", b.Name, strings.Join(chain, " -> "))
			}
			seen[p] = true
		}
	}
	checkBus := func(what, name, bus string, line int) error {
		if bus == "" {
			return nil
		}
		if _, ok := buses[bus]; !ok {
			return t.errf(line, "%s %q is on bus %q, which is not defined%s; buses: %s", what, name, bus,
				didYouMean(bus, sortedKeys(buses)), orNone(sortedKeys(buses)))
		}
		return nil
	}
	names := map[string]int{}
	for i := range t.Sources {
		s := &t.Sources[i]
		if s.Name == "" {
			return t.errf(s.Line, "a source needs a name (the card's label, e.g. A001)")
		}
		if prev, dup := names[s.Name]; dup {
			return t.errf(s.Line, "source %q is defined twice%s: give each card its own name", s.Name, alsoAt(prev))
		}
		names[s.Name] = s.Line
		if err := checkBus("source", s.Name, s.Bus, s.Line); err != nil {
			return err
		}
		if s.Media != "" && s.Media != "unknown" {
			if _, ok := t.Profiles.Media[s.Media]; !ok {
				return t.errf(s.Line, "source %q: unknown media %q%s; known media: %s (or define it under media:)", s.Name, s.Media,
					didYouMean(s.Media, t.Profiles.MediaNames()), strings.Join(t.Profiles.MediaNames(), ", "))
			}
		}
	}
	dnames := map[string]int{}
	for i := range t.Destinations {
		d := &t.Destinations[i]
		if d.Name == "" {
			return t.errf(d.Line, "a destination needs a name")
		}
		if prev, dup := dnames[d.Name]; dup {
			return t.errf(d.Line, "destination %q is defined twice%s: give each destination its own name", d.Name, alsoAt(prev))
		}
		dnames[d.Name] = d.Line
		if err := checkBus("destination", d.Name, d.Bus, d.Line); err != nil {
			return err
		}
		if d.Kind != "" && d.Kind != CloudKind {
			if _, ok := t.Profiles.Dests[d.Kind]; !ok {
				return t.errf(d.Line, "destination %q: unknown kind %q%s; known kinds: %s (or give write_rate and read_rate)", d.Name, d.Kind,
					didYouMean(d.Kind, t.Profiles.DestKindNames()), strings.Join(t.Profiles.DestKindNames(), ", "))
			}
		}
		e := t.Dest(i)
		if err := checkRAID(reader{file: t.File}, &yaml.Node{Line: d.Line}, "destination "+d.Name, e.Blades, e.RAID); err != nil {
			return err
		}
	}
	return t.checkUplink()
}

func alsoAt(line int) string {
	if line > 0 {
		return fmt.Sprintf(" (also at line %d)", line)
	}
	return ""
}

func didYouMean(s string, known []string) string {
	if c := closest(s, known); c != "" {
		return fmt.Sprintf(" (did you mean %q?)", c)
	}
	return ""
}

func orNone(list []string) string {
	if len(list) == 0 {
		return "none (add a buses: section)"
	}
	return strings.Join(list, ", ")
}

// BusByName returns the bus called name, or nil.
func (t *Topology) BusByName(name string) *Bus {
	for i := range t.Buses {
		if t.Buses[i].Name == name {
			return &t.Buses[i]
		}
	}
	return nil
}

// BusKind returns the kind of bus b with b's own usable override applied.
func (t *Topology) BusKind(b *Bus) BusKind {
	k := t.Profiles.Buses[b.Kind]
	if b.Usable > 0 {
		k.Usable = b.Usable
		if k.Device > k.Usable {
			k.Device = 0
		}
	}
	return k
}

// Chain returns the buses from bus name up to the root of its tree.
func (t *Topology) Chain(name string) []*Bus {
	var out []*Bus
	for b := t.BusByName(name); b != nil; b = t.BusByName(b.Parent) {
		out = append(out, b)
		if len(out) > len(t.Buses) {
			break // a cycle; Validate refuses it
		}
	}
	return out
}

// MediaRate returns source i's read rate (0: unknown).
func (t *Topology) MediaRate(i int) float64 {
	s := t.Sources[i]
	if s.Read > 0 {
		return s.Read
	}
	if m := s.Measured; m != nil && m.Read > 0 {
		return m.Read
	}
	return t.Profiles.Media[s.Media].Read
}

// Dest returns destination i with its kind's figures filled in.
func (t *Topology) Dest(i int) Destination {
	d := t.Destinations[i]
	if m := d.Measured; m != nil {
		// Measured end to end: the blades' own limit is in the figure.
		k := t.Profiles.Dests[d.Kind]
		if d.Blades == 0 {
			d.Blades = k.Blades
		}
		if !d.raidSet && d.RAID == 0 {
			d.RAID = k.RAID
		}
		if d.Write == 0 && m.Write > 0 {
			d.Write = m.Write * WriteAmplification(d.Blades, d.RAID)
		}
		if d.Read == 0 && m.Read > 0 {
			d.Read = m.Read
		}
		if d.Write == 0 {
			d.Write = k.Write
		}
		if d.Read == 0 {
			d.Read = k.Read
		}
		return d
	}
	k, ok := t.Profiles.Dests[d.Kind]
	if !ok {
		return d
	}
	if d.Write == 0 {
		d.Write = k.Write
	}
	if d.Read == 0 {
		d.Read = k.Read
	}
	if d.Blades == 0 {
		d.Blades = k.Blades
	}
	if !d.raidSet && d.RAID == 0 {
		d.RAID = k.RAID
	}
	if d.BladeRate == 0 {
		d.BladeRate = k.BladeRate
	}
	return d
}

// SetRAID sets destination i's RAID level (overriding its kind's).
func (t *Topology) SetRAID(i, level int) {
	t.Destinations[i].RAID = level
	t.Destinations[i].raidSet = true
}

// Clone returns a copy that can be changed without touching t (profiles
// are shared: they are not changed by planning).
func (t *Topology) Clone() *Topology {
	c := *t
	c.Buses = append([]Bus(nil), t.Buses...)
	c.Sources = append([]Source(nil), t.Sources...)
	c.Destinations = append([]Destination(nil), t.Destinations...)
	return &c
}

// Encode writes t as a topology file (what the GUI saves as a preset).
// Profile overrides read from a file are written back as they were.
func (t *Topology) Encode(w io.Writer) error {
	doc := &yaml.Node{Kind: yaml.MappingNode}
	add := func(key string, v *yaml.Node) {
		doc.Content = append(doc.Content, scalar(key), v)
	}
	flow := func(kv ...string) *yaml.Node {
		m := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle}
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i+1] != "" {
				m.Content = append(m.Content, scalar(kv[i]), scalar(kv[i+1]))
			}
		}
		return m
	}
	rate := func(v float64) string {
		if v == 0 {
			return ""
		}
		return FormatRate(v)
	}
	num := func(v int) string {
		if v == 0 {
			return ""
		}
		return strconv.Itoa(v)
	}
	seq := &yaml.Node{Kind: yaml.SequenceNode}
	for _, b := range t.Buses {
		seq.Content = append(seq.Content, flow("name", b.Name, "kind", b.Kind, "parent", b.Parent, "usable_rate", rate(b.Usable)))
	}
	add("buses", seq)
	seq = &yaml.Node{Kind: yaml.SequenceNode}
	for _, s := range t.Sources {
		size := ""
		if s.Size > 0 {
			size = strconv.FormatInt(s.Size, 10)
		}
		seq.Content = append(seq.Content, flow("name", s.Name, "path", s.Path, "media", s.Media, "bus", s.Bus,
			"read_rate", rate(s.Read), "size", size, "files", num(s.Files)))
	}
	add("sources", seq)
	seq = &yaml.Node{Kind: yaml.SequenceNode}
	for _, d := range t.Destinations {
		raid := num(d.RAID)
		if d.raidSet {
			raid = strconv.Itoa(d.RAID)
		}
		seq.Content = append(seq.Content, flow("name", d.Name, "path", d.Path, "bus", d.Bus, "kind", d.Kind,
			"write_rate", rate(d.Write), "read_rate", rate(d.Read), "blades", num(d.Blades), "raid", raid,
			"blade_rate", rate(d.BladeRate), "limit", rate(d.Limit), "run", num(d.Run)))
	}
	add("destinations", seq)
	if t.Upload > 0 {
		add("upload_rate", scalar(FormatRate(t.Upload)))
	}
	cores := "auto"
	if t.CPU.Cores > 0 {
		cores = strconv.FormatFloat(t.CPU.Cores, 'f', -1, 64)
	}
	cpu := flow("cores", cores)
	if len(t.CPU.HashRates) > 0 {
		h := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle}
		for _, a := range sortedAlgos(t.CPU.HashRates) {
			h.Content = append(h.Content, scalar(a.String()), scalar(FormatRate(t.CPU.HashRates[a])))
		}
		cpu.Content = append(cpu.Content, scalar("hash_rates"), h)
	}
	add("cpu", cpu)
	if t.overrides != nil {
		doc.Content = append(doc.Content, t.overrides.Content...)
	}
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return err
	}
	return enc.Close()
}

func scalar(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Value: s} }
