package catalog

import (
	"encoding/base64"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/dit-org/dit/internal/hashing"
)

// CardState is the card side of a mid-file resume checkpoint (partials
// states, schema version 15): what lets a resume read the card's file
// only from the checkpoint on. Hashers are the saved states
// (hashing.Marshal) of every algorithm the job hashes with, after the
// card's first offset bytes; Span is the xxh3-64 (16 hex digits) of the
// card's bytes from SpanFrom to the offset (the interval since the
// checkpoint before, or the start), which the resume reads again to check
// the card's file is still the one the kept part came from.
//
// Text form: "v1 span=FROM:XXH3" then " ALGO=BASE64" per algorithm in
// canonical order (ALGO as hashing names it, BASE64 standard with
// padding), e.g. "v1 span=6291456:0a1b2c3d4e5f6071 md5=bWQ1... xxh64=eHhoBg...".
type CardState struct {
	SpanFrom int64
	Span     string
	Hashers  map[hashing.Algo][]byte
}

// Encode returns the text form ("" for nil).
func (s *CardState) Encode() string {
	if s == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "v1 span=%d:%s", s.SpanFrom, s.Span)
	algos := make([]hashing.Algo, 0, len(s.Hashers))
	for a := range s.Hashers {
		algos = append(algos, a)
	}
	sort.Slice(algos, func(i, j int) bool { return algos[i] < algos[j] })
	for _, a := range algos {
		fmt.Fprintf(&b, " %s=%s", a, base64.StdEncoding.EncodeToString(s.Hashers[a]))
	}
	return b.String()
}

// ParseCardState reads the text form; "" is nil, no error.
func ParseCardState(text string) (*CardState, error) {
	if text == "" {
		return nil, nil
	}
	f := strings.Fields(text)
	if len(f) < 2 || f[0] != "v1" || !strings.HasPrefix(f[1], "span=") {
		return nil, fmt.Errorf("checkpoint state %.40q: not v1", text)
	}
	from, span, ok := strings.Cut(strings.TrimPrefix(f[1], "span="), ":")
	n, err := strconv.ParseInt(from, 10, 64)
	if !ok || err != nil || n < 0 || len(span) != 16 {
		return nil, fmt.Errorf("checkpoint state %.40q: bad span", text)
	}
	s := &CardState{SpanFrom: n, Span: span, Hashers: map[hashing.Algo][]byte{}}
	for _, kv := range f[2:] {
		name, v, ok := strings.Cut(kv, "=")
		a, err := hashing.Parse(name)
		if !ok || err != nil {
			return nil, fmt.Errorf("checkpoint state: bad hasher %.20q", kv)
		}
		if s.Hashers[a], err = base64.StdEncoding.DecodeString(v); err != nil {
			return nil, fmt.Errorf("checkpoint state: %s: %w", name, err)
		}
	}
	return s, nil
}

// StateAt returns the card side recorded for offset off ("" if none).
func (p *Partial) StateAt(off int64) string {
	switch {
	case off <= 0:
		return ""
	case off == p.Offset:
		return p.State
	case off == p.PrevOffset:
		return p.PrevState
	}
	return ""
}
