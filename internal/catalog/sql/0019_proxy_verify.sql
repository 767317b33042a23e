-- 0019: how a proxy's copy on a destination was verified, in the form of
-- copies.verify_algos: "s3-etag:md5" (a cloud destination: the storage's
-- own MD5 of the object, an S3 single-part ETag, equal to the proxy's),
-- "readback:ALGOS" (the object read back from the remote and hashed), the
-- algorithms a copy to a second folder was read back with; '' for the
-- proxy as ffmpeg wrote it (hashed once named) and for rows of older
-- versions.
ALTER TABLE proxies ADD COLUMN verify_algos TEXT NOT NULL DEFAULT '';
