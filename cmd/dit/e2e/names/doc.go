// Package names holds the end-to-end test of the names a camera card can
// hold (the real binary): NFC and NFD, emoji, CJK, spaces, a leading dash,
// newline, tab and CR, "\" ":" "*" "?" "<" ">" "|", XML's specials,
// 255-byte names and card folders, and paths longer than PATH_MAX. Each
// card either ends safe to format with every copy identical to the card
// (hashed by the test itself), its copies verified by dit verify, its ASC
// MHL history by dit and by the ASC reference tool (python3 needed; the
// check is skipped with a message without it), its MHL v1.1 list by dit
// and against the schema (xmllint); or it is refused at the start with a
// message naming the file, nothing copied.
package names
