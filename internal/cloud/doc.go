// Package cloud is dit's cloud destination: a destination written
// rclone:REMOTE:PATH, where REMOTE is a remote of the user's own rclone
// configuration (rclone config, RCLONE_CONFIG, or RCLONE_CONFIG_<NAME>_*
// environment variables) and PATH a folder on it (a bucket and prefix on
// S3). dit drives the rclone binary (the engine every such transfer
// already trusts); it holds no storage client of its own.
//
// PATH keeps a leading slash: rclone:loc:/srv/rushes is the folder
// /srv/rushes of a local (or SFTP, SMB) remote, and the path dit prints,
// records and hands rclone is that one folder. A path without one is
// relative to the remote's root (a bucket on S3).
//
// What it does, all through rclone:
//
//	Check      before a job: refuses a destination that names no folder
//	           (rclone:REMOTE:), a remote the configuration lacks, a
//	           path relative to the folder dit runs in (a local-type
//	           remote's; the error gives the absolute path to write), a
//	           folder that is not there (on S3: a bucket; a prefix with no
//	           object cannot be told from an empty folder, so only the
//	           bucket must exist) or is a file, credentials the storage
//	           refuses, a folder it may not write to (a small object of
//	           dit's own written there and removed: writecheck.go), an
//	           rclone older than OldestRclone: a DestError (check.go).
//	           CheckRead (dit verify's) writes nothing
//	Upload     files of a local folder to the remote (sync/copy with
//	           --files-from-raw, or rclone copy): a bandwidth limit,
//	           retries with backoff, the bytes sent so far (core/stats,
//	           or rclone's JSON stats); an object already there is never
//	           written over (the caller verifies it: a resumed upload
//	           sends nothing twice); UploadList, the files named in a
//	           file the caller wrote (a card's never held whole)
//	Rcat       one object from a stream the caller reads once and hashes
//	           (operations/copyurl reading it from dit's feeder with its
//	           length, or rclone rcat --size)
//	CopyFile   one local file (operations/copyfile, or rclone copyto)
//	List       what the remote holds under a folder, each object's size
//	           and MD5 as the storage reports it, and whether that MD5 is
//	           the storage's own (Server: S3's ETag of a single-part
//	           object) or a value a client stored beside it (rclone's
//	           md5chksum metadata of a multipart upload), which dit never
//	           counts as proof (operations/list, the storage's listing
//	           responses read in the daemon's log; or rclone lsjson
//	           --dump bodies); ListDir, the objects directly in a
//	           folder, not in its folders
//	Remotes    the remotes of the configuration (config/listremotes and
//	           the environment's, or rclone listremotes)
//	Open       an object read back from the remote (a GET through the
//	           daemon's --rc-serve, or rclone cat)
//	About      the storage's free space (rclone about --json), or that
//	           it reports none (S3: "unknown", not an error)
//	CheckDest  a destination before it is used, in the one wording dit
//	           and dit-gui show: rclone installed, the configuration file
//	           given there, the remote in it (else those it has are
//	           named), its folder readable (rclone's own words last)
//	CreateTemp, MkdirTemp
//	           dit's temporary files beside rclone in the temporary
//	           folder, named with the process id: dit-upload-PID-*.txt
//	           (an upload's list of files), dit-probe-PID-* (the empty
//	           folder Check runs rclone in), dit-history-PID-* and
//	           dit-history-there-PID-* (a card's history staged to go up
//	           or read back); the first one a dit makes sweeps those of
//	           processes that are gone (a dit killed), never a running
//	           one's (SweepTemp)
//
// The transfers and checks go through one rclone rcd per set of rclone
// settings (a job's), started at the first call and stopped daemonIdle
// after the last, private (127.0.0.1, credentials generated for it) and
// killed with dit (a parent-death signal): daemon.go, rcd.go, feeder.go.
// Listings (List, listing.go: the S3 ETags read from the daemon's log)
// and the remotes (Remotes) go through it too: a job starts one rclone
// process (but to find whether an alias leads to a folder relative to
// the working folder: check.go). Where there is no parent-death signal
// (not Linux), where rcd will not start, or with DIT_RCLONE_DAEMON=0,
// every operation is an rclone process of its own (rclone.go's
// commands), as it was before the daemon.
//
// Nothing is ever deleted or moved on the remote but Check's own object
// (WriteCheckPrefix...), removed the moment it is written. S3 objects are written
// single-part up to 5 GiB (--s3-upload-cutoff 5G), so their ETag is the
// MD5 of the stored bytes computed by the storage; larger objects are
// multipart and verified by reading them back. docs/cloud.md is the
// design: what "verified" means for a cloud copy, resume, limits.
//
// The oldest rclone dit drives is OldestRclone (1.60): Check refuses an
// older one first (version.go). Check's passes are kept for a minute in
// the process (a job's front end and engine both check), its refusals
// never.
//
// Tests run against a real S3 server on 127.0.0.1 that checks
// credentials (rclone serve s3 --auth-key, built once by s3test; moto for
// AWS's multipart ETags), with the real rclone binary; a test whose tool
// is missing skips saying which.
package cloud
