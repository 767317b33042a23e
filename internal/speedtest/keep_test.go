package speedtest

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dit-org/dit/internal/catalog"
)

// A noisy measurement is shown but not kept for the planner; a steady
// one is.
func TestKeepLeavesNoisyResultsOut(t *testing.T) {
	cat, err := catalog.Open(filepath.Join(t.TempDir(), "c.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	total := int64(1 << 30)
	steady := phaseOf(events(total, 1<<20, func(int64) float64 { return 1e9 }, 0.2, 3))
	loaded := phaseOf(events(total, 1<<20, stepped(total, fill(100, func(i int) float64 {
		return []float64{1e9, 0.3e9, 0.9e9, 0.2e9}[i%4]
	})), 0.1, 3))
	loaded.Name = "read"
	now := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	quiet := &Result{Path: "/mnt/quiet", Kind: Folder, Volume: "fs-uuid:quiet", Started: now, Size: total, Write: steady, Read: steady}
	busy := &Result{Path: "/mnt/busy", Kind: Folder, Volume: "fs-uuid:busy", Started: now, Size: total, Write: steady, Read: loaded}
	ks := Keep(cat, []*Result{quiet, busy}, nil)
	if len(ks) != 2 {
		t.Fatalf("%d kept, want 2", len(ks))
	}
	if ks[0].Err != nil || ks[0].Row == nil {
		t.Errorf("steady result not kept: %v", ks[0].Err)
	}
	var noisy *NoisyError
	if !errors.As(ks[1].Err, &noisy) || ks[1].Row != nil {
		t.Fatalf("noisy result: row %v, err %v", ks[1].Row, ks[1].Err)
	}
	msg := ks[1].Err.Error()
	for _, want := range []string{"/mnt/busy: not stored: the rate varied by ", " % between samples (read)", "run it again on a quiet machine"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	if row, err := cat.LatestSpeedTest("fs-uuid:busy", false); err != nil || row != nil {
		t.Errorf("the noisy result is in the catalog: %+v, %v", row, err)
	}
	if row, err := cat.LatestSpeedTest("fs-uuid:quiet", true); err != nil || row == nil {
		t.Errorf("the steady result is not in the catalog: %v", err)
	}
}
