// Package cascade holds the end-to-end tests of cascading copies (dit
// offload --then; the real binary): card to a first copy (a folder or a
// dit array) then to shuttles, kill -9 in either run and resume, a first
// copy damaged, withdrawn or gone, dit verify of a cascade, a shuttle that
// fills up (a small tmpfs: root), a simulated cascade against its plan.
package cascade
