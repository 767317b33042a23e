package clips

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// One name per codec, whoever said it: ffprobe, a camera's sidecar, an
// older catalog's label.
func TestCodecNameIsTheFieldsName(t *testing.T) {
	for in, want := range map[string]string{
		"Apple ProRes HQ": "ProRes 422 HQ", "Apple ProRes 422 HQ": "ProRes 422 HQ", "ProRes422HQ": "ProRes 422 HQ",
		"ProRes 422 LT": "ProRes 422 LT", "prores proxy": "ProRes 422 Proxy", "Apple ProRes Standard": "ProRes 422",
		"Apple ProRes 4444 XQ": "ProRes 4444 XQ", "ProRes_4444_XQ": "ProRes 4444 XQ", "ProRes 4444": "ProRes 4444",
		"Avid DNxHR LB": "DNxHR LB", "DNXHR_SQ": "DNxHR SQ", "dnxhr hq": "DNxHR HQ", "Avid DNxHD": "DNxHD",
		"mpeg2video": "MPEG-2 Long GOP", "MPEG2": "MPEG-2 Long GOP", "h264": "H.264", "AVC": "H.264", "hevc": "H.265",
		"H.265/HEVC": "H.265", "REDCODE RAW": "REDCODE", "Blackmagic RAW": "BRAW", "ARRIRAW": "ARRIRAW",
		"X-OCN ST": "X-OCN ST", "XAVC H.264 HP@L51": "XAVC H.264 HP@L51", "Cinema RAW Light": "Cinema RAW Light", "": "",
	} {
		require.Equal(t, want, CodecName(in), "%q", in)
	}
	for _, c := range []struct{ codec, profile, want string }{
		{"prores", "HQ", "ProRes 422 HQ"}, {"prores", "LT", "ProRes 422 LT"}, {"prores", "Proxy", "ProRes 422 Proxy"},
		{"prores", "Standard", "ProRes 422"}, {"prores", "4444", "ProRes 4444"}, {"prores", "XQ", "ProRes 4444 XQ"},
		{"prores", "4444 XQ", "ProRes 4444 XQ"}, {"dnxhd", "DNXHR LB", "DNxHR LB"}, {"dnxhd", "DNXHR HQX", "DNxHR HQX"},
		{"dnxhd", "DNXHD", "DNxHD"}, {"mpeg2video", "4:2:2", "MPEG-2 Long GOP"}, {"h264", "High", "H.264"}, {"hevc", "Main 10", "H.265"},
	} {
		require.Equal(t, c.want, codecLabel(c.codec, c.profile), "%s %s", c.codec, c.profile)
	}
}
