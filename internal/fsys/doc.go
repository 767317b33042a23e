// Package fsys is the small filesystem interface the offload engine uses for
// every byte it reads from a card or writes to a destination, so tests can
// inject faults (EIO at byte N, ENOSPC, short writes, a file that changes
// while it is read) without touching real hardware.
//
// [OS] is the real implementation. It opens sources read-only with
// O_NOFOLLOW|O_NONBLOCK (a FIFO or a swapped-in symlink never blocks or
// redirects a read), and on Linux with O_NOATIME, files and folders alike
// (reading a card does not even write its access times), and offers
// [File.DropCache] so read-back verification reads from the media, not the
// page cache: on Linux fdatasync + posix_fadvise(POSIX_FADV_DONTNEED), on
// macOS F_FULLFSYNC, msync(MS_INVALIDATE) of the file's pages and
// fcntl(F_NOCACHE).
// [Faulty] wraps any FS and injects faults by path.
package fsys
