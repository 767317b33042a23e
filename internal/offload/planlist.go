package offload

import (
	"fmt"
	"sync/atomic"

	"github.com/dit-org/dit/internal/gcgoal"
	"github.com/dit-org/dit/internal/source"

	"github.com/dit-org/dit/internal/fsys"
)

// planList is a card's plan held compact: the scan's own list of the
// files (source.Files: paths front-coded with sizes and times, ~14
// bytes a file on a card of frames, kept on disk but for a few blocks;
// the same list, not a copy; searched by path through a
// source.PathIndex, which makes no path on the heap),
// and per file a byte of marks per destination (its mode and flags) and,
// unless the scan is in the paths' order already, its place in that
// order (4 bytes). A file's plan (filePlan, with its destPlans)
// is made from it when the reader comes to the file (cardRun.filePlanAt)
// and let go with its task: only the files in flight, waiting for their
// read-back or being read back are held whole, never the card's list of
// them. What a destPlan holds beside its marks is found again when it is
// made: its path (the file's own under the card's folder, or its earlier
// copy's), the earlier run's copy (cardRun.prev, a resume's records) and
// the checkpoint it goes on from (cardRun.resumable).
type planList struct {
	files *source.Files
	// index finds a path among the files (has): the list's own order
	// when it is the paths' byte order (a card of frames, walked in
	// order), else a sort index of 4 B a file.
	index *source.PathIndex
	// marks: per file, 1+nd bytes: the file's (markProbe, markPlanned),
	// then each destination's (its planMode and mark* below); on disk
	// but for a few pages for a large card in its paths' order
	// (planmarks.go).
	marks *planMarks
	nd    int
	// held counts the list and the plan as held for the card's run
	// (internal/gcgoal: no collector's headroom on them), released
	// with the plan.
	held *gcgoal.Held
}

// A file's marks.
const (
	markProbe   = 1 << 0 // filePlan.probe
	markPlanned = 1 << 1 // its destinations are planned (filePlan.dests made)
	markPrev    = 1 << 2 // planned with an earlier run's record (filePlan.prev)
)

// A destination's marks, beside its planMode (the low 3 bits).
const (
	markModeMask   = 0x07
	markReplaceOwn = 1 << 3 // destPlan.replaceOwn
	markRechecked  = 1 << 4 // destPlan.rechecked
	markSet        = 1 << 5 // planned (a destPlan that is not the zero one)
)

// newPlanList is the compact plan of the scan's files for nd destinations,
// nothing planned yet. It is made on files, not on a copy of them: the
// scan's list is the plan's (a card's files are never held twice).
func newPlanList(files *source.Files, nd int) *planList {
	if files == nil {
		files = &source.Files{}
	}
	n := files.Len()
	l := &planList{files: files, index: source.NewPathIndex(files), nd: nd}
	l.marks = l.newMarks(n * (1 + nd))
	l.held = gcgoal.HoldFor(l, int64(files.Held()+l.marks.heldBytes()+l.index.Held()))
	return l
}

// newMarks are n marks of the card's files, all 0: paged to disk when
// its list is (planMarks) and in its paths' order (the runs come to its
// files in the list's order), else in memory (a card walked out of its
// paths' order has its list in memory).
func (l *planList) newMarks(n int) *planMarks {
	dir := ""
	if l.index.Held() == 0 && l.files.Spilled() > 0 {
		dir = fsys.SpillDir()
	}
	return newPlanMarks(n, dir)
}

// len is how many files the card has (0 for a nil list: the plan let go).
func (l *planList) len() int {
	if l == nil {
		return 0
	}
	return l.files.Len()
}

// rel is file i's path (slash-separated, relative to the card).
func (l *planList) rel(i int) string { return l.files.Rel(i) }

func (l *planList) size(i int) int64 { return l.files.Size(i) }

// entry is file i as the scan found it.
func (l *planList) entry(i int) source.Entry { return l.files.At(i) }

// has says whether rel is one of the card's files (false once the plan
// is let go, as the names it replaces were).
func (l *planList) has(rel string) bool {
	if l == nil {
		return false
	}
	_, ok := l.index.Search(rel)
	return ok
}

// fileMarks and destMarks are where file i's own marks and destination
// di's are.
func (l *planList) fileMarks(i int) int     { return i * (1 + l.nd) }
func (l *planList) destMarks(i, di int) int { return i*(1+l.nd) + 1 + di }

// mode is file i's plan on destination di (modeWrite when not planned).
func (l *planList) mode(i, di int) planMode {
	return planMode(l.marks.get(l.destMarks(i, di)) & markModeMask)
}

// planned says whether file i's destination di is planned.
func (l *planList) planned(i, di int) bool { return l.marks.get(l.destMarks(i, di))&markSet != 0 }

// keep records what fp's plan on destination di is (its mode and flags)
// and whether the file is read twice (probe).
func (l *planList) keep(i, di int, fp *filePlan) {
	dp := &fp.dests[di]
	m := uint8(dp.mode)&markModeMask | markSet
	if dp.replaceOwn {
		m |= markReplaceOwn
	}
	if dp.rechecked {
		m |= markRechecked
	}
	l.marks.set(l.destMarks(i, di), m)
	f := uint8(markPlanned)
	if fp.probe {
		f |= markProbe
	}
	if fp.prev != nil {
		f |= markPrev
	}
	l.marks.or(l.fileMarks(i), f)
}

// planCount counts the files' plans a job made from its cards' planLists
// for the pipeline and has not let go yet (runPlan, planDone): what the
// job holds of them whole at once, and the most it held (tests hold it
// under a window: the card's list is never made whole again).
type planCount struct {
	live, peak atomic.Int64
}

// filePlanAt makes file i's plan from the card's planList: its entry, the
// earlier run's record of it, and each planned destination's destPlan.
func (c *cardRun) filePlanAt(i int) *filePlan {
	l := c.list
	fp := &filePlan{ent: l.entry(i)}
	fm := l.marks.get(l.fileMarks(i))
	fp.prev, fp.prevErr = c.prev.of(l, i)
	if fp.prevErr == nil && fp.prev == nil && fm&markPrev != 0 {
		// Planned on a record the catalog no longer gives: the plan
		// (a copy vouched for, its hashes kept) cannot be carried out.
		fp.prevErr = fmt.Errorf("the catalog %s no longer has what the earlier runs recorded of %s", c.j.cat.Path(), fp.ent.Rel)
	}
	fp.probe = fm&markProbe != 0
	if fm&markPlanned == 0 {
		return fp
	}
	fp.dests = make([]destPlan, l.nd)
	for di := range fp.dests {
		m := l.marks.get(l.destMarks(i, di))
		if m&markSet == 0 {
			continue
		}
		d := c.dests[di]
		dp := destPlan{mode: planMode(m & markModeMask), rel: relJoin(c.out, fp.ent.Rel), root: d.root,
			replaceOwn: m&markReplaceOwn != 0, rechecked: m&markRechecked != 0}
		dp.prev = fp.prevCopy(d.rec.ID)
		if dp.prev != nil && dp.prev.Path != "" {
			dp.rel = dp.prev.Path
		}
		if dp.mode == modeWrite && di < len(c.resumable) {
			dp.partial = c.resumable[di][fp.ent.Rel]
		}
		fp.dests[di] = dp
	}
	return fp
}

// runPlan is file i's plan for the pipeline: counted live (Job.plans)
// until its task ends (planDone).
func (c *cardRun) runPlan(i int) *filePlan {
	fp := c.filePlanAt(i)
	fp.counted = true
	pc := &c.j.plans
	n := pc.live.Add(1)
	for p := pc.peak.Load(); n > p && !pc.peak.CompareAndSwap(p, n); p = pc.peak.Load() {
	}
	return fp
}

// planDone lets go of a task's plan in the count of those live: its
// file's final state is recorded.
func (c *cardRun) planDone(fp *filePlan) {
	if fp != nil && fp.counted {
		fp.counted = false
		c.j.plans.live.Add(-1)
	}
}
