// Package hashing computes the checksums dit records for every file: md5,
// sha1, xxh64, xxh3, xxh128, c4 and blake3.
//
// All selected algorithms are computed in one pass over the bytes read from
// a card: [Multi] runs one goroutine per algorithm, so a slow hash (MD5,
// single-threaded by design) does not hold up the fast ones, and the caller
// hands it each block once.
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
