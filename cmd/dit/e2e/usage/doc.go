// Package usage holds the end-to-end test of dit's usage errors (the
// real binary): every bad value of every command exits 2, names the flag
// (or argument) and the value, and creates nothing.
package usage
