// Package proxies makes editorial proxies of a job's clips with ffmpeg
// (dit offload --proxies PRESET[,burnin]), from a verified copy of each
// card, never from the card (a card may be formatted once it is safe, and
// nothing is ever read from it after its copy).
//
// # Presets ([Presets], [ParseSpec], [Args])
//
//	prores-proxy   Apple ProRes 422 Proxy (prores_ks profile 0), 10-bit
//	               4:2:2, PCM audio, in a MOV
//	h264           H.264 (libx264, veryfast, CRF 23, 4:2:0), AAC audio, in
//	               an MP4 (faststart)
//	dnxhr-lb       Avid DNxHR LB, 8-bit 4:2:2, PCM 48 kHz audio, in an MXF
//	               (OP1a); dnxhr-lb-mov the same in a MOV
//
// A source wider than [MaxWidth] (1920) is scaled down to it, keeping its
// shape; a narrower one keeps its size. The frame rate is the source's
// (no -r), and so is the start timecode: ffprobe reads it from the
// source (the video stream's, a timecode track's or the container's tag,
// as clips.FFmpeg.Probe does) and ffmpeg writes it into the proxy
// (-timecode: a tmcd track in MOV and MP4, the MXF's timecode
// component), so that ffprobe of the proxy shows the source's timecode.
// ",burnin" draws the running timecode (top left) and the clip's name
// (bottom left) on half-dark boxes (drawtext; the name in a sans font
// fontconfig finds with its characters, [FontFor]). The clip's name may be any Unicode and any
// punctuation: it is escaped for drawtext's option and for the filter
// graph ([FilterValue]), with drawtext's %{} expansion off; ffmpeg runs
// with an argument list, never a shell. [Args] is pure: the tests check
// each preset's arguments without ffmpeg.
//
// # Where from, where to ([Maker])
//
// The Maker takes each card once its run is done (offload.EvRunDone,
// in internal/assembly's event hook, after the card is verified) and
// makes its clips' proxies one at a time (Options.Workers, default 1).
// Clips are recognised as internal/clips does (the catalog's files,
// walked into a clips.Recognizer: memory does not grow with the card's
// files; the sidecars of the copy). The copy read is the card's folder on the
// first folder destination that holds it, else the card's folder in the
// first dit array, which ffmpeg reads through a loopback HTTP range
// server (the route the thumbnails take). A clip with a file not
// verified gets no proxy.
//
// Proxies go to proxies/<the card's folder>/<clip>.<ext> on the
// destinations of --proxies-to (repeatable; each a -d or --then of the
// job: a folder, a dit array, a cloud destination), by default the job's first -d: beside the cards'
// folders, never inside one (a card's folder holds what its hash lists
// say). ffmpeg writes a hidden temporary name (.dit-proxy-XXXX.ext) in
// that folder; the finished file is synced and then linked to its name,
// the first free of "CLIP.ext", "CLIP (2).ext", ... (dit's rename rule
// for conflicts): an existing file is never overwritten. A clip whose
// proxy this job made before (a resumed job), still there at its size,
// is left. The proxy is made once; further --proxies-to destinations
// get a copy, checked against its hashes. Each proxy is hashed with the
// job's hash algorithms. A dit array destination is the job's own while
// it runs: its proxies are staged (in the first folder destination, else
// a temp folder) and written into it through the job's filesystem when
// the job ends ([Maker.WriteArrays], array.go).
//
// # To a cloud destination (cloud.go)
//
// A cloud destination (rclone:REMOTE:PATH, a -d or --then of the job;
// internal/cloud, docs/cloud.md) gets the proxy as soon as it is made,
// uploaded with rclone (never a client of dit's own: [cloud.Rclone.CopyFile],
// rclone copyto --ignore-existing, one S3 part up to 5 GiB) to
// REMOTE:PATH/proxies/<card folder>/<clip>.<ext>. It is made in the
// first folder destination among --proxies-to, else in a staging folder
// of the temp folder, removed once uploaded (or once the arrays have it).
// The name is the first free one on the remote (the listing), "CLIP
// (2).ext" ... as on a folder: an object at a name is never written over,
// unless it is this proxy (its size and the storage's MD5: a job killed
// after the upload and before its record), which is taken as it is; an
// object found at the name after the upload that is not the proxy (one
// that took the name between the listing and the upload, or bytes changed
// on the way) is left as it is and the proxy is a failure on that
// destination. The object is verified as every cloud copy
// (internal/offload's cloudrun.go): the storage's own MD5 (an S3
// single-part ETag, cloud.Object.ServerMD5) equal to the proxy's MD5
// (hashed with the job's algorithms, MD5 added when missing), recorded
// verify_algos "s3-etag:md5"; else the object read back (rclone cat)
// and hashed, "readback:ALGOS". An upload or a check that fails is the
// row's failure (state failed, rclone's error); the footage's verdict is
// unchanged. Ctrl-C records it cancelled.
//
// A resumed job counts a clip's proxies per destination: a cloud row
// made stands when the remote lists its object at its size (or cannot be
// listed), so it is never sent again; a clip with a proxy in a folder,
// still there at its size, and none yet on another destination is not
// made again: that file is copied or uploaded.
//
// # Priority ([Start])
//
// ffmpeg runs at nice 19 in the idle I/O class (ioprio_set), set with
// golang.org/x/sys/unix on a locked thread before the fork, so ffmpeg
// and all its threads are born with them; and again on the child's
// process id. The offload's reads, writes and hashes come first; the
// proxies take what is left (docs/benchmarks.md measures what is left to
// the offload).
//
// # Catalog and failures
//
// Every proxy is a row of the catalog's proxies table (schema versions
// 17 and 19, internal/catalog's doc): job, card, clip, the source copy
// read, destination (a folder, a dit array's blade, rclone:REMOTE:PATH)
// and path relative to it, preset, start timecode, hashes, size, state
// (made, failed, cancelled; skipped for camera raw ffmpeg does not read
// and frame sequences), error (ffmpeg's error line, [ErrorLine]; rclone's
// for an upload) and verify_algos (how its copy was verified, as
// above; "" for the proxy as ffmpeg wrote it, the algorithms for a copy
// to a second folder). A proxy that fails never
// changes the verdict of the copy (the footage is safe, the card still
// safe to format): it is a recorded proxy failure, which dit job show
// --proxies and the job's reports list (the proxies sheet, dit report
// --format proxies, too). dit catalog sync carries the rows with their
// job. Cancelling the Maker's context
// (Ctrl-C) stops ffmpeg; the clip it was making is recorded cancelled
// and no temporary file is left.
package proxies
