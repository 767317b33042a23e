package clips

import "strings"

// CodecName is a codec as the field writes it, one name per codec
// whoever said it (ffprobe's short name and profile, a sidecar, an older
// catalog's label):
//
//	ProRes 422 Proxy, ProRes 422 LT, ProRes 422, ProRes 422 HQ,
//	ProRes 4444, ProRes 4444 XQ, ProRes RAW (HQ)
//	DNxHR LB, DNxHR SQ, DNxHR HQ, DNxHR HQX, DNxHR 444, DNxHD
//	MPEG-2 Long GOP, XAVC (XAVC H.264 / H.265 with Sony's profile),
//	H.264, H.265
//	ARRIRAW (ARRIRAW HDE), REDCODE, BRAW, X-OCN ST/LT/XT, Cinema RAW Light,
//	CinemaDNG
//
// A name it does not know is returned as given (trimmed).
func CodecName(s string) string {
	s = strings.TrimSpace(s)
	k := strings.ToLower(strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '_' || r == '-' || r == '/' }), " "))
	k = strings.TrimPrefix(strings.TrimPrefix(k, "apple "), "avid ")
	switch {
	case k == "":
		return ""
	case strings.HasPrefix(k, "prores"):
		return proresName(strings.TrimSpace(strings.TrimPrefix(k, "prores")))
	case strings.HasPrefix(k, "dnxhr"):
		p := strings.ToUpper(strings.TrimSpace(strings.TrimPrefix(k, "dnxhr")))
		if p == "" {
			return "DNxHR"
		}
		return "DNxHR " + p
	case k == "dnxhd" || strings.HasPrefix(k, "dnxhd "):
		return "DNxHD"
	case k == "mpeg2video" || k == "mpeg2" || strings.HasPrefix(k, "mpeg 2") || strings.HasPrefix(k, "mpeg2 "):
		return "MPEG-2 Long GOP"
	case k == "h264" || k == "h.264" || k == "avc" || k == "h 264":
		return "H.264"
	case k == "hevc" || k == "h265" || k == "h.265" || k == "h 265" || k == "h.265 hevc" || k == "h.265hevc":
		return "H.265"
	case strings.HasPrefix(k, "redcode") || k == "r3d":
		return "REDCODE"
	case k == "blackmagic raw" || k == "braw":
		return "BRAW"
	case k == "arriraw" || k == "ari":
		return "ARRIRAW"
	case k == "arriraw hde":
		return "ARRIRAW HDE"
	}
	return s
}

// proresName is ProRes with its profile (p: lower case, after "prores").
func proresName(p string) string {
	p = strings.TrimSpace(strings.TrimPrefix(p, "422"))
	switch strings.ReplaceAll(p, " ", "") {
	case "proxy":
		return "ProRes 422 Proxy"
	case "lt":
		return "ProRes 422 LT"
	case "", "standard":
		return "ProRes 422"
	case "hq":
		return "ProRes 422 HQ"
	case "4444":
		return "ProRes 4444"
	case "4444xq", "xq":
		return "ProRes 4444 XQ"
	case "raw":
		return "ProRes RAW"
	case "rawhq":
		return "ProRes RAW HQ"
	}
	return "ProRes " + p
}
