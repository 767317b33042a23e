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
	// card's size or the uplink is unknown).
	FinishSeconds *float64 `json:"finish_s"`
	// UplinkUnknown: neither upload_rate nor the destination's
	// write_rate is given, so nothing bounds the upload in the plan and
	// no finish time is given.
	UplinkUnknown bool `json:"uplink_unknown,omitempty"`
}

// checkUplink checks upload_rate. A cloud destination without it (and
// without a write_rate of its own) is planned without a budget of its
// own, and its Upload says the uplink is unknown.
func (t *Topology) checkUplink() error {
	if t.Upload < 0 {
		return t.errf(0, "upload_rate must be above zero, e.g. upload_rate: 100MB/s")
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

// shareUplink fills res.Uplink from the cloud destinations' loads: one
// resource, the sum of their writes against upload_rate. A cloud
// destination bounded by the uplink (not by a write_rate or --limit of
// its own below it) shares it: its headroom is at most the uplink's.
func shareUplink(t *Topology, res *Result) {
	if t.Upload <= 0 {
		return
	}
	u := &LinkLoad{Name: LimitUplink, Kind: LimitUplink, Capacity: t.Upload}
	var shared []*DestLoad
	for i := range res.Destinations {
		d := &res.Destinations[i]
		if !d.Cloud {
			continue
		}
		u.Writes += d.Load
		u.Dests = append(u.Dests, d.Name)
		if d.Capacity >= t.Upload*(1-1e-9) {
			shared = append(shared, d)
		}
	}
	if len(u.Dests) == 0 {
		return
	}
	u.Load, u.Headroom, u.Full = u.Writes, t.Upload-u.Writes, full(u.Writes, t.Upload)
	for _, d := range shared {
		d.SharesUplink = true
		d.Headroom = min(d.Headroom, u.Headroom)
		d.Full = d.Full || u.Full
	}
	res.Uplink = u
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
		if t.Upload == 0 && d.Write == 0 {
			u.FinishSeconds, u.UplinkUnknown = nil, true
			if d.Run == 2 {
				unknownSecondRun(res, d.Name)
			} else {
				// The cards are safe when their uploads are: unknown.
				for i := range res.Cards {
					res.Cards[i].SafeSeconds = nil
				}
			}
		}
		res.Uploads = append(res.Uploads, u)
	}
}

// unknownSecondRun takes back the cascade's second-run figures when its
// upload to dest has no known rate: nothing bounded it in the plan, so
// its times would be made up.
func unknownSecondRun(res *Result, dest string) {
	for i := range res.Cards {
		c := &res.Cards[i]
		c.SafeSeconds, c.SecondRate, c.SecondLimitedBy = nil, 0, ""
	}
	if c := res.Cascade; c != nil {
		c.LastSafeSeconds = nil
		c.Bottleneck = fmt.Sprintf("the upload to %s has no known rate: give the uplink (dit plan --upload-rate, or upload_rate: in the topology) for the second run's times", dest)
	}
}
