package offload

import (
	"context"
	"io"

	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/hashing"
)

// hashFile reads path back from its medium (page cache dropped first and
// behind the reads) and returns its digests and length. Two buffers
// alternate so reading overlaps hashing. If wait is set, it is called
// before each block with the bytes about to be read: up to size (the
// expected length) in all, then whole blocks if the file is longer; the
// read that finds the end of a file of the expected size is not paced.
func hashFile(ctx context.Context, fsy fsys.FS, path string, size int64, bufs [][]byte, mh *hashing.Multi,
	wait func(n int) error, progress func(int)) (hashing.Sums, int64, error) {
	f, err := fsy.OpenNoCache(path)
	if err != nil {
		return hashing.Sums{}, 0, err
	}
	defer f.Close()
	return hashOpen(ctx, f, 0, size, bufs, mh, wait, progress)
}

// hashOpen is hashFile's read of f, from offset start on (where f is,
// and where mh's hashers are: the length returned counts from 0).
func hashOpen(ctx context.Context, f io.Reader, start, size int64, bufs [][]byte, mh *hashing.Multi,
	wait func(n int) error, progress func(int)) (hashing.Sums, int64, error) {
	free := make(chan []byte, len(bufs))
	for _, b := range bufs {
		free <- b
	}
	total := start
	for {
		if err := ctx.Err(); err != nil {
			mh.Reset()
			return hashing.Sums{}, total, err
		}
		b := <-free
		if wait != nil {
			want := int64(len(b))
			if rest := size - total; rest >= 0 {
				want = min(want, rest)
			}
			if want > 0 {
				if err := wait(int(want)); err != nil {
					free <- b
					mh.Reset()
					return hashing.Sums{}, total, err
				}
			}
		}
		n, err := io.ReadFull(f, b)
		if n > 0 {
			mh.Write(b[:n], func() { free <- b })
			total += int64(n)
			progress(n)
		} else {
			free <- b
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			mh.Reset()
			return hashing.Sums{}, total, err
		}
	}
	return mh.Sum(), total, nil
}
