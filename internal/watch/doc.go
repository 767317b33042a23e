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
// A preset is a job's settings, the same as dit offload's flags and
// dit-gui's form (an assembly.Spec: the keys are the flags' words, "_"
// for "-"; the zero value of each is dit offload's default), and the
// watch's own keys. The job keys:
//
//	destinations: [/Volumes/Blade1]          # -d: first run (required); rclone:REMOTE:PATH too
//	then: [/Volumes/SHUTTLE1, /Volumes/SHUTTLE2]   # --then: cascade (optional)
//	then_parallel: 1                         # --then-parallel
//	hashes: xxh64,md5                        # --hash
//	verify: dest                             # --verify: dest | source+dest | none
//	verify_hashes: fastest                   # --verify-hashes: fastest | all
//	layout: "{job}/{card}"                   # --layout
//	name: "{date}"                           # --name; a preset's also fills in {date} {time} {host}
//	on_conflict: fail                        # --on-conflict: fail | skip | rename
//	mhl: asc                                 # --mhl: asc | v1 | both | none
//	ignore: ["*.RMD"]                        # --ignore
//	ignore_file: ignore.txt                  # --ignore-file
//	include_hidden: false                    # --include-hidden
//	throttle: 200MB/s                        # --throttle: each card's read rate
//	limit: 1.5GB/s                           # --limit: cap every destination's writes (headroom
//	                                         # for playback), or [/Volumes/Blade1=1.5GB/s]
//	block_size: 256KiB                       # --block-size
//	checkpoint_every: 64MiB                  # --checkpoint-every ("0": never)
//	proxies: prores-proxy,burnin             # --proxies: editorial proxies
//	proxies_to: [/Volumes/SHUTTLE1]          # --proxies-to (default the first destination)
//	proxy_workers: 1                         # --proxy-workers
//	drive_health: warn                       # --drive-health: warn | refuse | off
//	rclone_config: rclone.conf               # --rclone-config
//	cloud_bwlimit: 20MB/s                    # --cloud-bwlimit
//	allow_degraded: false                    # --allow-degraded
//	ale: false                               # --ale
//	no_directory_hashes: false               # --no-directory-hashes
//	author: Jane Doe                         # --author-name: the hash lists' creator info
//	author_role: DIT                         # --author-role (author_email, author_phone too)
//	location: Stage 5                        # --location
//	comment: second unit                     # --comment
//
// The watch's own keys:
//
//	topology: set.yaml                       # bus budget (dit plan), optional
//	volume_pattern: ["A[0-9][0-9][0-9]*"]    # volume names taken for cards
//	eject: true                              # eject each card when it is free
//	notify: {...}                            # see internal/notify
//
// A key that takes a list takes one value too (limit: 1.5GB/s). Paths
// are relative to the preset's folder. Every value is checked when the
// file is read, as dit offload checks its flags (assembly.Spec.Settings,
// the engine's rules included: a cascade needs read-back, the hash lists
// their hashes, cloud destinations their verification); a bad value and
// an unknown key are errors that name the file, the line and the key.
// [Preset.JobSettings] makes a job's settings of a preset, the same as
// dit offload's of the same flags.
package watch
