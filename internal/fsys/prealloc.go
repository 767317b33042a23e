package fsys

import "os"

// PreallocMin is the smallest file Preallocate reserves space for: clips,
// not frames (a frame's few hundred KB are placed well by the
// filesystem's delayed allocation, and a call a file would only cost).
const PreallocMin = 4 << 20

// Preallocate reserves the blocks of a new copy of n bytes before it is
// written, where the file and its filesystem can (Linux fallocate with
// FALLOC_FL_KEEP_SIZE: the size stays 0 and grows with the writes, so
// nothing reads as written that was not). Writing into reserved blocks
// is cheaper (the filesystem allocates once, not at each write; tmpfs
// takes its pages in one go) and lays the copy out in one piece. Nothing
// is reserved past the filesystem's free space. It is a hint: any error
// is ignored, and the writes that follow report what is wrong (a full
// disk, an I/O error) as they did without it.
func Preallocate(f WFile, n int64) {
	if n < PreallocMin {
		return
	}
	if of, ok := f.(*os.File); ok {
		preallocate(of, n)
	}
}
