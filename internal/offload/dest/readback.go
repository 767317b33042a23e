package dest

import (
	"context"
	"io"
	"strings"

	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/units"
)

// VerifyAlgos is what read-back recomputes: every hash of the job with
// all, else the fastest.
func VerifyAlgos(hashes []hashing.Algo, all bool) []hashing.Algo {
	if all {
		return hashes
	}
	return []hashing.Algo{hashing.Fastest(hashes)}
}

// HashFile reads path back from its medium (page cache dropped first and
// behind the reads) and returns its digests and length. Two buffers
// alternate so reading overlaps hashing. If wait is set, it is called
// before each block with the bytes about to be read: up to size (the
// expected length) in all, then whole blocks if the file is longer; the
// read that finds the end of a file of the expected size is not paced.
func HashFile(ctx context.Context, fsy fsys.FS, path string, size int64, bufs [][]byte, mh *hashing.Multi,
	wait func(n int) error, progress func(int)) (hashing.Sums, int64, error) {
	f, err := fsy.OpenNoCache(path)
	if err != nil {
		return hashing.Sums{}, 0, err
	}
	defer f.Close()
	return HashOpen(ctx, f, 0, size, bufs, mh, wait, progress)
}

// HashOpen is HashFile's read of f, from offset start on (where f is,
// and where mh's hashers are: the length returned counts from 0).
func HashOpen(ctx context.Context, f io.Reader, start, size int64, bufs [][]byte, mh *hashing.Multi,
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

// VerifiedBy says in words how a copy was verified, from its
// verify_algos: "the storage's MD5 (S3 ETag)", "read back from the
// cloud: xxh64", or the algorithms of a local read-back.
func VerifiedBy(verifyAlgos string) string {
	switch {
	case strings.HasPrefix(verifyAlgos, ByHistory):
		return VerifiedBy(strings.TrimPrefix(verifyAlgos, ByHistory)) + ", as the chain of the card's ASC MHL history extended by dit"

	case strings.HasPrefix(verifyAlgos, ByStorage):
		return "the storage's own " + strings.TrimPrefix(verifyAlgos, ByStorage) + " (S3 ETag)"
	case strings.HasPrefix(verifyAlgos, ByReadBack):
		return "read back from the cloud: " + strings.TrimPrefix(verifyAlgos, ByReadBack)
	}
	return verifyAlgos
}

// ParseBwLimit reads a --cloud-bwlimit: a rate in dit's syntax (as
// --throttle, --limit, --upload-rate; decimal units: 20MB/s or 20M is
// 20 000 000 bytes/s, 160Mbit/s the same; a plain number is bytes/s),
// returned in whole bytes/s. Anything else is a usage error naming the
// value and the syntax.
func ParseBwLimit(s string) (int64, error) {
	v, err := units.ParseRate(s)
	if err != nil || v < 1 || v > 1<<53 {
		return 0, Usagef("invalid --cloud-bwlimit %q: give a rate in bytes/s, decimal units, e.g. 20MB/s (20 000 000 bytes/s), 20M, 500kB/s or 160Mbit/s", s)
	}
	return int64(v), nil
}
