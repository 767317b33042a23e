package plan

import (
	"fmt"
	"strings"

	"github.com/dit-org/dit/internal/units"
)

// CloudKind is the destination kind of a cloud remote (dit offload -d
// or --then rclone:REMOTE:PATH): it writes through the cart's uplink,
// the topology's upload_rate, which every cloud destination shares, and
// reads nothing back over a local bus (a cloud copy is verified by the
// storage's own checksum where it has one).
const CloudKind = "cloud"

// LimitUplink names the uplink budget in CardPlan.LimitedBy.
const LimitUplink = "uplink"

// IsCloud reports whether d is a cloud remote: kind cloud, or a path
// written rclone:REMOTE:PATH.
func IsCloud(d Destination) bool {
	return d.Kind == CloudKind || strings.HasPrefix(d.Path, "rclone:")
}

// Upload is a cloud destination's part of the plan: when its uploads
// finish.
type Upload struct {
	Destination string `json:"destination"`
	// Rate is the uplink's data rate shared by the cloud destinations
	// (bytes/s; 0: not given).
	Rate float64 `json:"uplink_bytes_per_s"`
	// FinishSeconds is when the last card's upload is done (nil: a
	// card's size is unknown).
	FinishSeconds *float64 `json:"finish_s"`
}

// checkUplink checks the cloud destinations against upload_rate: each
// needs the uplink's rate (or its own write_rate) to be planned.
func (t *Topology) checkUplink() error {
	if t.Upload < 0 {
		return t.errf(0, "upload_rate must be above zero, e.g. upload_rate: 100MB/s")
	}
	for _, d := range t.Destinations {
		if IsCloud(d) && t.Upload == 0 && d.Write == 0 {
			return t.errf(d.Line, "destination %q is a cloud remote: give the cart's uplink as upload_rate: at the top of the topology (e.g. upload_rate: 100MB/s) or write_rate: on the destination", d.Name)
		}
	}
	return nil
}

// uplinkBudget is the uplink's: every cloud destination a card writes
// shares upload_rate.
func uplinkBudget(t *Topology, n int) []constraint {
	if t.Upload <= 0 {
		return nil
	}
	coef := make([]float64, n)
	any := false
	for _, d := range t.Destinations {
		if !IsCloud(d) {
			continue
		}
		for i := 0; i < n; i++ {
			if writes(t.Sources[i], d) {
				coef[i]++
				any = true
			}
		}
	}
	if !any {
		return nil
	}
	return []constraint{{id: LimitUplink, prio: prioBus, coef: coef, cap: t.Upload,
		why: fmt.Sprintf("the uplink: cloud uploads share %s (upload_rate)", units.FormatRate(t.Upload))}}
}

// uploads fills res.Uploads: a cloud destination of the first run is
// done when the last card is copied; one of a cascade's second run when
// the last card is safe to format.
func uploads(t *Topology, res *Result) {
	for _, d := range t.Destinations {
		if !IsCloud(d) {
			continue
		}
		u := Upload{Destination: d.Name, Rate: t.Upload, FinishSeconds: res.ETASeconds}
		if d.Run == 2 {
			u.FinishSeconds = nil
			if res.Cascade != nil {
				u.FinishSeconds = res.Cascade.LastSafeSeconds
			}
		}
		res.Uploads = append(res.Uploads, u)
	}
}
