package devices

import (
	"fmt"
	"path/filepath"

	"github.com/dit-org/dit/internal/plan"
)

// Topology builds a planner topology for cards and destinations (folders)
// from discovered volumes: each link on a volume's path becomes a bus
// (hubs and controllers shared by the volumes behind them), each card a
// source with the medium told from its reader, each destination a
// destination with a kind told from its drive. Notes say what could not
// be told (the plan then leaves that rate out).
func Topology(vols []Volume, cards, dests []string) (*plan.Topology, []string, error) {
	t := &plan.Topology{File: "discovery", Profiles: plan.DefaultProfiles()}
	var notes []string
	seen := map[string]bool{}
	names := map[string]bool{}
	unique := func(p string, v *Volume) string {
		name := filepath.Base(filepath.Clean(p))
		if names[name] && v != nil && v.Label != "" {
			name = v.Label + "/" + name
		}
		for i := 2; names[name]; i++ {
			name = fmt.Sprintf("%s#%d", filepath.Base(filepath.Clean(p)), i)
		}
		names[name] = true
		return name
	}
	busOf := func(v *Volume) string {
		var first string
		for i, l := range v.Path {
			if l.Kind == "" {
				continue
			}
			if _, ok := t.Profiles.Buses[l.Kind]; !ok {
				continue
			}
			if first == "" {
				first = l.ID
			}
			if seen[l.ID] {
				continue
			}
			seen[l.ID] = true
			parent := ""
			for _, p := range v.Path[i+1:] {
				if _, ok := t.Profiles.Buses[p.Kind]; ok {
					parent = p.ID
					break
				}
			}
			t.Buses = append(t.Buses, plan.Bus{Name: l.ID, Kind: l.Kind, Parent: parent, Usable: l.Usable})
		}
		return first
	}
	for _, c := range cards {
		abs, _ := filepath.Abs(c)
		v := Find(vols, abs)
		src := plan.Source{Name: unique(c, v), Path: c}
		if v == nil {
			notes = append(notes, fmt.Sprintf("card %s: not on a volume dit can see: its reader and bus are not planned", c))
		} else {
			src.Bus = busOf(v)
			src.Media = v.Media
			if _, ok := t.Profiles.Media[v.Media]; !ok {
				src.Media = ""
				notes = append(notes, fmt.Sprintf("card %s: the medium in %s cannot be told: its read rate is not planned (describe it in a topology file: media: cfast2, axs, ...)",
					c, describeDevice(v)))
			}
		}
		t.Sources = append(t.Sources, src)
	}
	for _, d := range dests {
		if plan.IsCloud(plan.Destination{Path: d}) {
			// Written through the cart's uplink, on no bus of this
			// machine (not the volume of the working folder). Named
			// whole: the last folder of two remotes' paths is often
			// the same (rclone:s3:rushes/show, rclone:b2:backup/show).
			names[d] = true
			t.Destinations = append(t.Destinations, plan.Destination{Name: d, Path: d, Kind: plan.CloudKind})
			continue
		}
		abs, _ := filepath.Abs(d)
		v := Find(vols, abs)
		dst := plan.Destination{Name: unique(d, v), Path: d}
		if v == nil {
			notes = append(notes, fmt.Sprintf("destination %s: not on a volume dit can see", d))
		} else {
			dst.Bus = busOf(v)
			switch {
			case v.Media == "nvme-tb":
				dst.Kind = "nvme-tb"
			case v.Media == "ssd-usb" && v.Bus == "usb3.2-gen2x2":
				dst.Kind = "ssd-usb-20g"
			case v.Media == "ssd-usb":
				dst.Kind = "ssd-usb"
			default:
				notes = append(notes, fmt.Sprintf("destination %s: the write rate of %s is unknown: only its bus is planned (give write_rate in a topology file)",
					d, describeDevice(v)))
			}
		}
		t.Destinations = append(t.Destinations, dst)
	}
	if err := t.Validate(); err != nil {
		return nil, notes, err
	}
	return t, notes, nil
}

func describeDevice(v *Volume) string {
	switch {
	case v.Product != "":
		return fmt.Sprintf("%q (%s)", v.Product, v.Mount)
	case v.Label != "":
		return fmt.Sprintf("volume %s (%s)", v.Label, v.Mount)
	}
	return v.Mount
}
