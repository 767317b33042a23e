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
// fcntl(F_NOCACHE). On Linux [OS.OpenNoCache] reads with O_DIRECT where
// the filesystem allows it (the kernel writes dirty pages back first; every
// read comes from the medium and fills no cache; buffers from [Block] are
// aligned for it, others go through an aligned bounce buffer); elsewhere
// (tmpfs, some FUSE and network filesystems) it drops the pages and reads
// through the cache, dropping behind the reads. [OpenAppend] reopens a temp
// to go on writing it (mid-file resume; not on a dit array).
// [Preallocate] reserves a new clip's blocks before it is written (Linux
// fallocate, size kept at 0; a hint, never past the free space): fewer
// extents and less kernel time on ext4, pages taken at once on tmpfs.
// [SyncsAlone] tells a plain filesystem (copies' fsyncs may run at once and
// share its journal commits) from a dit array (a Sync commits the file).
// [OpenFSSyncer] opens a destination's filesystem for syncfs(2) (Linux):
// one flush makes a batch of small copies durable, and reports any
// write-back error on the filesystem since the last.
// [Faulty] wraps any FS and injects faults by path.
package fsys
