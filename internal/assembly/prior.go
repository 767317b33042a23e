package assembly

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/dit-org/dit/internal/cloud"
	"github.com/dit-org/dit/internal/offload"
)

// DecisionKind is what an earlier offload of a card means for this job.
type DecisionKind string

const (
	// Skipped: verified before on every destination; not copied.
	Skipped DecisionKind = "skipped"
	// CopiedAgain: verified before, copied again as asked (Again).
	CopiedAgain DecisionKind = "copied_again"
	// Narrowed: verified before on some destinations; copied to the
	// others only (every card to copy has those: they are left out).
	Narrowed DecisionKind = "narrowed"
	// CopiedToAll: verified before on some destinations; copied to every
	// destination with the other cards.
	CopiedToAll DecisionKind = "copied_to_all"
	// Gone: an earlier verified copy is no longer there whole: it does
	// not count.
	Gone DecisionKind = "gone"
	// History: the card carries an ASC MHL history (a generation is
	// appended to its copies); DamagedHistory: one that cannot be
	// trusted (its copies get none).
	History        DecisionKind = "history"
	DamagedHistory DecisionKind = "damaged_history"
)

// Decision is one thing the catalog's memory of earlier offloads decided,
// with its reason in words: the front end prints it (the CLI as a line,
// or as the Event type in its JSON stream).
type Decision struct {
	Kind  DecisionKind
	Card  string // the card folder as given
	Label string
	// Event is the engine event type the CLI's JSON stream carries it
	// as: offload.EvAlreadyOffloaded, or offload.EvWarning (histories).
	Event   string
	Message string
	Prior   *offload.Prior // nil for a history
}

// NothingToCopy is the sentence a front end says when every card was
// skipped.
const NothingToCopy = "Nothing to copy: every card was offloaded and verified before."

// decide looks the cards up (offload.FindPrior) and applies what earlier
// offloads mean: the cards left to copy, the destinations left to copy
// to, and the decisions in order.
func decide(ctx context.Context, s *Settings) (cards, dests []string, out []Decision, err error) {
	all := append(append([]string(nil), s.Dests...), s.Then...)
	priors, hists, err := offload.FindPrior(ctx, s.Catalog, s.FS, s.Cards, s.IncludeHidden, s.Ignore, all...)
	if err != nil {
		return nil, nil, nil, err
	}
	say := func(k DecisionKind, p *offload.Prior, msg string) {
		out = append(out, Decision{Kind: k, Card: p.Card, Label: p.Label, Event: offload.EvAlreadyOffloaded, Message: msg, Prior: p})
	}
	// "Already offloaded" is judged per destination: a card verified
	// before on every destination given is skipped; one verified on some
	// is copied to the others. A destination every card to copy already
	// has is left out of this job.
	var partial []*offload.Prior
	for i, p := range priors {
		switch {
		case p == nil:
			cards = append(cards, s.Cards[i])
		case s.Again || slices.Contains(s.AgainCards, s.Cards[i]):
			say(CopiedAgain, p, p.Message()+": copying it again (--again)")
			cards = append(cards, s.Cards[i])
		case p.Done():
			say(Skipped, p, p.Message()+": skipped (dit offload --again copies it anyway)")
		default:
			cards = append(cards, s.Cards[i])
			partial = append(partial, p)
		}
		if p != nil && len(p.Gone) > 0 {
			say(Gone, p, fmt.Sprintf("%s: the earlier verified copy at %s is no longer there whole: it is not counted", p.Label, strings.Join(p.Gone, ", ")))
		}
	}
	dests = s.Dests
	// A cloud destination is uploaded from a local copy: the local ones
	// stay in the job (what they hold is compared, not written again).
	if len(partial) > 0 && len(partial) == len(cards) && len(s.Then) == 0 && !slices.ContainsFunc(s.Dests, cloud.IsDest) {
		dests = leaveOut(s.Dests, partial)
		for _, p := range partial {
			say(Narrowed, p, p.Message()+": copying it to "+strings.Join(dests, ", ")+" only")
		}
	} else {
		for _, p := range partial {
			say(CopiedToAll, p, p.Message()+": copied to every destination with the other cards")
		}
	}
	for _, h := range hists {
		d := Decision{Kind: History, Card: h.Card, Label: h.Card, Event: string(offload.EvWarning),
			Message: fmt.Sprintf("%s carries an ASC MHL history (%d generation(s), the last by %s): dit appends a generation to its copy on each destination",
				h.Card, h.Generations, h.Last)}
		if h.Problem != "" {
			d.Kind = DamagedHistory
			d.Message = fmt.Sprintf("%s carries an ASC MHL history that is damaged (%s): its copies get no new generation", h.Card, h.Problem)
		}
		out = append(out, d)
	}
	return cards, dests, out, nil
}

// leaveOut drops from dests those every card of partial already has a
// verified copy on.
func leaveOut(dests []string, partial []*offload.Prior) []string {
	drop := map[string]bool{}
	for _, d := range partial[0].Covered {
		drop[d] = true
	}
	for _, p := range partial[1:] {
		for d := range drop {
			drop[d] = drop[d] && slices.Contains(p.Covered, d)
		}
	}
	var keep []string
	for _, d := range dests {
		if !drop[d] {
			keep = append(keep, d)
		}
	}
	return keep
}
