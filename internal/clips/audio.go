package clips

import (
	"fmt"
	"strconv"
	"strings"
)

// Audio is what a clip's sound is: its audio streams (tracks in the
// container: an ARRI MXF keeps one mono track per channel, a QuickTime
// movie often one stereo track; 0 when only a sidecar said the
// channels) and their channels summed, the first
// stream's sample rate, bit depth and codec. Zero Channels: the clip has
// no sound (MOS). From ffprobe ([Probe.Audio]) or a sidecar that says it
// (Sony's AudioFormat numOfChannel); a clip whose sound nothing read has
// none (nil [Clip.Audio]).
type Audio struct {
	Streams  int    `json:"streams"`
	Channels int    `json:"channels"`
	Rate     int    `json:"sample_rate,omitempty"` // Hz: 48000
	Bits     int    `json:"bits,omitempty"`        // 24
	Codec    string `json:"codec,omitempty"`       // PCM, AAC
}

// String is the sound as the reports write it: "none", or the channels
// with what is known of the rest: "2 ch, 24-bit PCM, 48 kHz".
func (a *Audio) String() string {
	if a == nil {
		return ""
	}
	if a.Channels == 0 {
		return "none"
	}
	s := []string{fmt.Sprintf("%d ch", a.Channels)}
	kind := strings.TrimSpace(bitsWord(a.Bits) + " " + a.Codec)
	if kind != "" {
		s = append(s, kind)
	}
	if a.Rate > 0 {
		s = append(s, strconv.FormatFloat(float64(a.Rate)/1000, 'f', -1, 64)+" kHz")
	}
	return strings.Join(s, ", ")
}

func bitsWord(bits int) string {
	if bits <= 0 {
		return ""
	}
	return strconv.Itoa(bits) + "-bit"
}

// audioCodec names an audio codec as the field writes it from ffprobe's
// name (pcm_s24le is PCM) or a sidecar's (Sony's LPCM24).
func audioCodec(name string) string {
	n := strings.ToLower(strings.TrimSpace(name))
	switch {
	case n == "":
		return ""
	case strings.HasPrefix(n, "pcm") || strings.HasPrefix(n, "lpcm"):
		return "PCM"
	case n == "aac":
		return "AAC"
	}
	return strings.ToUpper(n)
}

// audioBits is the bit depth a PCM codec's name says (pcm_s24le: 24,
// LPCM16: 16), 0 when it says none.
func audioBits(name string) int {
	n := strings.ToLower(name)
	for _, b := range []string{"32", "24", "16", "8"} {
		if strings.Contains(n, b) && strings.Contains(n, "pcm") {
			v, _ := strconv.Atoi(b)
			return v
		}
	}
	return 0
}
