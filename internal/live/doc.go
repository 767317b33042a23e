// Package live is the live model of a running job: the one place that
// decides every figure and estimate a person reads while cards are
// copied (progress, rates, live TB/hour, time until a card is copied,
// free and safe to format, retries and stalls). The engine
// (internal/offload) feeds it its counters once a second; every front
// end (the CLI, dit-gui, dit watch, dit serve, notifications) renders the
// snapshot it returns, and computes no rate or estimate of its own. What
// a job, card or run ended as is decided by package verdict.
//
// # Accounting
//
// The engine counts, per run of a card and per destination, bytes and
// files read, written and read back, each once: a byte read or sent again
// after a retry is counted apart (BytesResent), so no progress figure
// passes 100 %. Retries and the last error seen at a destination are
// counted where they happen. After the read-back the seal (files named
// in the hash lists, once per destination) and the editorial proxies
// (clips done of clips to make) are counted (After), capped at their
// totals.
//
// # Rates
//
// Rates are exponentially weighted moving averages of the per-second
// rates, time constant RateWindow (8 s): a second's stall moves them by a
// fraction. The job's TB/hour is the bytes read from the cards (every run
// of the job, earlier runs before a resume included) over the time the
// job was active, in decimal TB per hour: the summary's end-to-end figure
// while the job runs. A card's (Card.TBPerHour) is the bytes its run read
// from its source over the seconds the run was copying or verifying
// (Card.ActiveSeconds: a tick's interval counts when the run was copying
// or verifying at either end of it; paused time counts, as in the job's
// figure; queued and writing hash lists do not): the summary's figure of
// the card while it runs.
//
// # Estimates
//
// Each stream of work is modelled as a cost per byte and a cost per file:
// the copy of a card (t = a*MB + b*files, measured on the seconds the
// card was copying) and the read-back of each destination (measured on
// the read-back's own working time, DestCounters.VerifyBusy, which the
// engine counts as the bytes come, a block at a time, so that a tick's
// bytes and time belong together). Costs are fitted by least squares
// over the last FitWindow (30 s, forgotten exponentially), pulled toward
// the plan's figures (Prior: the planner's rates and its stored costs
// per file and per card) with the weight of three seconds of
// measurement: what a card has not shown yet (the per-file cost of the
// small files after its clips) stays at the plan, what it has shown wins
// within seconds. A run's time left is its copy, then the read-back of
// the last file copied or of everything still waiting, whichever ends
// later, then its fixed cost (writing its hash lists, a history upload:
// learnt from the runs of the job that sealed already, else the plan's).
// A cascade's second runs are played forward through their slots
// (Config.ThenSlots) in the order their cards become free; two cards
// expected free within 2 s (or a tenth of their time) of each other keep
// the order of the last tick, so that each card's estimate does not jump
// by a whole second run and back as their estimates cross. An estimate
// is unknown (JSON null) while its run is stalled, or before anything is
// measured or planned; it reads rounded up to the second (Estimate.
// String): "0s" only when done.
//
// # Stalls
//
// A destination with work left whose counters have not moved for
// StallAfter (10 s) is stalled, with the last error dit saw there and the
// retry it is at ("s3: connection refused, retry 3 of 10, since 40s"); a
// card whose reads have not moved is stalled on the card ("no data from
// the card") unless a destination with an error holds it. A card writing
// its hash lists moves while the seal's walks go on (After.SealSteps:
// every file any walk came to, the first walk's count capped at the
// card's files being what FilesSealed shows), and is stalled only when
// they stop ("its hash lists are not being written"); until 2026-12-04 a
// card of a million frames was said STALLED, "nothing read back", for
// the ~50 s its hash lists took.
package live
