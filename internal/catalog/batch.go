package catalog

import "strconv"

// batch is the writes the writer goroutine commits in one transaction, in
// the order they were submitted. A row's upsert (a file's or a copy's,
// submitted with the row's key: submitRow) that follows an upsert of the
// same row with only other rows' upserts between them is folded into it:
// the earlier one takes the later one's values, in its place. The
// transaction's end is the same (each upsert sets every column of its
// row, and the totals' triggers count the change from the row before to
// the row after), with one row written instead of two: a frame's file
// and copy rows, copied then verified a moment later, are mostly in one
// batch. Any other statement is a barrier: nothing is folded across it.
type batch struct {
	ops  []op
	keys map[string]int // a row's key: its upsert's index in ops
}

// add queues o, folding it into an earlier upsert of its row.
func (b *batch) add(o op) {
	if o.key == "" {
		clear(b.keys)
		b.ops = append(b.ops, o)
		return
	}
	if i, ok := b.keys[o.key]; ok && b.ops[i].query == o.query {
		b.ops[i].args = o.args
		return
	}
	if b.keys == nil {
		b.keys = map[string]int{}
	}
	b.keys[o.key] = len(b.ops)
	b.ops = append(b.ops, o)
}

// reset empties the batch (committed).
func (b *batch) reset() {
	b.ops = b.ops[:0]
	clear(b.keys)
}

// fileKey and copyKey are the keys of a file's row and of its copy's on
// a destination.
func fileKey(cardID int64, rel string) string {
	return "f" + strconv.FormatInt(cardID, 10) + "\x00" + rel
}

func copyKey(cardID int64, rel string, destID int64) string {
	return "c" + strconv.FormatInt(cardID, 10) + "\x00" + strconv.FormatInt(destID, 10) + "\x00" + rel
}
