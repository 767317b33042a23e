//go:build !race

package offload

const raceOn = false
