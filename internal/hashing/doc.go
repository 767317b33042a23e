// Package hashing computes the checksums dit records for every file: md5,
// sha1, xxh64, xxh3, xxh128, c4 and blake3.
//
// All selected algorithms are computed in one pass over the bytes read from
// a card: [Multi] runs one goroutine per algorithm, so a slow hash (MD5,
// single-threaded by design) does not hold up the fast ones, and the caller
// hands it each block once.
//
// MD5's hasher (MD5.New) is internal/hashing/lanes's where the CPU has
// AVX2 or AVX-512: the process's MD5 streams share one core's vector
// lanes when three or more hash at once, with crypto/md5's results and
// state format; crypto/md5's elsewhere. [MD5Implementation] says which.
//
// A mid-file resume goes on hashing from the middle of a stream
// (state.go): [Multi.Snapshot] saves every algorithm's state at a point of
// the stream (encoding.BinaryMarshaler: md5, sha1, c4 and xxh64 can; xxh3,
// xxh128 and blake3 cannot, [Marshalable]), [Unmarshal] restores one, and
// [Multi.Seed] hands a Multi hashers part way through a stream ([States],
// in memory; [Clone] copies any of the seven).
//
// Text encodings are exactly those of ASC MHL (see shared/mhl/README.md),
// because verification and the MHL tools compare strings:
//
//	md5, sha1, blake3  lowercase hex of the digest
//	xxh64, xxh3        %016x of the 64-bit value (big-endian hex)
//	xxh128             high 64 bits then low 64 bits, 32 lowercase hex digits
//	c4                 "c4" + base58 of the SHA-512 digest, left-padded with
//	                   '1' to 90 characters
package hashing
