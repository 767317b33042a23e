// Package summary is the engine's read model of a job once it is
// recorded: what the front ends and the job report say of a job, a card
// and a run, read from the catalog (never from a running pipeline), so a
// finished, interrupted or running job reads the same way. It exists so
// that a newcomer finds what dit says of a job apart from how the job is
// run: the pipeline (internal/offload) writes the catalog and this
// package reads it; it imports nothing of the pipeline (only the
// destination paths of internal/offload/dest).
//
// Every path a summary names is one a person or another program can
// open. A card's folder in a dit array (DestSummary.Path, and a
// cascade's HopSummary.Source read from it) is below the array's mount
// point when it is mounted, else below its mount place (raid/mountplace:
// where `dit array mount BLADE` mounts it), never array:BLADE//PATH; the
// array stays named beside it: ArrayUUID, ArrayPath (array:BLADE//PATH,
// what dit array ls, dit array extract and dit mhl verify take, mounted
// or not), ArrayMounted and, when not mounted, MountCommand.
//
//	summary.go   Summary, CardSummary, HopSummary: LoadSummary, from the
//	             cards' totals (LoadFileByFile: the same, file by file);
//	             each card's and run's verdict, through internal/verdict;
//	             each run's first FailuresListed failed files, the others
//	             counted (a card of a million failed frames is not carried
//	             whole into every status)
//	model.go     the job model: JobFigures and CardFigures, the figures
//	             the summary and the job report (reports/jobreport) both
//	             carry; TBPerHour
//	activity.go  Activity: what a job moved and the time it spent, from
//	             its per-second samples and runs (every TB/hour dit prints)
//	failures.go  Failure, FailuresListed: how many failed files a run lists
//	advice.go    CardAdvice: what a card's recorded failures say to do
//	words.go     the states and error words the pipeline records and this
//	             package reads (StateVerified, HistoryWaits, ...)
//
// Package offload gives every exported name here under its own (type
// aliases), the API the front ends have always used.
package summary
