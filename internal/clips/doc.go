// Package clips tells what a camera card holds in clips, not files: the
// camera family and card type, the clips its files make, and what their
// sidecars say. It reads only names, folders and small metadata files
// (never media), and needs no cgo.
//
// # Recognition ([Recognize], [Recognizer], [RecognizeDir])
//
// From the card's file list (card-relative paths and sizes) alone:
//
//	RED           a .RDC folder of .R3D segments (in a .RDM reel folder) is
//	              one clip: A001_C003_0512AB.RDC/A001_C003_0512AB_001.R3D, _002, ...
//	frame folders files NAME.0000001.EXT (six or more digits for DNG and
//	              TIFF, which stills cameras number in four) in one folder
//	              are one clip: ARRIRAW .ari / .arx (ARRI ALEXA, Codex
//	              drives: A002R1AB/A002C003_230512_R1AB/...), X-OCN frames
//	              .xocn (as dit testdata cards --style frames writes them),
//	              CinemaDNG .dng, DPX, OpenEXR, TIFF
//	one-file      .mov .mxf .mp4 .m4v .braw .crm .mts .m2ts .avi .mkv ...
//	              each a clip; the family from the folders and the name:
//	              XDROOT/ or PRIVATE/M4ROOT/ (Sony X-OCN / XAVC), CONTENTS/CLIPS
//	              or _CANON (Canon), .braw (Blackmagic), .crm (Canon Cinema
//	              RAW Light), A001C003_230512_R2EC.mov/.mxf (ARRI ProRes),
//	              A001_08151432_C003.mov/.mxf (Blackmagic ProRes, DNx), DCIM/
//	              (a plain DCIM card), else "video"
//	proxies       a movie in a SUB / Proxy folder goes with the clip whose
//	              name it starts with (Sony's SUB/C0001S03.MP4)
//	sidecars      .xml .sidecar .thm .lrv .xmp .bim .cif .ale .rmd .rtn .txt
//	              beside a clip (or inside a frame folder) whose name is the
//	              clip's, or the clip's and a short suffix (C0001M01.XML,
//	              "A001C001_220101XY M01.XML")
//
// A [Recognizer] does the same from the files as a stream (the
// catalog's rows, in any order), holding per clip, not per file: a frame
// sequence is kept as its [Sequence] (folder, prefix, extension, first
// and last frame, count, bytes, lowest and highest number: a gap is
// MaxNumber-MinNumber+1-Count), a movie or RED folder as its clip, and
// only the files that may be a clip's sidecar or proxy by name until
// [Recognizer.Card]; a clip's frames are then not listed (Clip.Seq,
// [Clip.FileCount], [Clip.Has]), and [Clip.Flagged] counts the files the
// caller flagged. [Recognize] is a Recognizer given a slice, which then
// lists each sequence's frames in Media. What a card costs: a few
// hundred bytes a clip and sidecar, nothing a frame (docs/design.md,
// "Memory").
//
// Files in no clip are counted in [Card.Other]; a card with no clip at all
// is of type "files". Nothing is an error: an unknown structure, a sidecar
// that cannot be read or parsed, leave the card as files or the clip with
// what its name says. Junk (a path element beginning with ".") is left out.
//
// The reel comes from the name (A001 of A001C003_..., A001_C003_...,
// A001_05121432_C003) unless a sidecar gives it. A clip's Bytes are the
// sizes of all its files; Frames the sidecar's duration, or the number of
// frame files of a sequence; Seconds = Frames / FPS when both are known.
//
// # Sidecars
//
// XML (Sony NonRealTimeMeta M01.XML: Duration, LtcChangeTable with the
// start timecode in Sony's LTC form "FFSSMMHH" (BCD; 0x40 of FF: drop
// frame), VideoFrame videoCodec and formatFps, VideoLayout pixel x
// numOfVerticalLine, AudioFormat
// numOfChannel with its AudioRecPort audioCodec (LPCM24: 24-bit PCM),
// Device manufacturer,
// modelName (Sony model codes named: MPC-3628 is VENICE 2 (8.6K),
// ILME-FX6V FX6) and serialNo; the ARRI and Canon clip XML dit's fixtures
// and dit testdata cards write: camera, serial, Clip name and reel,
// Recording or Video codec, projectFps / sensorFps / captureFps, width,
// height, frames, Timecode start) and JSON (Blackmagic's .sidecar:
// camera_type, reel_name, frame_rate, frame_count, timecode) are flattened
// and read by the names cameras use; what is not there stays empty. What
// the camera was set to ([Shot]: ISO or exposure index, white balance,
// lens) is read the same way where a sidecar says it: Sony's acquisition
// items (<Item name="ISOSensitivity" value="800"/>, WhiteBalance,
// LensModelName), ARRI-style elements (ExposureIndex, WhiteBalance,
// LensModel), Blackmagic's iso, white_balance_kelvin and lens_type (a
// bare number of kelvin reads "5600K"). The media's own tags are not
// read for them (ffprobe shows no common tag for these), nor
// per-frame metadata (an MXF's or an R3D's, which changes within a clip).
// Sidecars over 1 MiB are not read. R3D, BRAW and CRM keep their metadata
// inside the media: from names alone those clips have no duration (ffprobe
// cannot read them either). A RED clip has no timecode or rate either:
// only RED's SDK (not open source, not used by dit) reads them from the
// R3D, so its TC and fps stay empty, the ALE lists it without a Start and
// no EDL or FCPXML places it (docs/guide.md, "Clips, not just files").
//
// # Thumbnails ([FFmpeg])
//
// [FindFFmpeg] finds ffmpeg and ffprobe on PATH (never required:
// [ErrNoFFmpeg], and reports say "no thumbnails (ffmpeg not found)").
// Both run under nice -n 19 and ionice -c 3 where those exist. [Readable]
// tells from the clip's type and the first bytes of its file whether
// ffmpeg can read it (QuickTime / MP4, MXF, MPEG-TS, Matroska, AVI, TIFF /
// DNG; not ARRIRAW, X-OCN, R3D, BRAW or Cinema RAW Light), so a file that
// only carries a movie's name costs no process. [FFmpeg.Probe] reads
// what the file itself says: its codec and type win over the camera
// family's guess from names (an ARRI-named MXF holding DNxHD is DNxHD),
// and its start timecode (the video stream's, a timecode track's, or the
// container's, where MXF keeps it), rate, frames, seconds and resolution
// are the media's, and so is its sound ([Audio]: the audio streams, their
// channels summed, the first one's rate, bit depth and codec; none is
// Channels 0, while a clip nothing read the sound of has a nil Audio):
// where a sidecar said otherwise (120 frames in its XML,
// 96 in the file) the media wins and [Clip.Conflicts] says what the
// sidecar said (a sidecar's codec name, the camera's own more precise
// one, stays); the camera (make and model), its serial number and the
// reel name come from the container's tags where the camera wrote them
// (ARRI's com.arri.camera.CameraModel / CameraSerialNumber / ReelName,
// QuickTime's com.apple.quicktime.make / model, Sony's and Blackmagic's),
// never from a muxer's own tags;
// [FFmpeg.Poster] writes a 320-pixel-wide JPEG poster frame, taken at one
// second (or half the clip, if shorter).
//
// reports/jobreport.Clipper runs this for an offload: each card once it
// is done, from its first copy (never the card; a folder, or a dit
// array read through its reader), the card's files streamed from the
// catalog into a [Recognizer], one clip at a time, and
// records the clips in the catalog (clips table, schema 11).
//
// # Codec names ([CodecName])
//
// One name per codec as the field writes it, whoever said it (ffprobe's
// short name and profile, a sidecar, an older catalog): ProRes 422
// Proxy / LT / 422 / HQ, ProRes 4444 (XQ), DNxHR LB / SQ / HQ / HQX / 444,
// DNxHD, MPEG-2 Long GOP, XAVC, H.264, H.265, ARRIRAW, REDCODE, BRAW,
// X-OCN, Cinema RAW Light. An ARRI-named MXF holding MPEG-2 is of type
// MPEG-2, not the family's ProRes.
//
// # Timecode
//
// [TCOut] is the timecode just after a clip's last frame (exclusive, as
// an ALE's End: out minus in is the duration), from its start, frames and
// rate; [TCFrames] and [FramesTC] convert, drop-frame (29.97 and 59.94,
// written with ';') included. Unknown stays unknown: no start timecode or
// no frame count gives "".
//
// # Fixtures
//
// testdata/ holds a small card tree per family with one-line dummy media:
// alexa35_arriraw (ARRIRAW HDE frame folders), minilf_prores (ProRes MXF +
// XML), venice_xocn (XDROOT, X-OCN MXF + M01.XML), fx6_xavc
// (PRIVATE/M4ROOT, MP4 + M01.XML, SUB proxies), red_komodo (RDM/RDC/R3D
// segments), bmd_braw (BRAW + .sidecar), canon_crm (CONTENTS/CLIPS001,
// CRM + XML), dcim_gopro, mixed (stills, a DNG sequence, a loose movie)
// and unknown (no clips).
package clips
