// Package sched enforces a bus-budget plan (internal/plan) during an
// offload: a [Scheduler] is the offload.Limiter of a job.
//
// # Buckets
//
// Every block read from a card waits on the card's share bucket (its
// planned rate), every block written to a destination on that destination's
// bucket (its --limit), and every block read back from a destination for
// verification on its read-back share: the read-back the plan reserves for
// it (the planner charges verification to each destination's read rate and
// to the buses up from its port). A card re-read (--verify source+dest) is
// paced like any read from the card. Buckets are golang.org/x/time/rate
// token buckets; waits are tied to the job's context and large blocks are
// taken in burst-sized pieces. On real hardware only shares of a common
// budget are enforced (a card limited by a bus or destination it shares),
// so one card cannot starve another; a card limited by its own medium or by
// the CPU is never held back. Likewise a destination's read-back is held to
// its share only while a card is held by a budget the read-back also uses
// (a bus up from the destination's port, or the destination), so
// verification cannot starve the copies sharing its bus; once every card is
// copied, no share holds read-back back (simulated hardware still does).
//
// With Config.Simulate the buckets also play the field's hardware on any
// machine: each card is throttled to its medium's read rate (and its port's
// per-device cap), each bus to its usable rate per direction (reads from
// cards; writes to destinations with their RAID parity), each destination
// to its write rate and blade caps, the read-back of each destination to
// its read rate and the buses up from its port (reads; with the writes on a
// half-duplex bus), and each card and each destination's read-back to its
// planned share. Config.Scale runs all of it at a fraction of the field
// rates (dit offload --simulate-scale, or DIT_SIMULATE_SCALE), so a small
// machine keeps up and tests finish quickly; plans are recorded in field
// units with their scale, and [Scheduler.RunPlan] is the plan in the
// units of the run (what dit offload and dit plan --simulate-scale show).
//
// A cascade's second runs (offload.Options.Then) read the first copy: a
// card index beyond the plan's cards is paced, simulating, by the first
// run-1 destination's read rate and the buses up from its port, and their
// writes by the run-2 destinations' buckets; the plan's times for them are
// its Cascade (see internal/plan).
//
// # Re-planning
//
// [Scheduler.Observe] follows the job's events (the CLI wraps
// Options.OnEvent with it): when a card leaves the copying phase, or ends,
// the remaining cards are re-planned with the freed budget and their
// buckets raised. The plan at the start ([Scheduler.Start]) and every
// re-plan are recorded in the catalog (plans, plan_cards) and shown in the
// job's summary.
//
// # Costs beyond the bytes
//
// [LearnCosts], called once a job has ended (dit offload, through the
// composition layer), measures from the job's catalog what each card's
// run cost its destinations beyond its bytes (per file copied and read
// back, before the first byte, from the last byte read back to sealed)
// and records it per destination volume or cloud remote (table costs);
// [ApplyCosts] gives a topology's destinations the median of their
// recent measurements in place of their kind's defaults, and their kind
// (a dit array's blade, a cloud remote, a folder). [FillSizes] counts
// each card's files, so the plan counts their costs. A simulated job's
// plan is recorded in the units of the run too (catalog.Plan.RunDetail):
// its costs are this machine's seconds, not scaled.
//
// [ForJob] picks a job's cards and destinations out of a topology file;
// [MachineCPU] gives the planner this machine's hash speeds from a short
// self-benchmark cached in the catalog (table cpu_bench, by algorithm
// name): each algorithm's single-core speed, and MD5's rate with 1, 2,
// 4, 8 and 16 streams hashing at once ([MeasureMD5Streams], cached as
// "md5@k": bytes/s of the k streams together), since the process hashes
// several MD5 streams in one core's vector lanes (internal/hashing/lanes).
// A job of n cards plans MD5 with the figure of the most streams not
// above n (plan.CPU.MD5At): one stream's share of it per card, and per
// core the whole of it where the streams share the lanes.
package sched
