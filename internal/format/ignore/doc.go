// Package ignore is the ignore-pattern matcher of ASC MHL histories: the
// gitignore syntax of the ASC MHL specification's Appendix C, compiled
// once ([New]) and asked per path ([Matcher.Match]).
//
// It is its own package because more than the history code asks it: the
// engine leaves ignored files out of a card's partial resume and of the
// prior-copy check (internal/offload), the sealer leaves them out of the
// listing it seals (internal/seal), and the MHL v1.1 reader leaves them out
// of what it converts (internal/format/mhlv1). Which patterns apply (a
// history's default list, a job's --ignore) is the caller's business; see
// ascmhl.DefaultIgnore for the list a new history starts with.
//
// Like the rest of internal/format it imports nothing of dit.
package ignore
