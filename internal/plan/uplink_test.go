package plan

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

// An upload as a cascade's second run: two 11 GB CFast cards are free at
// 20 s (0.55 GB/s into the array); their uploads share a 0.1 GB/s uplink
// (upload_rate): one at a time (--then-parallel 1), A001's is done at
// 20 + 110 = 130 s and A002's at 240 s, which is when the upload to b2
// finishes; the uplink is named as what holds the second run.
func TestUploadAsSecondRunFinishesOnTheUplink(t *testing.T) {
	top := parse(t, `
upload_rate: 100MB/s
sources:
  - {name: A001, media: cfast2, size: 11GB}
  - {name: A002, media: cfast2, size: 11GB}
destinations:
  - {name: raid, write_rate: 2.2GB/s, read_rate: 2.6GB/s}
  - {name: b2, path: "rclone:b2:show/day1", run: 2}
`)
	require.True(t, IsCloud(top.Destinations[1]), "an rclone: path is a cloud remote")
	res, err := Plan(top, Options{ThenParallel: 1})
	require.NoError(t, err)
	near(t, 20, *res.Cards[0].FreeSeconds)
	near(t, 0.1*GB, res.Cards[0].SecondRate)
	require.Equal(t, LimitUplink, res.Cards[0].SecondLimitedBy)
	near(t, 130, *res.Cards[0].SafeSeconds)
	near(t, 240, *res.Cards[1].SafeSeconds)
	require.Len(t, res.Uploads, 1)
	u := res.Uploads[0]
	require.Equal(t, "b2", u.Destination)
	near(t, 0.1*GB, u.Rate)
	near(t, 240, *u.FinishSeconds, "the upload is done when the last card's is")
}

// Cloud destinations of the first run share the uplink: two cards, each
// copied to the array and to two buckets, get 50 MB/s of uplink each,
// split over the two buckets (4 streams on 100 MB/s): 25 MB/s a card,
// limited by the uplink; the uploads finish with the job.
func TestCloudDestinationsShareTheUplink(t *testing.T) {
	top := parse(t, `
upload_rate: 100MB/s
sources:
  - {name: A001, media: cfast2, size: 1GB}
  - {name: A002, media: cfast2, size: 1GB}
destinations:
  - {name: raid, write_rate: 2.2GB/s, read_rate: 2.6GB/s}
  - {name: s3, kind: cloud}
  - {name: gd, path: "rclone:gdrive:dailies"}
`)
	res, err := Plan(top, Options{})
	require.NoError(t, err)
	for _, c := range res.Cards {
		near(t, 25e6, c.Rate, c.Name)
		require.Equal(t, LimitUplink, c.LimitedBy, c.Name)
	}
	require.Len(t, res.Uploads, 2)
	for _, u := range res.Uploads {
		near(t, 1e9/25e6, *u.FinishSeconds, u.Destination)
	}
	require.Contains(t, res.Bottleneck, "uplink")

	// The uplink is one resource: 4 x 25 MB/s fill its 100 MB/s, its
	// headroom (none) is said once; each cloud destination shares it,
	// so its own headroom is the uplink's, not 100 MB/s - its 50 MB/s.
	u := res.Uplink
	require.NotNil(t, u)
	require.Equal(t, LimitUplink, u.Name)
	require.Equal(t, []string{"s3", "gd"}, u.Dests)
	near(t, 100e6, u.Load, "every cloud write together")
	near(t, 100e6, u.Capacity)
	near(t, 0, u.Headroom)
	require.True(t, u.Full)
	var headroom float64
	for _, d := range res.Destinations {
		if !d.Cloud {
			require.False(t, d.SharesUplink, d.Name)
			continue
		}
		require.True(t, d.SharesUplink, d.Name)
		near(t, 50e6, d.Load, d.Name)
		near(t, 100e6, d.Capacity, "what it could take alone: "+d.Name)
		near(t, 0, d.Headroom, d.Name)
		require.True(t, d.Full, d.Name)
		headroom += d.Headroom
	}
	near(t, u.Headroom, headroom, "the rows' headroom adds up to the uplink's, not twice it")
}

// A cloud destination with a write_rate below its share of the uplink
// is bounded by its own rate (it does not share the uplink's headroom);
// the uplink carries what all of them write. No upload_rate: no uplink.
func TestUplinkHeadroomCountedOnce(t *testing.T) {
	top := parse(t, `
upload_rate: 100MB/s
sources:
  - {name: A001, media: cfast2, size: 1GB}
destinations:
  - {name: raid, write_rate: 2.2GB/s, read_rate: 2.6GB/s}
  - {name: slow, kind: cloud, write_rate: 20MB/s}
  - {name: fast, path: "rclone:s3:rushes/show"}
`)
	res, err := Plan(top, Options{})
	require.NoError(t, err)
	near(t, 20e6, res.Cards[0].Rate, "the slow remote holds the card")
	slow, fast := res.Destinations[1], res.Destinations[2]
	require.False(t, slow.SharesUplink)
	near(t, 20e6, slow.Capacity)
	near(t, 0, slow.Headroom)
	require.True(t, fast.SharesUplink)
	near(t, 60e6, fast.Headroom, "100 MB/s uplink - 2 x 20 MB/s written")
	near(t, 40e6, res.Uplink.Load)
	near(t, 60e6, res.Uplink.Headroom)
	require.False(t, res.Uplink.Full)

	top.Upload = 0
	res, err = Plan(top, Options{})
	require.NoError(t, err)
	require.Nil(t, res.Uplink)
	require.False(t, res.Destinations[2].SharesUplink)
}

func TestCloudDestinationWithoutTheUplink(t *testing.T) {
	top := parse(t, `
sources:
  - {name: A001, media: cfast2, size: 11GB}
destinations:
  - {name: raid, write_rate: 2.2GB/s, read_rate: 2.6GB/s}
  - {name: b2, path: "rclone:b2:show", run: 2}
`)
	res, err := Plan(top, Options{})
	require.NoError(t, err, "an unknown uplink does not stop the plan")
	require.Len(t, res.Uploads, 1)
	require.True(t, res.Uploads[0].UplinkUnknown)
	require.Nil(t, res.Uploads[0].FinishSeconds, "no finish time is made up")
	near(t, 20, *res.Cards[0].FreeSeconds, "the first run is planned as before")
	require.Nil(t, res.Cards[0].SafeSeconds, "not at the array's read rate: the upload's is unknown")
	require.Nil(t, res.Cascade.LastSafeSeconds)
	require.Contains(t, res.Cascade.Bottleneck, "--upload-rate")

	// A write_rate on the destination plans it without the uplink.
	top = parse(t, `
sources:
  - {name: A001, media: cfast2, size: 1GB}
destinations:
  - {name: b2, kind: cloud, write_rate: 40MB/s}
`)
	res, err = Plan(top, Options{})
	require.NoError(t, err)
	near(t, 40e6, res.Cards[0].Rate)
	require.False(t, res.Uploads[0].UplinkUnknown)
	near(t, 1e9/40e6, *res.Uploads[0].FinishSeconds)
}

func TestUploadRateSurvivesEncode(t *testing.T) {
	top := parse(t, "upload_rate: 250MB/s\ndestinations:\n  - {name: b2, kind: cloud}\n")
	var buf bytes.Buffer
	require.NoError(t, top.Encode(&buf))
	back, err := ParseTopology("again.yaml", buf.Bytes())
	require.NoError(t, err, buf.String())
	near(t, 250e6, back.Upload)
	require.Equal(t, CloudKind, back.Destinations[0].Kind)
	near(t, 125e6, top.Scaled(0.5).Upload, "a simulation scales the uplink")
}
