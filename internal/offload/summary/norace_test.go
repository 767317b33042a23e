//go:build !race

package summary

const raceOn = false
