// Package watch is what `dit watch` (and dit-gui's Auto-offload switch)
// needs to offload cards without a command per card: a [Source] of
// mounted volumes ([Watch] turns its snapshots into appear / gone
// [Change]s), [Recognize], which tells a camera card from every other
// volume, the [Preset] a watch offloads with, and [Ejector], which ejects a
// card once it is free.
//
// # Events
//
// A watch says what it did with each volume it saw as an [Event] of its
// own kind, [EvVolume] ("volume" in dit watch --json, beside each job's
// engine events), with a typed [Action] (offload, join, retry, resume,
// queued, ignored, skipped, removed, ejected, eject_failed, error) and
// why. What a card's job does (progress, rates, estimates, stalls,
// verdicts) is the engine's: its events and live model (packages offload,
// live, verdict), rendered by the front end; a watch computes none of it
// and decides a card free or safe only from the engine's events
// (offload.EvCardFree, offload.EvSafeToFormat).
//
// # Volume sources
//
// [MountInfo] lists the mounts of /proc/self/mountinfo (Linux) backed by a
// block device, outside the system's own mount points; [Dir] lists the
// folders in one folder (macOS /Volumes; tests, where a folder appearing
// is a card inserted and one renamed away a card pulled). A volume's
// identity is its device and its root folder's inode (Volume.ID), so a
// card that comes back is known as itself only if its files are too.
//
// # Recognition
//
// A volume is a camera card when its name matches a pattern of the preset
// (volume_pattern, shell globs such as "A[0-9][0-9][0-9]*") or its top
// folders are a camera's: DCIM, PRIVATE (Sony XAVC), XDROOT (Sony X-OCN),
// CONTENTS (Canon), CLIPS, or ARRI, RED and Blackmagic media files in its
// first two levels. Never a card: a destination of the preset or a folder
// inside or around one, a blade of a dit array (dit-array/), a volume
// another dit writes to (.dit.lock), a system mount point.
//
// # Preset file (YAML), the format dit watch reads
//
//	destinations: [/Volumes/Blade1]          # first run (required)
//	then: [/Volumes/SHUTTLE1, /Volumes/SHUTTLE2]   # cascade (optional)
//	then_parallel: 1
//	hashes: md5,xxh64
//	verify: dest                             # dest | source+dest
//	verify_hashes: fastest                   # fastest | all
//	layout: "{job}/{card}"
//	name: "{date}"                           # job name; {date} {time} {host}
//	mhl: asc                                 # asc | v1 | both | none
//	ignore: ["*.RMD"]
//	include_hidden: false
//	topology: set.yaml                       # bus budget (dit plan), optional
//	volume_pattern: ["A[0-9][0-9][0-9]*"]
//	eject: true                              # eject each card when it is free
//	limit: 1.5GB/s                           # cap every destination's writes (headroom
//	                                         # for playback), or [/Volumes/Blade1=1.5GB/s]
//	proxies: prores-proxy,burnin             # editorial proxies (dit offload --proxies)
//	proxies_to: [/Volumes/SHUTTLE1]          # where they go (default the first destination)
//	notify: {...}                            # see internal/notify
//
// Unknown keys are errors that name the file and line; paths are relative
// to the preset's folder.
package watch
