// Package e2e is the harness of dit's end-to-end tests (the packages under
// cmd/dit/e2e): [Main] builds the real dit binary once per test package,
// [Dit] and [RunDit] run it, and the helpers read what it left on disk
// (trees of hashes, hash lists, temps), its JSON summaries, and run the
// outside tools the tests compare with (the ASC MHL reference tool).
// [CrashAtEveryStep] is the kill -9 scenario that two packages share
// (crash/seal, crash/report), so that each runs in a few minutes. It holds
// no product logic: the tests check the binary as a user runs it.
package e2e
