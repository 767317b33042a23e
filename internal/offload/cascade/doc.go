// Package cascade is the rules of a cascade's second run (Options.Then):
// a card copied in two runs, the first from the card to the first
// destinations (hop 1), the second from the first copy to the later ones
// (hop 2). It exists so that a newcomer finds what a second run owes the
// first apart from the pipeline that runs both: the pipeline
// (internal/offload) starts, waits for and fails the runs, each a card
// run of its own, and asks this package what the rules say; this package
// never imports the pipeline, nor a destination kind (arch_test.go holds
// that line).
//
// It owns:
//
//	hops.go    which destinations are which run's (Hop), the hop an
//	           event carries (EventHop)
//	expect.go  the expectations: the hashes the card gave in the first
//	           run (Expected, the first run's records, read from the
//	           catalog a page of paths at a time as they are asked for,
//	           records.go); a file read from the first copy checked
//	           against them (Expect.Check: a Mismatch); the files the
//	           first copy lost (Expect.Missing, the records walked once);
//	           the first copy scanned as the second run reads it
//	           (ScanFirstCopy)
//	words.go   what a second run records when a rule fails: the file's
//	           failure naming both hashes, the first copy's withdrawn
//	           verdict, the lost files, a first copy that does not read,
//	           the card-free notice
//	turns.go   the turn gate of Options.ThenParallel (Turns): at most
//	           that many second runs read their first copies at once
//
// In the catalog a second run is a card row of its own (hop 2, from_card
// the hop-1 card, its path the first copy, its destinations the hop-2
// ones); its failures withdraw the first copy's verdict (catalog.FailCopy)
// so the card is neither free nor safe to format. Those writes, the
// removal of what a run wrote of a bad file, and the wait for a card's
// first run are the pipeline's (internal/offload/cascade.go).
package cascade
