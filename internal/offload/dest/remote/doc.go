// Package remote is the remote kind of destination: a folder of a
// remote of the user's rclone configuration, written
// rclone:REMOTE:PATH, behind the engine's [dest.Store] interface. It
// exists so that the rules of a storage reached through rclone live in
// one place the pipeline never imports (arch_test.go): the transfers go
// through internal/cloud (the rclone driver), and this package decides
// what the pipeline sees of them.
//
// Its rules:
//
//   - Server-side checksums: an object's [dest.Object.StorageMD5] is the
//     storage's own MD5 of the stored bytes, an S3 single-part object's
//     ETag (cloud.Object.ServerMD5); a multipart object's ETag, and the
//     md5 a client stored beside an object, are never one, so such an
//     object is verified by reading it back.
//   - Multipart: rclone writes S3 objects single-part up to
//     cloud.UploadCutoff (5 GiB), so that most objects carry that MD5.
//   - Listing costs: every listing is a walk of the folder on the
//     storage (an rc call to the job's rclone rcd, one listing at a time
//     per daemon: the storage's ETags are read from its log). ListDir
//     lists one folder's own objects (on S3 a delimited listing of its
//     prefix: a request a thousand keys), anew each time: a card's run
//     lists the folders of its files as it comes to them, for its plan,
//     its upload and its read-back (internal/offload, storelists.go),
//     never the card's whole folder. A Store keeps each folder's
//     recursive listing (List: the card's ascmhl folder for its seal,
//     dit verify's) until it writes there.
//   - Transfers: through the job's one rclone rcd (internal/cloud's
//     daemon), whose --bwlimit is the job's, shared by every transfer
//     of every destination; where there is none, a process each, each
//     with its own limit. Under a limit a Store streams one file at
//     once (else 4).
//   - Nothing is ever written over, moved or deleted on a remote (but
//     the object the front end's check writes and removes at once:
//     cloud.WriteCheckPrefix).
//
// Importing the package registers the kind ([dest.Register]); the
// settings a front end gives (offload's Env.Remote, RecheckOptions.Remote)
// are a [Settings]: a *cloud.Rclone, nil for rclone on PATH with the
// user's own configuration; [Rclone] is the rclone settings run (the
// composition layer's, for a job's other uploads: its proxies, with
// the settings offload.RemoteSettings gives, as its files are sent).
package remote
