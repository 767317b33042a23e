// Package faultfuse is test support: a loopback FUSE filesystem over a
// backing folder that misbehaves on request, so end-to-end tests can run
// the real dit binary against a card or a destination that lies, fails or
// hangs at the kernel boundary, where an in-process fault (internal/fsys's
// Faulty) cannot reach.
//
// It is never imported by production code: only _test.go files use it.
//
//	card := faultfuse.Mount(t, backing)    // t.TempDir() mount point, unmounted in t.Cleanup
//	card := faultfuse.MountAt(t, backing, filepath.Join(t.TempDir(), "A001")) // a chosen mount point
//	card.FlipBitOnFirstRead("DCIM/A.MOV", 4096)
//	run dit on card.Dir() ...
//
// Faults:
//
//   - FlipBitOnFirstRead: the first read covering a byte returns it with
//     bit 0 flipped; later reads are correct (a marginal reader).
//   - EIOAt: every read covering a byte fails with EIO (a bad sector).
//   - FailReadsAfter / FailAllAfter: once n files have been read (opened
//     and closed), or at the (n+1)th open, the card stops answering: EIO
//     for every open, read and stat of a file (FailAllAfter: of folders
//     too), while the mount point itself still stats fine; Tripped tells
//     when; Heal revives it.
//   - StallRename / Release: a rename onto a given base name blocks until
//     Release (or until the caller is killed: the kernel then interrupts
//     the request and the rename fails with EINTR, never happening).
//   - Disappear: forced, lazy unmount now (a pulled card).
//   - SlowWritesAfter: once n bytes are written, writes are paced to a
//     lower rate (a drive whose write cache ran out).
//
// Every file is opened with FOPEN_DIRECT_IO, so every read reaches this
// server (no page cache hides a second read), and never with FUSE
// passthrough (which would bypass it). Entry and attribute timeouts are
// zero, so every stat reaches it too.
//
// Mounting needs /dev/fuse and either root (a direct mount(2), no helper)
// or fusermount; Mount skips the test, saying why, when neither works.
// Linux only: elsewhere the package is empty (and its users are built for
// Linux only).
package faultfuse
