package plan

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/hashing"
)

const issueExample = `buses:
  - {name: usb-a, kind: usb3.2-gen2}
  - {name: tb-1, kind: tb3, parent: tb-ctrl-0}   # shared controller
  - {name: tb-ctrl-0, kind: tb3}
sources:
  - {name: A023, path: /Volumes/A023, media: cfast2, bus: usb-a}
  - {name: A024, media: cfast2, bus: usb-a}      # no path: plan only
destinations:
  - {name: raid, path: /Volumes/Blade1, bus: tb-1, write_rate: 2.2GB/s}
cpu: {cores: auto}
`

func TestParseIssueExample(t *testing.T) {
	top, err := ParseTopology("preset.yaml", []byte(issueExample))
	require.NoError(t, err)
	require.Len(t, top.Buses, 3)
	require.Equal(t, "tb-ctrl-0", top.Buses[1].Parent)
	require.Equal(t, 3, top.Buses[1].Line)
	require.Equal(t, "/Volumes/A023", top.Sources[0].Path)
	require.Empty(t, top.Sources[1].Path)
	require.Equal(t, 2.2e9, top.Destinations[0].Write)
	require.Zero(t, top.CPU.Cores, "auto")
	var names []string
	for _, b := range top.Chain("tb-1") {
		names = append(names, b.Name)
	}
	require.Equal(t, []string{"tb-1", "tb-ctrl-0"}, names)
}

func TestRatesInEveryUnit(t *testing.T) {
	top, err := ParseTopology("t.yaml", []byte(`
buses:
  - {name: a, kind: usb3.2-gen2, usable_rate: 8Gbit/s}
  - {name: b, kind: usb3.2-gen2, usable_rate: 900MB/s}
  - {name: c, kind: usb3.2-gen2, usable_rate: 1.1 GB/s}
sources:
  - {name: X, media: axs, read_rate: 250MB/s, size: 120GB}
cpu: {cores: 6, hash_rates: {md5: 650MB/s}}
`))
	require.NoError(t, err)
	require.Equal(t, 1e9, top.Buses[0].Usable)
	require.Equal(t, 0.9e9, top.Buses[1].Usable)
	require.InDelta(t, 1.1e9, top.Buses[2].Usable, 1)
	require.Equal(t, 0.25e9, top.MediaRate(0))
	require.Equal(t, int64(120e9), top.Sources[0].Size)
	require.Equal(t, 6.0, top.CPU.Cores)
	require.Equal(t, 0.65e9, top.CPU.HashRates[hashing.MD5])
	require.Equal(t, 0.65e9, top.Profiles.HashRates[hashing.MD5])
	require.Equal(t, 0.7e9, DefaultProfiles().HashRates[hashing.MD5], "the defaults are not changed")
}

func TestTopologyErrorsNameTheLine(t *testing.T) {
	for _, tc := range []struct {
		name, doc, want string
	}{
		{"unknown key", "buses:\n  - {name: a, kind: tb3}\n  - {name: b, kidn: tb3}\n",
			`t.yaml line 3: unknown key "kidn" in a bus (did you mean "kind"?); known keys: name, kind, parent, usable_rate`},
		{"unknown top key", "buses: []\nsource:\n  - {name: A}\n",
			`t.yaml line 2: unknown key "source" in the topology (did you mean "sources"?)`},
		{"unknown kind", "buses:\n  - {name: a, kind: usb3.2-gen3}\n",
			`t.yaml line 2: bus "a": unknown kind "usb3.2-gen3" (did you mean "usb3.2-gen1"?); known kinds:`},
		{"cycle", "buses:\n  - {name: a, kind: tb3, parent: b}\n  - {name: b, kind: tb3, parent: c}\n  - {name: c, kind: tb3, parent: a}\n",
			`t.yaml line 2: bus "a": the parent chain a -> b -> c -> a is a cycle`},
		{"self parent", "buses:\n  - {name: a, kind: tb3, parent: a}\n",
			`t.yaml line 2: bus "a": the parent chain a -> a is a cycle`},
		{"unknown parent", "buses:\n  - {name: a, kind: tb3, parent: ctrl}\n",
			`t.yaml line 2: bus "a": parent "ctrl" is not a bus of this topology`},
		{"source on unknown bus", "buses:\n  - {name: usb-a, kind: usb3.0}\nsources:\n  - {name: A001, media: axs, bus: usb-b}\n",
			`t.yaml line 4: source "A001" is on bus "usb-b", which is not defined (did you mean "usb-a"?); buses: usb-a`},
		{"destination on unknown bus", "destinations:\n  - {name: raid, bus: tb-9}\n",
			`t.yaml line 2: destination "raid" is on bus "tb-9", which is not defined; buses: none (add a buses: section)`},
		{"unknown media", "sources:\n  - {name: A001, media: cfast3}\n",
			`t.yaml line 2: source "A001": unknown media "cfast3" (did you mean "cfast2"?)`},
		{"bad rate", "destinations:\n  - {name: raid,\n     write_rate: 2.2 GiB/h}\n",
			`t.yaml line 3: write_rate: invalid rate "2.2 GiB/h"`},
		{"zero rate", "destinations:\n  - {name: raid, write_rate: 0GB/s}\n",
			`t.yaml line 2: write_rate must be above zero`},
		{"duplicate bus", "buses:\n  - {name: a, kind: tb3}\n  - {name: a, kind: tb3}\n",
			`t.yaml line 3: bus "a" is defined twice (also at line 2)`},
		{"duplicate key", "buses:\n  - {name: a, kind: tb3, kind: usb2}\n",
			`t.yaml line 2: key "kind" is given twice in a bus`},
		{"not a list", "buses: {name: a}\n", `t.yaml line 1: buses must be a list`},
		{"bad raid", "destinations:\n  - {name: r, blades: 2, raid: 4}\n", `t.yaml line 2: destination r: RAID 4 needs more blades than 2`},
		{"raid 6", "destinations:\n  - {name: r, blades: 6, raid: 6}\n", `raid 6 is not supported`},
		{"bad cores", "cpu: {cores: many}\n", `t.yaml line 1: cores must be auto or a number of cores above zero, got "many"`},
		{"bad hash", "cpu: {hash_rates: {crc32: 1GB/s}}\n", `t.yaml line 1: hash_rates:`},
		{"syntax", "buses:\n  - {name: a, kind: tb3\n", `t.yaml line 1: not a valid topology file: did not find expected`},
		{"empty", "", `t.yaml: the file is empty`},
		{"bad profile", "bus_kinds:\n  - {name: usb5, raw_rate: 80Gbit/s}\n", `t.yaml line 2: bus kind "usb5" needs a usable_rate`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseTopology("t.yaml", []byte(tc.doc))
			require.Error(t, err)
			require.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestProfileOverridesAndNewKinds(t *testing.T) {
	top, err := ParseTopology("t.yaml", []byte(`
media:
  - {name: cfast2, read_rate: 0.5GB/s}
  - {name: red-mini-mag, read_rate: 0.8GB/s, reader: usb3.2-gen2}
bus_kinds:
  - {name: usb3.2-gen1, usable_rate: 0.45GB/s}
  - {name: tb5, title: Thunderbolt 5, raw_rate: 80Gbit/s, usable_rate: 6GB/s}
destination_kinds:
  - {name: nvme-raid-tb3, write_rate: 2.0GB/s}
buses:
  - {name: a, kind: usb3.0}
  - {name: b, kind: tb5}
sources:
  - {name: R1, media: red-mini-mag, bus: b}
  - {name: C1, media: cfast2, bus: a}
destinations:
  - {name: raid, kind: nvme-raid-tb3, bus: b}
`))
	require.NoError(t, err)
	require.Equal(t, 0.5e9, top.MediaRate(1))
	require.Equal(t, "usb3.2-gen2", top.Profiles.Media["cfast2"].Reader, "an override keeps what it does not say")
	require.Equal(t, 0.45e9, top.BusKind(&top.Buses[0]).Usable, "an alias override changes the kind")
	require.Equal(t, 0.35e9, top.BusKind(&top.Buses[0]).Device)
	require.Equal(t, 6e9, top.BusKind(&top.Buses[1]).Usable)
	d := top.Dest(0)
	require.Equal(t, 2.0e9, d.Write)
	require.Equal(t, 2.6e9, d.Read)
	require.Equal(t, 4, d.Blades)
	require.Equal(t, 0.55e9, DefaultProfiles().Media["cfast2"].Read)

	var buf bytes.Buffer
	require.NoError(t, top.Encode(&buf))
	again, err := ParseTopology("again.yaml", buf.Bytes())
	require.NoError(t, err, buf.String())
	require.Equal(t, 0.5e9, again.MediaRate(1))
	require.Equal(t, top.Sources[0].Name, again.Sources[0].Name)
	require.Equal(t, 6e9, again.BusKind(&again.Buses[1]).Usable)
}

func TestEncodeRoundTrip(t *testing.T) {
	top, err := ParseTopology("preset.yaml", []byte(issueExample+`
  # more
`))
	require.NoError(t, err)
	top.Destinations[0].Limit = 0.9e9
	top.Destinations[0].Blades = 4
	top.SetRAID(0, 4)
	top.Sources[1].Size = 256e9
	top.CPU.Cores = 8
	var buf bytes.Buffer
	require.NoError(t, top.Encode(&buf))
	again, err := ParseTopology("again.yaml", buf.Bytes())
	require.NoError(t, err, buf.String())
	strip := func(x *Topology) *Topology {
		c := x.Clone()
		for i := range c.Buses {
			c.Buses[i].Line = 0
		}
		for i := range c.Sources {
			c.Sources[i].Line = 0
		}
		for i := range c.Destinations {
			c.Destinations[i].Line = 0
		}
		c.File, c.Profiles, c.overrides = "", nil, nil
		return c
	}
	require.Equal(t, strip(top), strip(again))
	require.True(t, strings.Contains(buf.String(), "limit: 0.9GB/s"), buf.String())
	a, err := Plan(top, Options{})
	require.NoError(t, err)
	b, err := Plan(again, Options{})
	require.NoError(t, err)
	require.Equal(t, a, b)
}

// A measured volume's rates replace its kind's table rates (a dit array's
// measured data rate is what it writes after parity), a rate set in the
// topology still wins, and a scaled topology scales measurements too.
func TestMeasuredRatesReplaceTables(t *testing.T) {
	top, err := ParseTopology("set.yaml", []byte(`
buses:
  - {name: usb-a, kind: usb3.2-gen2}
  - {name: tb-1, kind: tb3}
sources:
  - {name: A001, media: cfast2, bus: usb-a}
  - {name: A002, media: cfast2, bus: usb-a, read_rate: 100MB/s}
destinations:
  - {name: raid, bus: tb-1, kind: nvme-raid4-tb3}
  - {name: shuttle, bus: usb-a, kind: ssd-usb, write_rate: 300MB/s}
`))
	if err != nil {
		t.Fatal(err)
	}
	table := top.MediaRate(0)
	top.Sources[0].Measured = &Measured{Read: 412e6}
	top.Sources[1].Measured = &Measured{Read: 412e6}
	if got := top.MediaRate(0); got != 412e6 || table == 412e6 {
		t.Errorf("A001 rate %v (table %v), want the measured 412e6", got, table)
	}
	if got := top.MediaRate(1); got != 100e6 {
		t.Errorf("A002 rate %v, want the topology's own 100e6", got)
	}
	top.Destinations[0].Measured = &Measured{Write: 1.5e9, Read: 2.4e9}
	top.Destinations[1].Measured = &Measured{Write: 0.9e9, Read: 0.9e9}
	d := top.Dest(0)
	if amp := WriteAmplification(d.Blades, d.RAID); d.Write != 1.5e9*amp || d.Read != 2.4e9 || d.BladeRate != 0 {
		t.Errorf("raid: write %v read %v blade %v (amp %v)", d.Write, d.Read, d.BladeRate, amp)
	}
	if d := top.Dest(1); d.Write != 300e6 || d.Read != 0.9e9 {
		t.Errorf("shuttle: write %v read %v, want 300e6 (set) and 0.9e9 (measured)", d.Write, d.Read)
	}
	sc := top.Scaled(0.1)
	if got := sc.MediaRate(0); got != 41.2e6 {
		t.Errorf("scaled A001 %v", got)
	}
	if top.Sources[0].Measured.Read != 412e6 {
		t.Error("Scaled changed the original's measurement")
	}
}
