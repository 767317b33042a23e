// Package assembly is dit's composition layer: it turns one plain
// settings value into a job ready to run, the same way for every front
// end (dit offload, dit watch, dit-gui and its auto-offload).
//
// dit has three layers. The core (internal/offload, the catalog, raid,
// the hash-list formats, the scheduler) does the work; the front ends
// (cmd/dit, ui) parse what a person gives and render events and
// summaries; this package sits between them and is the only place a job
// is put together:
//
//	Spec            a job's settings as a person gives them, the one
//	                schema of dit offload's flags, a preset file (dit
//	                watch, the auto-offload) and dit-gui's form (what
//	                the form fills as the person types): text as typed,
//	                the preset file's keys (SpecKeys); Spec.Settings
//	                checks every value with the engine's rules (a
//	                cascade needs read-back, the hash lists their
//	                hashes, cloud destinations their verification),
//	                fills in the defaults (equal Specs, equal Settings)
//	                and names a bad one as the front end calls it
//	                (Namer: FlagNames, PresetNames, PresetLines, a
//	                form's labels); Spec.ForResume is what a resumed
//	                job takes of it
//	Settings        cards, destinations, a cascade's --then, hashes,
//	                verify mode, layout, name, ignore patterns, the bus
//	                budget (Schedule), the notification config, the
//	                catalog (and its station), hooks for the front end
//	Prepare         checks the hash lists against the hashes, looks every
//	                card up in the catalog (FindPrior) and decides what an
//	                earlier offload means: a card verified before on every
//	                destination is skipped ("nothing to copy" when none is
//	                left), a destination every card to copy already has is
//	                left out; the decisions come back as data (Decision)
//	                for the front end to print. It attaches the sealing
//	                (ASC MHL / MHL v1.1, internal/seal), the clips and
//	                reports written when the job ends (jobreport.Clipper),
//	                the proxies (internal/proxies, Settings.Proxies: each
//	                card's once its run is done, waited for before the
//	                reports),
//	                the bus-budget scheduler (internal/sched) and the
//	                notifications (internal/notify). A new or resumed
//	                job has rclone check each cloud destination first
//	                (cloud.Rclone.Check: a folder named and there, on S3
//	                its bucket; the remote configured; not relative to
//	                the working folder), in CheckRemoteDest's words: a
//	                refusal is a UsageError. A new job asks each
//	                cloud destination's remote for its free space (rclone
//	                about): one that reports less than the cards to
//	                upload refuses the job, as a folder too small does;
//	                one that reports none (S3) is a Note. Nothing is
//	                recorded.
//	Prepared.Open   offload.New or offload.Resume: a refused job (a bad
//	                destination, no space) creates no job in the catalog
//	Job.Start       binds the scheduler to the job's cards and records
//	                the plan (the front end shows Job.Plan)
//	Job.Run         runs the engine; the reports are written before it
//	                returns; its summary is the verdict read model
//	                (offload.LoadSummary, internal/verdict)
//	Job.Finish      sends the job's last notification (job_done with the
//	                PDF report, or the failure that stopped it), waits a
//	                bounded time for delivery and returns what did not go
//	                out, for the front end to show
//
// Errors a person can fix by giving other input are *UsageError (the CLI
// exits 2 on them). Text meant for people (Decision.Message, Notes,
// Warnings) is the front ends' to print or not; this package prints
// nothing.
//
// What the engine does with cloud destinations is asked before a job,
// in its words: CheckRemoteDests (what it refuses: the form's settings
// as they change) and RemoteRoutes (where each cloud copy comes from).
//
// The planning helpers (JobTopology, MachineCPU) are the ones the
// scheduler of a job uses, so that what dit plan and dit-gui's plan
// preview show is what a job enforces; a TopologyRequest's Measured and
// Costs (the catalog's LatestSpeedTest and RecentCosts) put what speed
// tests and earlier jobs measured in place of the tables. A job without
// a bus budget is planned too, from the discovered volumes, by a
// scheduler that enforces nothing (sched.Config.Observe): its plan is
// recorded beside what happened and is where the live estimates start.
// Job.Run measures, once a job has ended, what its destinations cost its
// cards beyond their bytes, for the next plans (sched.LearnCosts), for
// every front end.
//
// The front ends import this package, never internal/sched, the sealer or
// the proxy maker (arch_test.go enforces it).
package assembly
