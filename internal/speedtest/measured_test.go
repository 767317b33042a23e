package speedtest

import (
	"strings"
	"testing"
	"time"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/plan"
)

func TestApplyUsesAndNamesMeasurements(t *testing.T) {
	card, dest := t.TempDir(), t.TempDir()
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	top, err := plan.ParseTopology("set.yaml", []byte(`
buses:
  - {name: usb-a, kind: usb3.2-gen2}
  - {name: tb-1, kind: tb3}
sources:
  - {name: A001, media: cfast2, bus: usb-a, path: `+card+`}
destinations:
  - {name: shuttle, bus: tb-1, kind: ssd-usb, path: `+dest+`}
  - {name: plan-only, bus: tb-1, kind: ssd-usb}
`))
	if err != nil {
		t.Fatal(err)
	}
	cardTest := &catalog.SpeedTest{T: now.Add(-time.Hour), Read: 410e6, Link: "usb3.2-gen2"}
	destTest := &catalog.SpeedTest{T: now.Add(-40 * 24 * time.Hour), Write: 1.8e9, Read: 2e9, Sustained: 0.7e9, CliffAt: 24e9, Link: "usb3.2-gen2"}
	// The card and the folder share the temp folder's filesystem here:
	// the card is asked for any test, a destination for one that wrote.
	asked := map[string]bool{}
	latest := func(volume string, written bool) (*catalog.SpeedTest, error) {
		asked[volume] = true
		if written {
			return destTest, nil
		}
		return cardTest, nil
	}
	notes, measured := Apply(top, latest, now)
	if top.MediaRate(0) != 410e6 {
		t.Errorf("card rate %v, want the measured 410e6", top.MediaRate(0))
	}
	if d := top.Dest(0); d.Write != 0.7e9 || d.Read != 2e9 {
		t.Errorf("shuttle write %v read %v, want the sustained 0.7e9 and 2e9", d.Write, d.Read)
	}
	if !measured[card] || !measured[dest] || len(measured) != 2 || len(notes) != 2 || !asked[PathVolume(dest)] {
		t.Fatalf("measured %v, notes %q", measured, notes)
	}
	if top.Destinations[1].Measured != nil {
		t.Error("a destination with no path was given a measurement")
	}
	all := strings.Join(notes, "\n")
	for _, want := range []string{
		"A001: measured rates used (dit speedtest",
		"shuttle: measured rates used", "0.700 GB/s sustained", "after 24.0 GB",
		"WARNING: measured 40 days ago: run dit speedtest " + dest + " again",
		"WARNING: measured on usb3.2-gen2, now on tb3",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("notes lack %q:\n%s", want, all)
		}
	}
	if strings.Contains(notes[0], "WARNING") {
		t.Errorf("a fresh measurement on its own bus warns: %s", notes[0])
	}
}
