package offload

import (
	"sync"
	"testing"
)

// The writer's batch flush rules, each alone.
func TestSyncBatchFlushBefore(t *testing.T) {
	b := syncBatch{dir: "/d/A001/CLIP", commits: &sync.WaitGroup{}}
	if b.flushBefore("/d/A001/CLIP") {
		t.Error("an empty batch of the same folder is flushed before a copy")
	}
	if !b.flushBefore("/d/A001/OTHER") {
		t.Error("a copy into another folder joins the batch")
	}
	for range dirSyncBatch - 1 {
		b.tasks = append(b.tasks, &fileTask{})
	}
	if b.flushBefore("/d/A001/CLIP") {
		t.Errorf("a batch of %d copies is flushed before one more", len(b.tasks))
	}
	b.tasks = append(b.tasks, &fileTask{})
	if !b.flushBefore("/d/A001/CLIP") {
		t.Errorf("a full batch (%d copies) takes one more", len(b.tasks))
	}
}

func TestSyncBatchFlushAfter(t *testing.T) {
	b := syncBatch{bytes: dirSyncBytes - 1}
	if b.flushAfter() {
		t.Error("a batch under dirSyncBytes is flushed")
	}
	b.bytes = dirSyncBytes
	if !b.flushAfter() {
		t.Error("a batch of dirSyncBytes is not flushed")
	}
}

// flush hands on a batch that holds a copy, and nothing else.
func TestDestWriterFlush(t *testing.T) {
	w := &destWriter{batches: make(chan syncBatch, 2), cur: syncBatch{commits: &sync.WaitGroup{}}}
	w.flush()
	if len(w.batches) != 0 {
		t.Fatal("an empty batch was handed to the syncer")
	}
	w.cur.dir, w.cur.tasks, w.cur.bytes = "/d", []*fileTask{{}}, 10
	w.flush()
	if len(w.batches) != 1 {
		t.Fatal("a batch with a copy was not handed to the syncer")
	}
	if b := <-w.batches; b.dir != "/d" || len(b.tasks) != 1 || b.bytes != 10 {
		t.Errorf("handed on %+v", b)
	}
	if len(w.cur.tasks) != 0 || w.cur.bytes != 0 || w.cur.commits == nil {
		t.Errorf("the next batch does not start empty: %+v", w.cur)
	}
}
