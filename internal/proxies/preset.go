package proxies

import (
	"fmt"
	"os/exec"
	"slices"
	"strconv"
	"strings"
)

// Preset is one kind of editorial proxy: a codec in a container.
type Preset struct {
	// Name is what --proxies takes: prores-proxy, h264, dnxhr-lb,
	// dnxhr-lb-mov.
	Name string
	// Label is what reports say: "ProRes 422 Proxy (MOV)".
	Label string
	// Ext is the proxy's extension, with its dot.
	Ext string
	// format is ffmpeg's muxer; video and audio its codec options.
	format       string
	video, audio []string
}

// Presets are the proxies dit makes, in the order help lists them.
var Presets = []Preset{
	{Name: "prores-proxy", Label: "ProRes 422 Proxy (MOV)", Ext: ".mov", format: "mov",
		video: []string{"-c:v", "prores_ks", "-profile:v", "0", "-vendor", "apl0", "-pix_fmt", "yuv422p10le"},
		audio: []string{"-c:a", "pcm_s16le"}},
	{Name: "h264", Label: "H.264 (MP4)", Ext: ".mp4", format: "mp4",
		video: []string{"-c:v", "libx264", "-preset", "veryfast", "-crf", "23", "-pix_fmt", "yuv420p", "-movflags", "+faststart"},
		audio: []string{"-c:a", "aac", "-b:a", "192k"}},
	{Name: "dnxhr-lb", Label: "DNxHR LB (MXF)", Ext: ".mxf", format: "mxf",
		video: []string{"-c:v", "dnxhd", "-profile:v", "dnxhr_lb", "-pix_fmt", "yuv422p"},
		audio: []string{"-c:a", "pcm_s16le", "-ar", "48000"}},
	{Name: "dnxhr-lb-mov", Label: "DNxHR LB (MOV)", Ext: ".mov", format: "mov",
		video: []string{"-c:v", "dnxhd", "-profile:v", "dnxhr_lb", "-pix_fmt", "yuv422p"},
		audio: []string{"-c:a", "pcm_s16le"}},
}

// PresetNames lists the presets' names, for help and errors.
func PresetNames() string {
	var n []string
	for _, p := range Presets {
		n = append(n, p.Name)
	}
	return strings.Join(n, ", ")
}

// Spec is what --proxies asks for: a preset, and whether the source
// timecode and the clip's name are burnt into the picture.
type Spec struct {
	Preset Preset
	Burnin bool
}

// String is the spec as --proxies takes it: "h264,burnin".
func (s Spec) String() string {
	if s.Burnin {
		return s.Preset.Name + ",burnin"
	}
	return s.Preset.Name
}

// ParseSpec reads --proxies PRESET[,burnin].
func ParseSpec(s string) (Spec, error) {
	parts := strings.Split(strings.TrimSpace(s), ",")
	var sp Spec
	found := false
	for i, p := range parts {
		p = strings.ToLower(strings.TrimSpace(p))
		if i > 0 && p == "burnin" {
			sp.Burnin = true
			continue
		}
		j := slices.IndexFunc(Presets, func(x Preset) bool { return x.Name == p })
		if i > 0 || j < 0 {
			return Spec{}, fmt.Errorf("--proxies %q: give a preset (%s), optionally followed by \",burnin\" (e.g. prores-proxy,burnin)", s, PresetNames())
		}
		sp.Preset, found = Presets[j], true
	}
	if !found {
		return Spec{}, fmt.Errorf("--proxies %q: give a preset (%s)", s, PresetNames())
	}
	return sp, nil
}

// Source is what ffmpeg reads a proxy from and what it must keep.
type Source struct {
	// In is the verified copy of the clip's media file: a path, or a URL
	// on the loopback range server of a dit array.
	In string
	// Name is the clip's name (burnt in with Spec.Burnin).
	Name string
	// TC is the source's start timecode as ffprobe reads it
	// ("10:00:01:00", drop-frame with ';'); "" none. Rate is its frame
	// rate as ffmpeg writes one ("25/1", "24000/1001"; "" unknown).
	TC, Rate string
	// Font is the font file the clip's name is drawn in with
	// Spec.Burnin ("": fontconfig's default sans; [FontFor] finds one
	// with the name's characters).
	Font string
}

// MaxWidth is the widest a proxy is: a wider source is scaled down to
// it, keeping its shape; a narrower one keeps its size.
const MaxWidth = 1920

// Args are ffmpeg's arguments making spec's proxy of src into out (a
// temporary name: the muxer is named, not taken from it). The first
// video stream and every audio stream are kept, the frame rate is the
// source's (no -r) and the start timecode is written as the source's
// (-timecode), into the container's timecode track or tag.
func Args(spec Spec, src Source, out string) []string {
	a := []string{"-nostdin", "-hide_banner", "-nostats", "-v", "error", "-i", src.In,
		"-map", "0:v:0", "-map", "0:a?", "-map_metadata", "-1", "-vf", Filter(spec, src)}
	a = append(a, spec.Preset.video...)
	a = append(a, spec.Preset.audio...)
	if src.TC != "" {
		a = append(a, "-timecode", src.TC)
	}
	return append(a, "-f", spec.Preset.format, "-n", out)
}

// Filter is the video filter graph: the scale, and with Spec.Burnin the
// running timecode (top left) and the clip's name (bottom left), each on
// a half-dark box.
func Filter(spec Spec, src Source) string {
	f := fmt.Sprintf("scale=w='min(%d,iw)':h=-2", MaxWidth)
	if !spec.Burnin {
		return f
	}
	const box = ":fontcolor=white:fontsize=h/22:box=1:boxcolor=black@0.6:boxborderw=6"
	tc, rate := src.TC, src.Rate
	if tc == "" {
		tc = "00:00:00:00"
	}
	if rate == "" || strings.HasPrefix(rate, "0/") {
		rate = "25/1"
	}
	f += ",drawtext=timecode=" + FilterValue(tc) + ":rate=" + FilterValue(rate) + ":x=12:y=12" + box
	font := ""
	if src.Font != "" {
		font = ":fontfile=" + FilterValue(src.Font)
	}
	f += ",drawtext=expansion=none" + font + ":text=" + FilterValue(src.Name) + ":x=12:y=h-th-12" + box
	return f
}

// FilterValue escapes a value (a clip's name, a timecode) for an option
// of a filter inside a filter graph given to -vf: first for the option
// (':' separates options; backslash and the single quote quote), then for the graph ('[',
// ']', ',' and ';' separate filters). No shell is involved, so there is
// no third level; drawtext's own %{...} expansion is turned off where a
// name is drawn (expansion=none).
func FilterValue(v string) string {
	return escape(escape(v, `\':`), `\'[],;`)
}

func escape(v, special string) string {
	var b strings.Builder
	for _, r := range v {
		if strings.ContainsRune(special, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// FontFor asks fontconfig (fc-match) for a sans font file that has the
// characters of name (CJK in a CJK font); "" when there is no fc-match
// (drawtext then uses its default). Pictographs (emoji) are left out of
// the question: drawtext draws no colour glyphs.
func FontFor(name string) string {
	fc, err := exec.LookPath("fc-match")
	if err != nil {
		return ""
	}
	var cs []string
	seen := map[rune]bool{}
	for _, r := range name {
		if r > ' ' && r < 0x1F000 && !seen[r] {
			seen[r] = true
			cs = append(cs, strconv.FormatInt(int64(r), 16))
		}
	}
	pattern := "sans-serif"
	if len(cs) > 0 {
		pattern += ":charset=" + strings.Join(cs, " ")
	}
	out, err := exec.Command(fc, "-f", "%{file}", pattern).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
