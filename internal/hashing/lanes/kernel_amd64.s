// The block functions are github.com/minio/md5-simd's (linked by name in
// kernel_amd64.go); this file only lets that file declare them.
