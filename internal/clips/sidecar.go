package clips

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// fields are a sidecar flattened: "element@attribute" and "element" (its
// text) in lower case, local names, the first value of each kept; "@attr"
// holds the first attribute of that name on any element.
type fields map[string]string

func (f fields) put(k, v string) {
	v = strings.TrimSpace(v)
	if v == "" {
		return
	}
	k = strings.ToLower(k)
	if _, ok := f[k]; !ok {
		f[k] = v
	}
}

// get returns the first of keys that is set.
func (f fields) get(keys ...string) string {
	for _, k := range keys {
		if v, ok := f[k]; ok {
			return v
		}
	}
	return ""
}

// parseXML flattens an XML document; a broken one gives what was read
// before the error.
func parseXML(b []byte) fields {
	f := fields{}
	d := xml.NewDecoder(bytes.NewReader(b))
	d.Strict = false
	d.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	var stack []string
	for {
		tok, err := d.Token()
		if err != nil {
			return f
		}
		switch t := tok.(type) {
		case xml.StartElement:
			el := strings.ToLower(t.Name.Local)
			stack = append(stack, el)
			attrs := map[string]string{}
			for _, a := range t.Attr {
				attrs[strings.ToLower(a.Name.Local)] = a.Value
			}
			// Sony's LtcChange rows: the one at frame 0 is the start.
			if el == "ltcchange" && attrs["framecount"] != "0" {
				continue
			}
			for k, v := range attrs {
				f.put(el+"@"+k, v)
				f.put("@"+k, v)
			}
			// Sony's acquisition metadata: <Item name="ISOSensitivity"
			// value="800"/>, read as "@isosensitivity".
			if n, v := attrs["name"], attrs["value"]; n != "" && v != "" {
				f.put("@"+n, v)
			}
		case xml.EndElement:
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case xml.CharData:
			if len(stack) > 0 {
				f.put(stack[len(stack)-1], string(t))
			}
		}
	}
}

// parseJSON flattens a JSON object (Blackmagic's .sidecar): each key at
// any depth, lower case, as "key" and "@key".
func parseJSON(b []byte) fields {
	f := fields{}
	var v any
	if json.Unmarshal(b, &v) != nil {
		return f
	}
	var walk func(any)
	walk = func(v any) {
		switch t := v.(type) {
		case map[string]any:
			for k, x := range t {
				switch y := x.(type) {
				case string:
					f.put(k, y)
					f.put("@"+k, y)
				case float64:
					s := strconv.FormatFloat(y, 'f', -1, 64)
					f.put(k, s)
					f.put("@"+k, s)
				default:
					walk(y)
				}
			}
		case []any:
			for _, x := range t {
				walk(x)
			}
		}
	}
	walk(v)
	return f
}

var tcRe = regexp.MustCompile(`^\d{2}[:;.]\d{2}[:;.]\d{2}[:;.]\d{2}$`)

// applySidecar sets what the sidecar at rel says of c (fields it does not
// give are left as they are).
func applySidecar(c *Clip, rel string, b []byte) {
	var f fields
	switch ext(rel) {
	case "xml":
		f = parseXML(b)
	case "sidecar":
		f = parseJSON(b)
	default:
		return
	}
	if len(f) == 0 {
		return
	}
	set := func(dst *string, v string) {
		if v != "" && *dst == "" {
			*dst = v
		}
	}
	// Sony NonRealTimeMeta (M01.XML): Duration, LtcChangeTable,
	// VideoFrame, VideoLayout, Device.
	if d := f.get("duration@value"); d != "" && c.Frames == 0 {
		c.Frames, _ = strconv.Atoi(d)
	}
	if v := f.get("@frames", "frames", "frame_count", "@framecount", "@duration_frames"); v != "" && (c.Frames == 0 || c.mediaCount() == 1) {
		if n, err := strconv.Atoi(v); err == nil && n > 0 {
			c.Frames = n
		}
	}
	fps := f.get("videoframe@formatfps", "videoframe@capturefps", "recording@projectfps", "@projectfps",
		"@formatfps", "@capturefps", "@sensorfps", "@fps", "fps", "frame_rate", "@framerate", "framerate", "sensor_rate", "ltcchangetable@tcfps")
	if v := FPSValue(fps); v > 0 {
		set(&c.FPS, FormatFPS(v))
	}
	defer func() {
		// Sony records X-OCN in MXF files too.
		if c.Family == FamilySony && strings.HasPrefix(c.Codec, "X-OCN") {
			c.Type = TypeXOCN
		}
	}()
	set(&c.Codec, codecName(f.get("videoframe@videocodec", "recording@codec", "@codec", "codec", "@videocodec", "compression")))
	if w, h := f.get("videolayout@pixel", "@width", "width", "image_width"), f.get("videolayout@numofverticalline", "@height", "height", "image_height"); w != "" && h != "" {
		set(&c.Resolution, w+"x"+h)
	}
	set(&c.Resolution, strings.ReplaceAll(f.get("@resolution", "resolution"), " ", ""))
	set(&c.TCStart, timecode(f.get("ltcchange@value", "timecode@start", "@tcstart", "@timecode", "timecode", "tc_start",
		"start_timecode", "@starttimecode", "starttimecode")))
	set(&c.Serial, f.get("device@serialno", "@cameraserial", "@serialnumber", "@serial", "camera_serial", "camera_serial_number",
		"serial_number"))
	if n, err := strconv.Atoi(f.get("audioformat@numofchannel")); err == nil && n >= 0 && c.Audio == nil {
		// Sony's AudioFormat: its channels, each an AudioRecPort with
		// the codec (LPCM24).
		codec := f.get("audiorecport@audiocodec")
		c.Audio = &Audio{Channels: n, Codec: audioCodec(codec), Bits: audioBits(codec)}
	}
	set(&c.Reel, f.get("clip@reel", "@reel", "@reelname", "reel_name", "reel", "camera_roll"))
	applyShot(&c.Shot, f)
	model := f.get("device@modelname", "@camera", "@cameramodel", "camera_type", "camera_model", "@model")
	maker := f.get("device@manufacturer", "@manufacturer", "manufacturer")
	if model != "" {
		if maker != "" && !strings.HasPrefix(strings.ToLower(model), strings.ToLower(maker)) {
			model = maker + " " + model
		} else if c.Family != "" && c.Family != FamilyDCIM && !strings.HasPrefix(strings.ToLower(model), strings.ToLower(c.Family)) {
			model = c.Family + " " + model
		}
		if n, ok := sonyModels[strings.ToUpper(strings.TrimPrefix(model, "Sony "))]; ok {
			model = "Sony " + n
		}
		c.Camera = model
		if c.Family == "" {
			c.Family = familyOf(model)
		}
	}
}

// familyOf guesses the family from a camera model.
func familyOf(model string) string {
	m := strings.ToUpper(model)
	switch {
	case strings.Contains(m, "ARRI") || strings.Contains(m, "ALEXA") || strings.Contains(m, "AMIRA"):
		return FamilyARRI
	case strings.Contains(m, "SONY") || strings.Contains(m, "VENICE") || strings.HasPrefix(m, "ILME") || strings.HasPrefix(m, "MPC"):
		return FamilySony
	case strings.Contains(m, "RED") || strings.Contains(m, "KOMODO") || strings.Contains(m, "V-RAPTOR"):
		return FamilyRED
	case strings.Contains(m, "BLACKMAGIC") || strings.Contains(m, "URSA") || strings.Contains(m, "POCKET"):
		return FamilyBlackmagic
	case strings.Contains(m, "CANON") || strings.HasPrefix(m, "EOS"):
		return FamilyCanon
	}
	return ""
}

// codecName writes a codec as people read it (Sony's X-OCN_ST is X-OCN
// ST).
func codecName(s string) string {
	s = strings.TrimSpace(s)
	switch u := strings.ToUpper(s); {
	case strings.HasPrefix(u, "X-OCN_"):
		return "X-OCN " + s[len("X-OCN_"):]
	case strings.HasPrefix(u, "AVC_") || strings.HasPrefix(u, "HEVC_"):
		// AVC_3840_2160_HP@L51: XAVC H.264, the profile and level last.
		parts := strings.Split(s, "_")
		c := "XAVC H.264"
		if strings.HasPrefix(u, "HEVC_") {
			c = "XAVC H.265"
		}
		if p := parts[len(parts)-1]; strings.Contains(p, "@") {
			c += " " + p
		}
		return c
	}
	return CodecName(s)
}

// timecode reads a start timecode: "01:02:03:04" as is, or Sony's LTC
// value (eight hex digits, frames seconds minutes hours, flags in the
// high bits: "04030201" is 01:02:03:04; the drop-frame flag, 0x40 of the
// frames, makes "40000001" 01:00:00;00).
func timecode(s string) string {
	s = strings.TrimSpace(s)
	if tcRe.MatchString(s) {
		return s
	}
	if len(s) != 8 {
		return ""
	}
	var p [4]int
	for i := range p {
		v, err := strconv.ParseUint(s[2*i:2*i+2], 16, 8)
		if err != nil {
			return ""
		}
		p[i] = int(v)
	}
	bcd := func(v, mask int) int { v &= mask; return (v>>4)*10 + v&0xf }
	sep := ":"
	if p[0]&0x40 != 0 {
		sep = ";" // SMPTE 12M's drop-frame flag, in the frames' byte
	}
	return fmt.Sprintf("%02d:%02d:%02d%s%02d", bcd(p[3], 0x3f), bcd(p[2], 0x7f), bcd(p[1], 0x7f), sep, bcd(p[0], 0x3f))
}

// sonyModels are the names of Sony's model codes (Device modelName).
var sonyModels = map[string]string{"MPC-3610": "VENICE", "MPC-3620": "VENICE 2 (6K)", "MPC-3628": "VENICE 2 (8.6K)",
	"ILME-FX6V": "FX6", "ILME-FX6": "FX6", "ILME-FX9": "FX9", "ILME-FX3": "FX3", "ILME-FX30": "FX30", "ILME-FR7": "FR7",
	"PXW-FX9": "FX9", "MPC-2610": "BURANO", "PXW-BURANO": "BURANO"}

// applyShot sets what the camera was set to, where the sidecar says it
// and nothing did before: ISO or exposure index, white balance (a bare
// number of kelvin gets its K), lens.
func applyShot(s *Shot, f fields) {
	if s.ISO == "" {
		s.ISO = f.get("@iso", "iso", "@isosensitivity", "isosensitivity", "@exposureindex", "exposureindex", "exposure_index",
			"@exposureindexasa", "@ei", "ei")
	}
	if s.WhiteBalance == "" {
		wb := f.get("@whitebalance", "whitebalance", "white_balance", "white_balance_kelvin", "@whitebalancekelvin",
			"@colortemperature", "colortemperature", "color_temperature", "@wb", "wb")
		if _, err := strconv.Atoi(wb); err == nil {
			wb += "K"
		}
		s.WhiteBalance = wb
	}
	if s.Lens == "" {
		s.Lens = f.get("@lens", "lens", "@lensmodel", "lensmodel", "lens_model", "@lenstype", "lenstype", "lens_type",
			"@lensmodelname", "lensmodelname", "lens_name")
	}
}
