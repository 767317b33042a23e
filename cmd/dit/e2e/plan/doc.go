// Package plan holds the end-to-end tests of dit plan, dit devices and
// simulated offloads (--simulate, --simulate-scale; the real binary): the
// plan a job shows is the plan it runs, and a simulated job runs as long as
// planned; dit speedtest (folders, cards read only, Ctrl-C) and the plan
// that uses its measured rates.
package plan
