package speedtest

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/plan"
	"github.com/dit-org/dit/internal/units"
	"github.com/dit-org/dit/raid"
)

// StaleAfter is the age past which a measurement is said to be old: a
// blade fills up (its SLC cache shrinks), wears, or moves to another port.
const StaleAfter = 30 * 24 * time.Hour

// Record is the catalog row of a result; link is the bus the volume is on
// (devices: "usb3.2-gen2"), station the machine's name.
func Record(r *Result, station, link string) *catalog.SpeedTest {
	s := &catalog.SpeedTest{Volume: r.Volume, Kind: string(r.Kind), Path: r.Path, T: r.Started, Station: station, Link: link,
		Size: r.Size, Block: r.Block, Streams: r.Streams, Direct: true}
	if r.Write != nil {
		s.Write, s.Direct = r.Write.Rate, r.Write.Direct
		if c := r.Write.Cliff; c != nil {
			s.Sustained, s.CliffAt = c.After, c.At
		}
	}
	if r.Read != nil {
		s.Read, s.Direct = r.Read.Rate, s.Direct && r.Read.Direct
	}
	if b, err := json.Marshal(r); err == nil {
		s.Detail = string(b)
	}
	return s
}

// PathVolume is the volume id a card or destination path is measured
// under: a dit array's UUID for a blade, else VolumeID.
func PathVolume(p string) string {
	if raid.IsBlade(p) {
		if id, err := raid.ArrayUUID(p); err == nil {
			return "array:" + id
		}
	}
	id, _ := VolumeID(p)
	return id
}

// Apply puts the latest measurement of each card's and destination's
// volume (those with a path) into t, in place of the table rates (for a
// destination, the latest test that wrote to it), and says in notes which
// it used and which look old or were taken on another bus; measured lists
// the paths it measured. latest is the catalog's LatestSpeedTest.
func Apply(t *plan.Topology, latest func(volume string, written bool) (*catalog.SpeedTest, error), now time.Time) (notes []string, measured map[string]bool) {
	measured = map[string]bool{}
	use := func(name, path, bus string, written bool) *plan.Measured {
		if path == "" {
			return nil
		}
		st, err := latest(PathVolume(path), written)
		if err != nil || st == nil {
			return nil
		}
		m := &plan.Measured{Read: st.Read, Write: st.Write, When: st.T, Link: st.Link}
		what := fmt.Sprintf("read %s", units.FormatRate(st.Read))
		if st.Write > 0 {
			what = fmt.Sprintf("write %s, %s", units.FormatRate(st.Write), what)
		}
		if st.Sustained > 0 {
			m.Write = st.Sustained
			what = fmt.Sprintf("write %s sustained (%s until a cache ran out after %s), read %s", units.FormatRate(st.Sustained),
				units.FormatRate(st.Write), units.FormatBytes(st.CliffAt), units.FormatRate(st.Read))
		}
		note := fmt.Sprintf("%s: measured rates used (dit speedtest %s: %s)", name, st.T.Local().Format("2006-01-02 15:04"), what)
		if age := now.Sub(st.T); age > StaleAfter {
			note += fmt.Sprintf("; WARNING: measured %d days ago: run dit speedtest %s again", int(age.Hours()/24), path)
		}
		if bk := busKind(t, bus); st.Link != "" && bk != "" && bk != st.Link {
			note += fmt.Sprintf("; WARNING: measured on %s, now on %s: run dit speedtest %s again", st.Link, bk, path)
		}
		notes = append(notes, note)
		measured[path] = true
		return m
	}
	for i := range t.Sources {
		s := &t.Sources[i]
		if m := use(s.Name, s.Path, s.Bus, false); m != nil {
			m.Write = 0 // a card is only read
			s.Measured = m
		}
	}
	for i := range t.Destinations {
		d := &t.Destinations[i]
		if m := use(d.Name, d.Path, d.Bus, true); m != nil {
			d.Measured = m
		}
	}
	return notes, measured
}

func busKind(t *plan.Topology, name string) string {
	if b := t.BusByName(name); b != nil {
		return b.Kind
	}
	return ""
}
