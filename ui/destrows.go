package ui

import (
	"fmt"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/widget"

	"github.com/dit-org/dit/internal/assembly"
	"github.com/dit-org/dit/internal/cloud"
	"github.com/dit-org/dit/internal/live"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/units"
)

// destRows shows one run of a card on each of its destinations, a row
// each: where, bytes written, bytes read back, rate and state (the
// engine's offload.DestProgress), so that a destination that lags or
// fails shows next to the others.
type destRows struct {
	box  *fyne.Container
	rows []*destRow
	// detail: each row says its bytes written and read back too (a
	// tile's Details); else a line each: where, rate, state.
	detail bool
	grid   bool // the rows side by side
}

// destRow is one destination's row, and under it, when the model says
// so, why it stalled or what its last retry was for.
type destRow struct {
	name, written, verified, rate, state *widget.Label
	why                                  *widget.Label
	row                                  *fyne.Container
	bytes                                *fyne.Container // written and read back (the details)
}

func newDestRows() *destRows {
	return &destRows{box: container.NewVBox()}
}

func newDestRow() *destRow {
	r := &destRow{
		name:     widget.NewLabel(""),
		written:  widget.NewLabel(""),
		verified: widget.NewLabel(""),
		rate:     widget.NewLabel(""),
		state:    widget.NewLabelWithStyle("", fyne.TextAlignTrailing, fyne.TextStyle{Bold: true}),
		why:      widget.NewLabel(""),
	}
	r.name.Truncation = fyne.TextTruncateEllipsis
	r.why.Wrapping = fyne.TextWrapWord
	r.why.Importance = widget.WarningImportance
	r.why.Hide()
	r.bytes = container.NewGridWithColumns(2, r.written, r.verified)
	r.bytes.Hide()
	r.row = container.NewVBox(container.NewBorder(nil, nil, nil, container.NewHBox(r.rate, r.state), r.name), r.bytes, r.why)
	return r
}

// set shows ds (one per destination of the run); ended: the run is over
// (no rate is shown); paused: the job is paused (no rate either: "paused");
// said: the run's own stall, said on the card's
// panel already (a destination stalled there is not said twice).
func (d *destRows) set(ds []offload.DestProgress, ended bool, said *live.Stall, paused bool) {
	for len(d.rows) < len(ds) {
		r := newDestRow()
		d.rows = append(d.rows, r)
		d.box.Add(r.row)
	}
	for i, r := range d.rows {
		if i >= len(ds) {
			r.row.Hide()
			continue
		}
		r.set(ds[i], ended, said, paused)
		if d.detail {
			r.bytes.Show()
		} else {
			r.bytes.Hide()
		}
		r.row.Show()
	}
	// A line each, two side by side in the tile; with the details, a
	// row each.
	if grid := !d.detail && len(ds) >= 2; grid != d.grid {
		d.grid = grid
		d.box.Layout = layout.NewVBoxLayout()
		if grid {
			d.box.Layout = layout.NewGridLayoutWithColumns(2)
		}
		d.box.Refresh()
	}
	if len(ds) == 0 {
		d.box.Hide()
	} else {
		d.box.Show()
	}
}

func (r *destRow) set(p offload.DestProgress, ended bool, said *live.Stall, paused bool) {
	setText(r.name, shortDest(p.Dest))
	// A cloud copy is uploaded, then checked: by the storage's own
	// checksum, or read back (docs/cloud.md).
	written, verified := "Written", "Read back"
	if assembly.IsRemoteDest(p.Dest) {
		written, verified = "Uploaded", "Checked"
	}
	setText(r.written, destBytesText(written, p.BytesWritten, p.Bytes))
	if p.VerifyTotal > 0 || p.BytesVerified > 0 {
		setText(r.verified, destBytesText(verified, p.BytesVerified, p.VerifyTotal))
	} else {
		setText(r.verified, "Not "+strings.ToLower(verified))
	}
	switch {
	case ended || p.State == offload.DestQueued:
		setText(r.rate, "")
	case paused:
		setText(r.rate, "paused")
	default:
		rate := rateText(p.Rate)
		if rate == "-" {
			rate = "" // nothing moving: the state says why (a lone dash reads as a smudge)
		}
		setText(r.rate, rate)
	}
	text, imp := destStateText(p)
	if p.Stall != nil && !ended {
		text, imp = "Stalled", widget.WarningImportance
	}
	setText(r.state, text)
	setImportance(r.state, imp)
	if why := destWhy(p, ended, said); why != "" {
		setText(r.why, why)
		r.why.Show()
	} else {
		r.why.Hide()
	}
}

// destWhy is what the model says of a destination at work beyond its
// counts: why it stalled ("Stalled: s3: connection refused, retry 3 of
// 10, since 40s"; not when the card's panel says it already), or the
// retries it took and the last one's reason; "" when nothing.
func destWhy(p offload.DestProgress, ended bool, said *live.Stall) string {
	switch {
	case ended:
		return ""
	case p.Stall != nil && (said == nil || said.Where != p.Stall.Where):
		return "Stalled: " + p.Stall.String()
	case p.Stall == nil && p.Retries > 0 && p.LastError != "":
		return fmt.Sprintf("Retried %s; the last: %s", plural(p.Retries, "time"), firstLine(p.LastError))
	}
	return ""
}

// destBytesText: "Written 1.20 GB of 2.00 GB"; of an unknown total, the
// bytes alone.
func destBytesText(what string, n, total int64) string {
	if total <= 0 {
		return what + " " + units.FormatBytes(n)
	}
	return fmt.Sprintf("%s %s of %s", what, units.FormatBytes(n), units.FormatBytes(total))
}

// destStateText is a destination's state in words and its colour. Only
// "verified" is green: every file of the card read back and matched
// there (the card itself is safe to format only with every destination
// and its hash lists, which its own state says).
func destStateText(p offload.DestProgress) (string, widget.Importance) {
	switch p.State {
	case offload.DestFailed:
		return fmt.Sprintf("FAILED (%s)", plural(p.FilesFailed, "file")), widget.DangerImportance
	case offload.DestSealFailed:
		return "FAILED (hash lists)", widget.DangerImportance
	case offload.DestVerified:
		return "Verified", widget.SuccessImportance
	case offload.DestWriting:
		return "Writing", widget.MediumImportance
	case offload.DestVerifying:
		return "Reading back", widget.MediumImportance
	case offload.DestSealing:
		return "Writing hash lists", widget.MediumImportance
	case offload.DestCopied:
		return "Copied (not read back)", widget.WarningImportance
	case offload.DestUnverified:
		return "Not verified", widget.DangerImportance
	case offload.DestQueued:
		return "Queued", widget.MediumImportance
	}
	return string(p.State), widget.MediumImportance
}

// shortDest names a destination in a row: its path, or its last two
// folders when it is long (the end tells two destinations apart).
func shortDest(p string) string {
	if len([]rune(p)) <= 32 {
		return p
	}
	parts := strings.Split(filepath.ToSlash(p), "/")
	if len(parts) <= 2 {
		return p
	}
	if d, err := cloud.Parse(p); err == nil {
		// The remote, then the end: rclone:s3backup:.../show/A001.
		return cloud.Prefix + d.Remote + ":.../" + strings.Join(parts[len(parts)-2:], "/")
	}
	return "..." + "/" + strings.Join(parts[len(parts)-2:], "/")
}
