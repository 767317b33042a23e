// Package dest is what the engine's pipeline (internal/offload) knows of
// a destination: its kind, and for a destination that stores whole
// objects (a remote), the [Store] interface it writes, lists, reads back
// and checks through. It exists so that the pipeline names no storage:
// the rules of one (rclone, S3's checksums, multipart uploads, what a
// listing costs) live in the kind that implements Store
// (internal/offload/dest/remote), which the pipeline never imports
// (arch_test.go holds that line).
//
// # Three kinds
//
// A destination is one of three kinds, told by how it is written
// ([KindOf]):
//
//	Folder   a folder on a mounted filesystem (-d /Volumes/RAID)
//	Array    one of a dit array's blades (raid.IsBlade): the array's
//	         files are logical, read and written through the array
//	Remote   rclone:REMOTE:PATH, a folder of a remote of the user's
//	         rclone configuration ([RemotePrefix])
//
// A Folder and an Array are filesystems: the pipeline reaches both
// through [fsys.FS] (internal/fsys: fsys.OS, and the array's
// filesystem), which is their side of the interface: reserve space
// (fsys.Preallocate, FS.Free), open a file to write durably
// (FS.CreateTemp, WFile.Sync, FS.SyncDir), read it back from the medium
// (FS.OpenNoCache), rename it into place (FS.RenameNoReplace: never over
// a file), list (FS.ReadDir), remove (FS.Remove), and seal a history
// (ascmhl's stores over the same FS).
//
// A Remote is a [Store]: it holds whole objects under a name, each
// written at once and never renamed into place (nothing partial ever
// carries a name), never written over nor removed by dit; it lists what
// it holds with the storage's own checksum of each object where the
// storage has one, so that a copy is verified by the storage, or else
// read back. A history is sealed on a Store by staging it in a local
// folder ([Store.Stage]) and sending it like the footage.
//
// Where a card lands is the same on every kind: DEST/<layout>
// ([ExpandLayout]); a path inside a dit array is shown
// array:BLADE//PATH ([DisplayPath]), as its folders are on no blade's
// disk.
//
// # Registering a remote kind
//
// The pipeline opens a Store by its root ([OpenStore]) through the
// remote kind registered with [Register]; internal/offload/dest/remote
// registers itself when imported (as rclone's backends do with
// fs.Register), which the composition layer (internal/assembly) does.
// A program that builds jobs with remote destinations without it gets
// a clear error, never a local folder named "rclone:...".
//
// How the kind reaches remotes (for rclone: the binary, its
// configuration file, an upload limit) is the front end's [Settings],
// which the kind interprets (nil: its [Kinder.Defaults]). The pipeline
// reads of them only the configuration file and limit a job records,
// and gives them back settled ([Settle]), so it names no rclone.
//
// # What the pipeline and the later checks share
//
// A dit array's blades among a job's destinations are mounted as one
// filesystem ([MountArrays]: the pipeline, the earlier-offload lookup
// and dit verify read through it); a copy is read back from its medium
// and hashed the same way by all of them ([HashFile], [HashOpen], of the
// algorithms [VerifyAlgos] picks); a bad choice of the user's is a
// [UsageError] (dit exits 2); a remote's upload limit is read by
// [ParseBwLimit], and a copy's verify_algos said in words by
// [VerifiedBy]. What a Store holds of a card's files is read a folder at
// a time as a walk of them comes to each ([Lister], a few folders'
// listings kept), by the store run and by dit verify alike: never the
// card's whole folder, so that what either holds stays flat in the
// number of files on the card.
//
// # The catalog's words
//
// A remote's copy row records how it was verified (copies.verify_algos):
// [ByStorage] (the storage's own checksum), [ByReadBack] (read back from
// the remote and hashed) or [ByHistory] (the card's ASC MHL chain,
// verified as the chain of the history dit extended there), each
// followed by the algorithms compared.
package dest
