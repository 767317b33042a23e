package speedchart

import (
	"bytes"
	"image/png"
	"testing"
	"time"

	"gonum.org/v1/plot/vg"

	"github.com/dit-org/dit/internal/speedtest"
)

// A result with a cliff, in Unicode, draws as a PNG of the asked size;
// one with no phase at all draws too (no renderer stops dit).
func TestPNGDraws(t *testing.T) {
	var curve []speedtest.Point
	for i := 1; i <= 100; i++ {
		r := 2e9
		if i > 40 {
			r = 0.6e9
		}
		curve = append(curve, speedtest.Point{At: int64(i) * 64e7, Seconds: float64(i), Rate: r})
	}
	r := &speedtest.Result{Path: "/Volumes/ブレード 🎬", Kind: speedtest.Array, Label: "array Ünïcødé", Started: time.Now(),
		Size: 64e9, Block: 1 << 20, Streams: 2,
		Write: &speedtest.Phase{Name: "write", Bytes: 64e9, Seconds: 80, Rate: 0.8e9, Curve: curve,
			Cliff: &speedtest.Cliff{At: 25.6e9, Before: 2e9, After: 0.6e9}},
		Read: &speedtest.Phase{Name: "read", Bytes: 64e9, Seconds: 30, Rate: 2.1e9, Curve: curve[:50]}}
	for _, res := range []*speedtest.Result{r, {Path: "/empty"}} {
		b, err := PNG(res, 7*vg.Inch, 3.5*vg.Inch)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if w, h := img.Bounds().Dx(), img.Bounds().Dy(); w != 7*144 || h != 7*72 {
			t.Errorf("%s: %dx%d, want %dx%d", res.Path, w, h, 7*144, 7*72)
		}
	}
}
