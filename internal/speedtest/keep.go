package speedtest

import (
	"context"
	"fmt"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/devices"
	"github.com/dit-org/dit/raid"
)

// Run tests path the way its kind asks, as dit speedtest and dit-gui
// test it: a blade of a dit array, each blade then the whole array
// ([RunArray]); a card (readOnly: a camera card, or a folder that must
// not be written), its own files read ([RunCard]: nothing is written);
// else a folder, written and read back ([RunFolder]). mem is the
// machine's memory ([Memory]).
func Run(ctx context.Context, path string, readOnly bool, o Options, mem int64) ([]*Result, error) {
	if raid.IsBlade(path) {
		if readOnly {
			return nil, fmt.Errorf("%s is a blade of a dit array: an array is tested by writing to it, never read-only", path)
		}
		return RunArray(ctx, path, o, mem)
	}
	var r *Result
	var err error
	if readOnly {
		r, err = RunCard(ctx, path, o, mem)
	} else {
		r, err = RunFolder(ctx, path, Folder, o, mem)
	}
	if err != nil {
		return nil, err
	}
	return []*Result{r}, nil
}

// Complete reports whether r moved any byte (a stopped test's results are
// not kept).
func (r *Result) Complete() bool {
	return (r.Write != nil && r.Write.Bytes > 0) || (r.Read != nil && r.Read.Bytes > 0)
}

// Kept is a result recorded in the catalog, or why it was not (a
// *NoisyError when its rate varied too much to plan with).
type Kept struct {
	Result *Result
	Row    *catalog.SpeedTest // nil when not recorded
	Err    error
}

// NoisyError is why a result was not kept for the planner: its rate
// varied by more than MaxSpread between samples ([Result.Noisy]).
type NoisyError struct {
	Path string
	Why  string // "the rate varied by 38 % between samples (write)"
}

func (e *NoisyError) Error() string {
	return fmt.Sprintf("%s: not stored: %s; run it again on a quiet machine", e.Path, e.Why)
}

// Keep records each complete result in cat ([Record]) under its volume,
// with the bus the volume is on now (found among vols, from
// devices.Discover) and the catalog's station: dit plan and dit offload
// use the latest in place of table rates. A noisy result (its rate
// varied by more than MaxSpread between samples) is not recorded: its
// Kept has a *NoisyError.
func Keep(cat *catalog.Catalog, rs []*Result, vols []devices.Volume) []Kept {
	var out []Kept
	for _, r := range rs {
		if !r.Complete() {
			continue
		}
		if why := r.Noisy(); why != "" {
			out = append(out, Kept{Result: r, Err: &NoisyError{Path: r.Path, Why: why}})
			continue
		}
		link := ""
		if v := devices.Find(vols, r.Path); v != nil {
			link = v.Bus
		}
		row := Record(r, cat.Station(), link)
		k := Kept{Result: r, Row: row}
		if err := cat.AddSpeedTest(row); err != nil {
			k.Row, k.Err = nil, fmt.Errorf("%s not recorded in the catalog: %w", r.Path, err)
		}
		out = append(out, k)
	}
	return out
}
