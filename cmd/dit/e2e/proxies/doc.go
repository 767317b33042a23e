// Package proxies holds the end-to-end tests of dit offload --proxies
// (the real binary, real ffmpeg-made clips): proxies made from the
// verified copy of each card (a folder, or a dit array through its range
// server), playable, with the source's timecode and length, hashed in
// the catalog as the files are, a Unicode clip name burnt in; a clip
// ffmpeg cannot read is a recorded proxy failure while the card is still
// safe to format; a job killed before its proxies were made makes them
// when resumed without --proxies, and refuses a resume asking for others.
package proxies
