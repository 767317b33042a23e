package cloud

import "context"

// CopyFile uploads the local file src as the object rel of d (rclone
// copyto, one S3 part up to 5 GiB, so that its ETag is the MD5 of the
// bytes the storage received). An object already at rel is never
// written over (--ignore-existing): CopyFile then sends nothing, and the
// caller, which lists and verifies what is at rel, finds another
// object there. A failed run is tried again (Tries, Backoff).
func (r *Rclone) CopyFile(ctx context.Context, src string, d Dest, rel string) error {
	return r.retry(ctx, "upload of "+src+" to "+d.At(rel), func() error {
		if dm, release := r.daemon(ctx); dm != nil {
			defer release()
			return dm.copyFile(ctx, src, d, rel)
		}
		args := []string{"copyto", src, d.At(rel), "--ignore-existing", "--s3-upload-cutoff", UploadCutoff, "--retries", "1"}
		if r.BwLimit != "" {
			args = append(args, "--bwlimit", r.BwLimit)
		}
		_, err := r.run(ctx, args...)
		return err
	})
}
