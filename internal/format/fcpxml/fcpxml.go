// Package fcpxml writes Final Cut Pro XML (FCPXML 1.10) clip lists: a day's
// clips as assets that link to their media, in an event, and a project
// with the clips back to back, which Final Cut Pro, DaVinci Resolve and
// OpenTimelineIO import and relink by source file.
//
//	<fcpxml version="1.10">
//	  <resources>
//	    <format id="r1" frameDuration="1001/24000s" width="1920" height="1080"/>
//	    <asset id="r2" name="A001C001" start="86486400/24000s" duration="48048/24000s"
//	           hasVideo="1" hasAudio="1" audioSources="1" audioChannels="2" audioRate="48k" format="r1">
//	      <media-rep kind="original-media" src="file:///Volumes/RAID/Day01/A001/A001C001.mov"/>
//	      <media-rep kind="proxy-media" src="file:///Volumes/RAID/proxies/Day01/A001/A001C001.mov"/>
//	    </asset>
//	  </resources>
//	  <library><event name="Day01">
//	    <asset-clip ref="r2" name="A001C001" start=... duration=... tcFormat="NDF"/>
//	    <project name="Day01"><sequence format="r1" tcStart="3600s" tcFormat="NDF" duration=...>
//	      <spine><asset-clip ref="r2" name="A001C001" offset=... start=... duration=.../></spine>
//	    </sequence></project>
//	  </event></library>
//	</fcpxml>
//
// Times are rational seconds, whole frames of the rate's frame duration
// (1001/24000 s at 23.976, 1/25 s at 25, 1001/30000 s at 29.97): a
// clip's start is its start timecode's frame count (drop-frame counted
// as such: tcFormat DF), its duration its length in frames. One file has
// one rate (its format); the sequence starts at 01:00:00:00. A clip
// without a start timecode or a length is left out (it cannot be placed).
package fcpxml

import (
	"encoding/xml"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/dit-org/dit/internal/format/timecode"
)

// Clip is one clip of the list.
type Clip struct {
	// SourceFile is the clip's media; Proxy its editorial proxy ("": none),
	// linked as the asset's proxy-media.
	Name, SourceFile, Proxy string
	TCIn                    string // the first frame's timecode
	Frames                  int
	// Audio: the clip has sound, AudioChannels channels (0: not known)
	// at AudioRate Hz (0: not known).
	Audio         bool
	AudioChannels int
	AudioRate     int
}

// File is one FCPXML: a title (the event and the project), a rate, the
// clips' picture size and the clips.
type File struct {
	Title         string
	FPS           string
	Width, Height int
	Clips         []Clip
}

type xFormat struct {
	ID            string `xml:"id,attr"`
	Name          string `xml:"name,attr,omitempty"`
	FrameDuration string `xml:"frameDuration,attr"`
	Width         int    `xml:"width,attr,omitempty"`
	Height        int    `xml:"height,attr,omitempty"`
}

type xMediaRep struct {
	Kind string `xml:"kind,attr"`
	Src  string `xml:"src,attr"`
}

type xAsset struct {
	ID       string      `xml:"id,attr"`
	Name     string      `xml:"name,attr"`
	Start    string      `xml:"start,attr"`
	Duration string      `xml:"duration,attr"`
	HasVideo string      `xml:"hasVideo,attr"`
	HasAudio string      `xml:"hasAudio,attr,omitempty"`
	Sources  string      `xml:"audioSources,attr,omitempty"`
	Channels string      `xml:"audioChannels,attr,omitempty"`
	Rate     string      `xml:"audioRate,attr,omitempty"`
	Format   string      `xml:"format,attr"`
	Reps     []xMediaRep `xml:"media-rep"`
}

type xAssetClip struct {
	Ref      string `xml:"ref,attr"`
	Name     string `xml:"name,attr"`
	Offset   string `xml:"offset,attr,omitempty"`
	Start    string `xml:"start,attr"`
	Duration string `xml:"duration,attr"`
	TCFormat string `xml:"tcFormat,attr"`
	Format   string `xml:"format,attr,omitempty"`
}

type xDoc struct {
	XMLName   xml.Name `xml:"fcpxml"`
	Version   string   `xml:"version,attr"`
	Resources struct {
		Format xFormat  `xml:"format"`
		Assets []xAsset `xml:"asset"`
	} `xml:"resources"`
	Event struct {
		Name    string       `xml:"name,attr"`
		Clips   []xAssetClip `xml:"asset-clip"`
		Project struct {
			Name     string `xml:"name,attr"`
			Sequence struct {
				Format   string       `xml:"format,attr"`
				TCStart  string       `xml:"tcStart,attr"`
				TCFormat string       `xml:"tcFormat,attr"`
				Duration string       `xml:"duration,attr"`
				Spine    []xAssetClip `xml:"spine>asset-clip"`
			} `xml:"sequence"`
		} `xml:"project"`
	} `xml:"library>event"`
}

// audioRates are the sample rates FCPXML names (its DTD's audioRate).
var audioRates = map[int]string{32000: "32k", 44100: "44.1k", 48000: "48k", 88200: "88.2k", 96000: "96k", 176400: "176.4k", 192000: "192k"}

// Version is the FCPXML version written.
const Version = "1.10"

// frameDuration is one frame at fps as a fraction num/den of a second.
func frameDuration(fps string) (num, den int, ok bool) {
	v, err := strconv.ParseFloat(strings.TrimSpace(fps), 64)
	if err != nil || v <= 0 {
		return 0, 0, false
	}
	base := timecode.Base(fps)
	if d := float64(base) - v; d > 0.001 && d < 0.1 { // 23.976, 29.97, 59.94: base*1000/1001
		return 1001, base * 1000, true
	}
	return 100, base * 100, true
}

// Write writes f as FCPXML 1.10.
func Write(w io.Writer, f *File) error {
	num, den, ok := frameDuration(f.FPS)
	if !ok {
		return fmt.Errorf("FCPXML %q: no frame rate", f.Title)
	}
	base := timecode.Base(f.FPS)
	t := func(frames int) string {
		if frames == 0 {
			return "0s"
		}
		return fmt.Sprintf("%d/%ds", frames*num, den)
	}
	var d xDoc
	d.Version = Version
	d.Resources.Format = xFormat{ID: "r1", FrameDuration: fmt.Sprintf("%d/%ds", num, den), Width: f.Width, Height: f.Height}
	d.Event.Name, d.Event.Project.Name = f.Title, f.Title
	drop := false
	for _, c := range f.Clips {
		drop = drop || strings.Contains(c.TCIn, ";")
	}
	tcf := "NDF"
	start := "01:00:00:00"
	if drop {
		tcf, start = "DF", "01:00:00;00"
	}
	rec, _, _ := timecode.Frames(start, base)
	seq := &d.Event.Project.Sequence
	seq.Format, seq.TCStart, seq.TCFormat = "r1", t(rec), tcf
	total := 0
	for i, c := range f.Clips {
		in, _, ok := timecode.Frames(c.TCIn, base)
		if !ok || c.Frames <= 0 {
			continue
		}
		id := "r" + strconv.Itoa(i+2)
		a := xAsset{ID: id, Name: c.Name, Start: t(in), Duration: t(c.Frames), HasVideo: "1", Format: "r1",
			Reps: []xMediaRep{{Kind: "original-media", Src: fileURL(c.SourceFile)}}}
		if c.Proxy != "" {
			a.Reps = append(a.Reps, xMediaRep{Kind: "proxy-media", Src: fileURL(c.Proxy)})
		}
		if c.Audio {
			a.HasAudio, a.Sources = "1", "1"
			if c.AudioChannels > 0 {
				a.Channels = strconv.Itoa(c.AudioChannels)
			}
			a.Rate = audioRates[c.AudioRate]
		}
		d.Resources.Assets = append(d.Resources.Assets, a)
		d.Event.Clips = append(d.Event.Clips, xAssetClip{Ref: id, Name: c.Name, Start: t(in), Duration: t(c.Frames), TCFormat: tcf, Format: "r1"})
		seq.Spine = append(seq.Spine, xAssetClip{Ref: id, Name: c.Name, Offset: t(rec + total), Start: t(in), Duration: t(c.Frames), TCFormat: tcf})
		total += c.Frames
	}
	seq.Duration = t(total)
	if _, err := io.WriteString(w, xml.Header+"<!DOCTYPE fcpxml>\n"); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(&d); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// fileURL is an absolute path as a file:// URL (each element escaped); a
// relative path stays relative, escaped.
func fileURL(p string) string {
	if p == "" {
		return ""
	}
	u := url.URL{Path: filepath.ToSlash(p)}
	if filepath.IsAbs(p) {
		u.Scheme = "file"
		if !strings.HasPrefix(u.Path, "/") {
			u.Path = "/" + u.Path // C:/...
		}
	}
	return u.String()
}
