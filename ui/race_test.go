//go:build race

package ui

// raceDetector: this test binary runs under the race detector (make
// test's race stage).
const raceDetector = true
