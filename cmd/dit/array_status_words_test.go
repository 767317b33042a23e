package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/dit-org/dit/raid"
)

// Bad units that parity would make up for are never said to be made up
// for while a member is not active: its blade is what parity needs.
func TestArrayStatusNeverSaysParityMakesUpWithAMemberMissing(t *testing.T) {
	st := statusOut{Label: "cart", Level: "raid4", Health: "degraded", DamagedUnits: 1,
		Damaged: []raid.DamagedFile{{Path: "A001/C001.mov", State: raid.DamageDegraded, Units: 1, Roles: []int{0}}},
		Members: []statusMember{
			{Role: 0, Kind: "data", Path: "/Volumes/B1", State: "active"},
			{Role: 1, Kind: "data", Path: "/Volumes/B2", State: "active"},
			{Role: 2, Kind: "parity", Path: "/Volumes/B3", State: "active"},
		}}
	var b bytes.Buffer
	writeArrayStatus(&b, st, "/Volumes/B1")
	if !strings.Contains(b.String(), "parity makes up for them") {
		t.Errorf("every member active:\n%s", b.String())
	}
	for _, state := range []string{"missing", "stale", "rebuilding"} {
		st.Members[2].State = state
		b.Reset()
		writeArrayStatus(&b, st, "/Volumes/B1")
		out := b.String()
		if strings.Contains(out, "parity makes up") || !strings.Contains(out, "without redundancy while 1 member(s) are not active") {
			t.Errorf("parity blade %s:\n%s", state, out)
		}
	}
}
