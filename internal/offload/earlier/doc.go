// Package earlier is what earlier jobs and earlier runs of a job left on
// the destinations, and what of it dit can trust without reading it
// again. It exists so that a newcomer finds the rules of trust apart
// from the pipeline that copies (internal/offload): the pipeline asks
// this package and acts on the answer; this package never imports the
// pipeline (arch_test.go holds that line).
//
//	prior.go          FindPrior: before a job, each card's earlier offload
//	                  whose copies are still whole on the destinations given
//	                  (Prior: covered, missing, gone; its Message); the ASC
//	                  MHL history a card carries (CardHistory); ScanCard and
//	                  ScanOptions: a card scanned as an offload copies it (the
//	                  files its history lists kept whatever their names)
//	priormatch.go     matchPrior: an earlier card's records walked as they
//	                  are read (catalog.EachFile), each found in the card's
//	                  scan, never held; where each copy is kept against the
//	                  scan (copyList), so a card of a million frames needs
//	                  a few bytes a file, not its records
//	vouch.go          Vouch: whether a resume trusts a copy an earlier run
//	                  verified (its identity unchanged) or reads it again
//	                  (Changed, Unvouched), which the resume's note counts
//	sealedchain.go    the chain file dit's own seal rewrote: SealedChain (a
//	                  resume takes it as done), FirstRunSealed (a cascade's
//	                  second run does not hold the first copy's chain against
//	                  the card); ChainRel
//	remotehistory.go  RemoteHistory: the ASC MHL history an earlier job
//	                  left in a remote folder, read back whole, kept as the
//	                  card's when it records every verified file with the
//	                  card's hashes (NotRecorded names those it does not)
//
// The package reads the catalog, the cards and the destinations (a dit
// array's through it, read-only; a remote's through dest.Store); it
// writes nothing there (a history read back is staged in a local
// folder the remote kind gives, and removed). dit verify, which
// reads every recorded copy back, is internal/offload/recheck; how a
// resume takes up what is trusted (a big file's checkpoints, a kept temp
// proved against them, an absent card's copies read again) is
// internal/offload/resume.
//
// Package offload gives FindPrior, Prior, CardHistory and ScanCard under
// its own names, the API the front ends have always used.
package earlier
