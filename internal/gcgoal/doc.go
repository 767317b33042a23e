// Package gcgoal keeps the garbage collector's headroom off what the
// engine holds for a card's whole run.
//
// Go's collector lets the heap grow to twice what was live at the last
// collection (GOGC=100) before it collects again. That headroom pays for
// the garbage made between collections; memory held unchanged for a
// card's whole run needs none. A card of a million frames holds its list
// and its plan (~17 MB: internal/source.Files, the offload's plan) for
// its run: with the default headroom those bytes count twice in the
// process's peak.
//
// The engine says what it holds ([HoldFor]: bytes, tied to the object
// that holds them, let go with [Held.Release] or when that object is
// collected), and gcgoal sets the collector's percentage so that the
// heap may grow by what is live less what is held:
//
//	GOGC = 100 x (live - held) / live, from 25 to 100
//
// (live: the heap live after the last collection, read after each
// collection while anything is held). With nothing held the collector
// is at 100 again. A GOGC set in the environment is the user's: gcgoal
// then scales that figure the same way, and leaves GOGC=off alone.
package gcgoal
