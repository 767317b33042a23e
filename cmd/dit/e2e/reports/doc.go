// Package reports holds the end-to-end tests of a job's reports and
// figures (the real binary): CSV, JSON, HTML and PDF reports, clip
// thumbnails (ffmpeg; without it the reports say so), clips' timecodes,
// codecs and lengths as ffprobe reads them, the ALE (read by the ale
// package and by OpenTimelineIO), the editorial lists of a card per
// camera family (testcards.MakeFamilyCards: ALE, EDL and FCPXML read by
// OpenTimelineIO, with the media's audio tracks, proxies and the
// disagreements of a sidecar with its media), thumbnails of a job that goes only to
// a dit array and of the reference job (make demo's: two cards of real
// clips to a 4-blade array and a folder), TB/hour after
// interruptions, "already offloaded" per destination, and dit day across
// stations: two stations on one PostgreSQL catalog (the tests start their
// own server from the Debian postgresql package and skip without it), a
// station that syncs afterwards.
package reports
