package raid

import (
	"strings"
	"testing"
)

// splitBrainCands is a three-blade array's candidates: blade 0 holds the
// newest state (events 5); blades 1 and 2 are at events 4 and list role 0
// as missingState.
func splitBrainCands(missingState string) []*candidate {
	var cands []*candidate
	for r := 0; r < 3; r++ {
		sb := &Superblock{Events: 4, DataBlades: 2, ParityBlades: 1, This: ThisBlade{UUID: "u" + string(rune('0'+r)), Role: r}}
		for m := 0; m < 3; m++ {
			sb.Members = append(sb.Members, Member{Role: m, BladeUUID: "u" + string(rune('0'+m)), State: MemberActive})
		}
		if r == 0 {
			sb.Events = 5
		} else {
			sb.Members[0].State = missingState
		}
		cands = append(cands, &candidate{dir: "/blade" + string(rune('0'+r)), sb: sb})
	}
	return cands
}

func TestAuthoritativeHighestEvents(t *testing.T) {
	cands := splitBrainCands(MemberActive)
	if got := authoritative(cands); got != cands[0].sb {
		t.Fatalf("authoritative: events %d, want blade 0's (5)", got.Events)
	}
	cands[2].sb.Events = 6
	if got := authoritative(cands); got != cands[2].sb {
		t.Fatalf("authoritative: events %d, want blade 2's (6)", got.Events)
	}
}

func TestCheckSplitBrain(t *testing.T) {
	// The others only lag behind blade 0: it was not away.
	cands := splitBrainCands(MemberActive)
	if err := checkSplitBrain(cands, authoritative(cands)); err != nil {
		t.Fatalf("lagging blades: %v", err)
	}
	// The others carried on without blade 0 (they list it missing), yet
	// it claims a newer state: refused, naming it.
	cands = splitBrainCands(MemberMissing)
	err := checkSplitBrain(cands, authoritative(cands))
	if err == nil || !strings.Contains(err.Error(), "blade /blade0 claims a newer array state (events 5)") ||
		!strings.Contains(err.Error(), "remove /blade0 and re-add it") {
		t.Fatalf("split brain: got %v", err)
	}
}
