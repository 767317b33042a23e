// Package array holds the end-to-end tests of dit array and of offloads
// to a dit array (the real binary, built once by TestMain): creating,
// offloading to and extracting from an array, kill -9 and resume, blades
// damaged, missing, replaced or stale, scrub and status wording, the space
// check. The tmpfs cases need root (they skip without it).
package array
