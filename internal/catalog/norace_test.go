//go:build !race

package catalog

// raceDetector: this test binary runs under the race detector (make
// test's race stage).
const raceDetector = false
