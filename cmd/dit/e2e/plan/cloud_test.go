package plan

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/cmd/dit/internal/e2e"
)

// Two cloud destinations whose paths end alike are named whole, and
// share the one uplink: its load (what both write) and headroom are
// given once, on its own row; each destination's row points to it. A
// cloud destination beside a folder is planned in the second run, as
// the engine runs it. --upload-rate 100 (bytes/s) is refused with the
// unit to give; a bare number of bytes/s as large as an uplink is taken.
func TestPlanCloudDestinationsShareTheUplink(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "c.db")
	card := filepath.Join(dir, "A001")
	require.NoError(t, os.MkdirAll(filepath.Join(card, "CLIPS"), 0o755))
	e2e.WriteFile(t, filepath.Join(card, "CLIPS", "C001.MOV"), strings.Repeat("x", 1<<20))
	const s3, b2 = "rclone:s3:rushes/show", "rclone:b2:backup/show"

	r := e2e.Dit(t, db, "plan", "--no-cpu", "-d", s3, "-d", b2, "--upload-rate", "10MB/s", "--json", card)
	require.Equal(t, 0, r.Code, r.Stderr)
	type link struct {
		Name     string   `json:"name"`
		Load     float64  `json:"load_bytes_per_s"`
		Capacity float64  `json:"capacity_bytes_per_s"`
		Headroom float64  `json:"headroom_bytes_per_s"`
		Dests    []string `json:"destinations"`
	}
	var res struct {
		Destinations []struct {
			Name         string  `json:"name"`
			Load         float64 `json:"load_bytes_per_s"`
			Headroom     float64 `json:"headroom_bytes_per_s"`
			SharesUplink bool    `json:"shares_uplink"`
		} `json:"destinations"`
		Uplink  *link `json:"uplink"`
		Uploads []struct {
			Destination string `json:"destination"`
		} `json:"uploads"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &res), r.Stdout)
	require.Len(t, res.Destinations, 2)
	require.NotNil(t, res.Uplink)
	require.Equal(t, []string{s3, b2}, res.Uplink.Dests)
	require.InDelta(t, 10e6, res.Uplink.Capacity, 1)
	require.InDelta(t, res.Destinations[0].Load+res.Destinations[1].Load, res.Uplink.Load, 1, "the uplink carries both")
	require.InDelta(t, res.Uplink.Capacity-res.Uplink.Load, res.Uplink.Headroom, 1)
	for i, want := range []string{s3, b2} {
		d := res.Destinations[i]
		require.Equal(t, want, d.Name, "named whole")
		require.True(t, d.SharesUplink, want)
		require.LessOrEqual(t, d.Headroom, res.Uplink.Headroom+1, "no more room than the uplink has: %s", want)
		require.Equal(t, want, res.Uploads[i].Destination)
	}

	r = e2e.Dit(t, db, "plan", "--no-cpu", "-d", s3, "-d", b2, "--upload-rate", "10MB/s", card)
	require.Equal(t, 0, r.Code, r.Stderr)
	require.NotContains(t, r.Stdout, "show#2")
	uplinkRow := regexp.MustCompile(`(?m)^uplink +uplink +\S+ \S+ +10\.0 MB/s +\S+ \S+ .*` + regexp.QuoteMeta(s3+" "+b2) + `$`)
	require.Regexp(t, uplinkRow, r.Stdout, "one row gives the uplink's capacity and headroom")
	for _, d := range []string{s3, b2} {
		require.Regexp(t, regexp.MustCompile(`(?m)^`+regexp.QuoteMeta(d)+` +\S+ \S+ +uplink +uplink +the cloud's checksum`), r.Stdout, d)
	}
	require.Contains(t, r.Stdout, "Upload:     to "+s3+" finishes in")

	raid := filepath.Join(dir, "RAID")
	require.NoError(t, os.Mkdir(raid, 0o755))
	r = e2e.Dit(t, db, "plan", "--no-cpu", "-d", raid, "-d", s3, "--upload-rate", "10MB/s", card)
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, s3+" (2nd run)")
	require.Contains(t, r.Stdout, "Cascade: first copy on RAID, then "+s3)

	r = e2e.Dit(t, db, "plan", "--no-cpu", "-d", s3, "--upload-rate", "100", card)
	require.Equal(t, 2, r.Code, r.Stdout)
	require.Equal(t, `dit: --upload-rate "100": a number without a unit is bytes per second (0.1 kB/s), surely not the uplink: give the unit, e.g. 100MB/s or 100Mbit/s`+"\n", r.Stderr)
	r = e2e.Dit(t, db, "plan", "--no-cpu", "-d", s3, "--upload-rate", "12500000", "--json", card)
	require.Equal(t, 0, r.Code, r.Stderr)
	res.Uplink = nil
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &res))
	require.InDelta(t, 12.5e6, res.Uplink.Capacity, 1, "a bare number of bytes/s, as for --limit")
}
