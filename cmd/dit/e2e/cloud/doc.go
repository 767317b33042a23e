// Package cloud holds the end-to-end tests of cloud destinations
// (rclone:REMOTE:PATH; the real dit binary, the real rclone, a real S3
// server: moto on 127.0.0.1, one for the package, each test in a bucket
// of its own; the tests of keys and of a killed upload's rclone start
// their own): a cascade to the cloud whose upload is verified by the
// storage's own MD5, the card's ASC MHL history downloaded with the
// copies and verified by the ASC reference tool, kill -9 during an
// upload and a resume that does not send again what the remote holds, an
// object changed on the server found by dit verify, a card streamed to
// the cloud alone. A test whose tool (rclone, python3) is missing skips
// saying which.
package cloud
