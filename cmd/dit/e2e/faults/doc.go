// Package faults holds the end-to-end fault-injection tests through FUSE
// (internal/faultfuse; Linux with /dev/fuse and root, skipped elsewhere):
// a card that flips a bit, returns EIO, stops answering or is pulled and
// put back, a destination that flips a bit or stalls a rename while dit is
// killed, Ctrl-C during the reports, and the mid-file resume of a 512
// MiB clip after kill -9.
package faults
