// Package proxies holds the end-to-end tests of dit offload --proxies
// (the real binary, real ffmpeg-made clips): proxies made from the
// verified copy of each card (a folder, or a dit array through its range
// server), playable, with the source's timecode and length, hashed in
// the catalog as the files are, a Unicode clip name burnt in; a clip
// ffmpeg cannot read is a recorded proxy failure while the card is still
// safe to format; a job killed before its proxies were made makes them
// when resumed without --proxies, and refuses a resume asking for others.
//
// cloud_test.go: proxies to a cloud destination (real rclone, moto's S3
// server on 127.0.0.1, internal/cloud/s3test): uploaded to
// proxies/<card folder>/ in the bucket, verified by the storage's own
// MD5, downloaded and played with the source's timecode, an object
// already at a proxy's name left as it was ("CLIP (2).mp4"), staged in a
// temporary folder removed after when no folder takes them; a job killed
// mid-upload resumed without sending a proxy twice; the proxies sheet
// written with the reports; the proxies pushed to a PostgreSQL catalog
// (internal/catalog/pgtest) and listed there by dit job show --proxies.
// Without rclone, python3, ffmpeg or PostgreSQL they skip, saying which.
// The clips are made by ffmpeg once for the package, small and short
// (640x360, 1 to 2 s: what a proxy keeps of a clip does not depend on
// its size), and copied into each test's card; the tests run in
// parallel.
package proxies
