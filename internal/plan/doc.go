// Package plan is dit's bus-budget planner: how fast each card can be
// copied when several cards share readers, hubs, controllers, Thunderbolt
// ports, destination arrays and CPU cores, and what holds each one back.
//
// # Profiles
//
// The figures a DIT plans with are data ([DefaultProfiles], from
// profiles.yaml, which names the source of each): media read rates (axs
// 0.235 GB/s, cfast2 0.55, codex-compact 1.0, codex-dock 2.5, ...), bus
// kinds with raw, usable and per-device rates (usb2 ... usb4, tb3, tb3-20g
// for long passive cables, tb4, pcie, internal), destination kinds with
// write and read rates, blade counts, RAID level and per-blade caps, and
// single-core hash speeds. A topology file overrides any of them.
//
// # Topology files
//
//	buses:
//	  - {name: usb-a, kind: usb3.2-gen2}
//	  - {name: tb-1, kind: tb3, parent: tb-ctrl-0}   # a port of a shared controller
//	  - {name: tb-ctrl-0, kind: tb3}
//	sources:
//	  - {name: A023, path: /Volumes/A023, media: cfast2, bus: usb-a}
//	  - {name: A024, media: cfast2, bus: usb-a, size: 256GB}   # no path: plan only
//	destinations:
//	  - {name: raid, path: /Volumes/Blade1, bus: tb-1, write_rate: 2.2GB/s, read_rate: 2.6GB/s, blades: 4, raid: 4, blade_rate: 1GB/s}
//	  - {name: b2, path: "rclone:b2:show/day1", run: 2}   # a cloud remote: kind cloud
//	upload_rate: 100MB/s   # the cart's uplink, shared by every cloud destination
//	cpu: {cores: auto, hash_rates: {md5: 0.7GB/s}}
//	# optional: media:, bus_kinds:, destination_kinds: add or override profiles
//
// Keys: buses {name, kind, parent, usable_rate}; sources {name, path,
// media, bus, read_rate, size, files}; destinations {name, path, bus, kind,
// write_rate, read_rate, blades, raid, blade_rate, limit, run};
// upload_rate. A cloud destination (kind cloud, or a path written
// rclone:REMOTE:PATH) writes through the uplink, which all of them share,
// and reads nothing back over a local bus (the storage's checksum
// verifies it); the result's Uploads say when each finishes, and its
// Uplink is that one link: what every cloud destination writes against
// upload_rate, its headroom counted once (a cloud destination bounded
// by the uplink has SharesUplink, and no more headroom than the
// uplink's). A discovered cloud destination is named by the whole
// rclone:REMOTE:PATH. Rates accept
// GB/s, MB/s, Gbit/s (decimal). Unknown keys, unknown kinds or media, a bus
// cycle, a reference to an undefined bus are errors that name the file and
// line ([ParseTopology]). [Topology.Encode] writes a topology back (the
// GUI's presets).
//
// # The planner
//
// [Plan] is pure. Every card is copied to every destination. Each card's
// rate is bounded by linear budgets on its path: its medium; the per-device
// cap of its port; every bus from its port up the parent tree, per
// direction (reads from devices: cards and read-back; writes to devices:
// each destination's bytes times its RAID write amplification; both
// together on a half-duplex bus); each destination's write rate (a RAID 4
// or 5 of k+1 blades writes (k+1)/k bytes per byte), blade caps, --limit
// and read-back rate; and the CPU: one card's hashing runs each algorithm
// on one core (MD5 ~0.7 GB/s per stream) and all hashing together fits the
// cores. Rates are allocated max-min fair by progressive filling: all
// rates rise together; when a budget is full the cards in it stop there,
// named by LimitedBy (media, bus:NAME, dest:NAME, cpu). The result also
// gives per-bus and per-destination load, capacity and headroom, totals in
// GB/s and TB/hour, ETAs (the plan is played forward, re-planned each time
// a card finishes) and how many more cards of a medium would still run at
// full speed ([FitMore]).
//
// # Cascades
//
// A destination with run: 2 (dit plan / dit offload --then) is a cascade's
// second run: each card is copied to the run-1 destinations, and once it
// is read back there ("card free") its second run reads the first copy
// from the first run-1 destination (its read rate and buses, shared with
// read-back and with the next cards' first runs writing it) and writes the
// run-2 destinations, at most Options.ThenParallel cards at once, in the
// order they became free. [Plan] plays this forward (cascade.go): each
// card's FreeSeconds and SafeSeconds (its last file, Source.LastFile, read
// back after each run's copy), the first copy's write and read load while
// both runs go, and [Cascade].Bottleneck in words ("shuttles limit: the
// last card (A002) is safe to format 8m32s after it is free").
//
// # Costs beyond the bytes
//
// Bytes over a rate miss what a card pays per file and per card: a card
// of thousands of small files takes far longer, and a card is not safe
// the instant its last byte is read back. Each destination has [Costs]:
// PerFile (seconds each file adds to the copy), VerifyPerFile (to its
// read-back), Start (before the card's first byte: folders, a cloud
// listing) and Fixed (from the last byte read back to safe: sealing the
// ASC MHL history, cloud listings, the history's upload, rclone's
// starts): measured after earlier jobs on that volume or remote
// (Destination.Costs, internal/sched's LearnCosts and ApplyCosts) or the
// defaults of its kind ([DefaultCosts]: folder, array, cloud). A card
// whose file count is known (Source.Files) pays the most of each over
// its run's destinations: its start and files along its bytes (its ETA),
// then its last file read back (Source.LastFile at the slowest read
// rate), what its read-back fell behind when slower per file than the
// copy, and its fixed costs (CardPlan.SafeSeconds, for every card; in a
// cascade each run's, before it is free and before it is safe). A card
// known by its size alone is planned by its bytes. [Result.Prior] gives
// a card's figures to an estimator that corrects them with what the run
// measures.
//
// The hash speeds come from [Benchmark], a short single-core measurement
// that the scheduler caches in the catalog per host.
package plan
