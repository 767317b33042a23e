package offload

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/dit-org/dit/internal/crashpoint"
	"github.com/dit-org/dit/internal/format/ascmhl"
	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload/dest"
	"github.com/dit-org/dit/internal/offload/summary"
)

// A card streamed to cloud destinations only is sealed like a card copied
// to a folder, but its history is written in a local staging folder (under
// the system's temporary folder, removed after; never on the card), then
// uploaded and verified like the footage, on each destination only once
// every file of the card is verified there (historyWaits):
//
//  1. The card's own ASC MHL history (its top-level ascmhl folder, a
//     camera's or an earlier copy's), if it has one, is copied from the
//     card to the stage, each file checked against the card's read.
//  2. Options.Seal appends the generation to the stage (SealInfo.Stage):
//     the seal sees the card's folder on the remote as the stage's files
//     beside the card's verified copies, with the hashes of the card's one
//     read (internal/seal).
//  3. Every file of the stage but the chain is uploaded (Store.Put,
//     never over an object there), then the chain (the commit point); each
//     object is verified by the storage's MD5, or read back.
//
// The card's manifests go up with the footage (the new history holds them
// byte for byte); its chain file does not: the one object at
// ascmhl/ascmhl_chain.xml is the chain of the new history, the card's
// chain followed by this job's generation, and its copy row is verified
// with the history (RemoteByHistory). An object already at a staged file's
// name (a killed run sent it) is verified against the staged file and
// not sent again; one that differs fails the seal, naming it, and stays.
// A resumed seal builds the same bytes: the seal time is kept, and a
// cloud copy verified before keeps its time (the hash date).

// RemoteByHistory is the verify_algos of the card's ASC MHL chain file on a
// cloud destination: uploaded as the chain of the card's history extended
// by this job's generation, verified as an object of that history
// (followed by how: "history:s3-etag:md5").
const RemoteByHistory = dest.ByHistory

// sealsInStore: the card is streamed to cloud destinations only and its
// hash lists are written there (staged and uploaded).
func (c *cardRun) sealsInStore() bool {
	return c.storeRun() && c.j.opts.Seal != nil
}

// holdChain takes the top-level chain file among files out of the upload
// of a run that seals in the cloud (from a first copy in a folder, whose
// files its Put sends): it goes up as the new history's chain. Its hashes
// are the first copy's, as read now (storeFiles). A copy verified in an
// earlier run (the history is there) is kept.
func (c *cardRun) holdChain(files []*storeFile) {
	for _, f := range files {
		if f.fp.ent.Rel != chainRel || f.rec.State != StatePending {
			continue
		}
		c.storeChain = f
		for di := range c.dests {
			f.res[di].rel = relJoin(c.out, f.fp.ent.Rel)
		}
		c.keepChain(f)
	}
}

// keepChain marks the chain's copies verified with the history in an
// earlier run as they are.
func (c *cardRun) keepChain(f *storeFile) {
	for di, d := range c.dests {
		if p := f.fp.prevCopy(d.rec.ID); p != nil && p.State == StateVerified && strings.HasPrefix(p.VerifyAlgos, RemoteByHistory) {
			c.verifiedStore(di, f, p.VerifyAlgos)
		}
	}
}

// streamChain handles the card's top-level chain file in a run that seals
// in the cloud: read and hashed (its row carries the card's hashes), not
// sent; its copy is verified with the history. A copy verified in an
// earlier run (the history is there) is kept.
func (c *cardRun) streamChain(ctx context.Context, f *storeFile) {
	c.storeChain = f
	rel := f.fp.ent.Rel
	sums, _, _, err := c.streamRead(ctx, rel, f.fp.ent.Size, nil, nil)
	if err != nil {
		c.streamFailed(ctx, f, err)
		return
	}
	want, checked, err := c.expectOf(rel)
	if err != nil {
		c.streamFailed(ctx, f, err)
		return
	}
	if checked {
		// A first copy on an array whose chain should still be the
		// card's (not extended by the first run's seal).
		if msg := c.checkStreamed(rel, want, sums); msg != "" {
			c.streamFailed(ctx, f, errors.New(msg))
			return
		}
	}
	f.want, f.rec.Sums = sums, sums
	c.j.cat.PutFile(f.rec) // its hashes, which the seal checks the staged chain against
	c.keepChain(f)
}

// historyWaits says why the card's history must wait on cloud destination
// di, "" when it may be written: every file of the card must be verified
// there first (files: the catalog's, with their copies there), and the
// card's every entry read. dit never replaces an object, so the chain
// object is written once, for the card whole: a history written with a
// file left out could never list it once a resume uploads it. The card's
// top-level chain file goes up with the history (its copy is verified
// with it, whatever an earlier seal left recorded), so it does not wait,
// unless this run could not read it.
func (c *cardRun) historyWaits(di int, files SealFiles) (string, error) {
	var waiting []string
	n := 0
	err := files.Each(func(f *SealFile) error {
		if f.State == StateVerified || (f.Rel == chainRel && c.chainGoesUp(di)) {
			return nil
		}
		if n++; n <= 5 {
			waiting = append(waiting, f.Rel)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	for _, rel := range c.unreadable() {
		if n++; n <= 5 {
			waiting = append(waiting, rel)
		}
	}
	if n == 0 {
		return "", nil
	}
	shown := waiting
	if n > 5 {
		shown = append(shown[:5:5], fmt.Sprintf("and %d more", n-5))
	}
	return fmt.Sprintf("%s%s: %s not verified there (%s): dit offload --resume %d uploads %s and writes the history",
		HistoryWaits, storePath(c.dests[di], c.out), summary.NFiles(n), strings.Join(shown, ", "), c.j.rec.ID, summary.ItThem(n)), nil
}

// chainGoesUp: the card's chain file was read in this run and goes up to
// destination di with the history (or went up with it before).
func (c *cardRun) chainGoesUp(di int) bool {
	f := c.storeChain
	return f != nil && (!f.done[di] || f.res[di].state == StateVerified)
}

// sealStore writes the card's hash lists for cloud destination di (info
// as for a folder, CardDir the card's folder there): staged, sealed,
// uploaded and verified. It returns the seal's result (nil, a
// *SealWarning) or why the history is not in the cloud.
func (c *cardRun) sealStore(ctx context.Context, di int, info SealInfo, files SealFiles) (err error) {
	d := c.dests[di]
	if f := c.storeChain; f != nil && !f.done[di] {
		defer func() {
			if ctx.Err() != nil {
				return // the chain stays pending for a resume
			}
			var w *SealWarning
			if err != nil && !errors.As(err, &w) {
				c.failedStore(di, f, "the card's ASC MHL history is not in the cloud: "+err.Error())
			}
			// Recorded once final on every destination (this one made it so).
			c.finalizeStore(f)
		}()
	}
	stage, err := c.stores[di].Stage("dit-history-")
	if err != nil {
		return fmt.Errorf("staging the ASC MHL history: %w", err)
	}
	defer os.RemoveAll(stage)
	if err := c.stageCardHistory(stage, files); err != nil {
		return err
	}
	info.Stage, info.DirTimes = stage, map[string]time.Time{}
	for _, e := range c.scan.Dirs {
		info.DirTimes[e.Rel] = e.Mtime
	}
	serr := c.j.opts.Seal(ctx, info)
	var w *SealWarning
	if serr != nil && !errors.As(serr, &w) {
		return serr
	}
	crashpoint.Hit("cloud seal: history staged")
	note, err := c.uploadHistory(ctx, di, stage, files, info.OwnComment())
	if err != nil {
		return fmt.Errorf("uploading the ASC MHL history to %s: %w", storePath(d, c.out), err)
	}
	if note != "" {
		// The stage's generation is not sent: only the note is a warning.
		return &SealWarning{Messages: []string{note}}
	}
	return serr
}

// stageCardHistory copies the card's top-level ascmhl folder to stage,
// each file checked against the hashes of the card's read this job
// recorded (the history the new generation extends is the one the
// footage was checked against).
func (c *cardRun) stageCardHistory(stage string, recorded SealFiles) error {
	j := c.j
	want := map[string]hashing.Sums{}
	err := recorded.Each(func(f *SealFile) error {
		if strings.HasPrefix(f.Rel, ascmhlPrefix) {
			want[f.Rel] = f.Sums
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("catalog: %w", err)
	}
	for _, e := range c.cardHistory {
		rel := e.Rel
		src := filepath.Join(c.scan.Root, filepath.FromSlash(rel))
		dst := filepath.Join(stage, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := stageCardFile(j.opts.FS, src, dst, want[rel].Get(hashing.MD5)); err != nil {
			return err
		}
		os.Chtimes(dst, e.Mtime, e.Mtime)
	}
	return nil
}

// stageCardFile copies the card's history file src to dst in the stage
// as it reads it (a manifest of a million files is ~330 MB: never held
// whole), its MD5 taken on the way; one that reads differently from
// when it was offloaded (want) is an error, and dst removed.
func stageCardFile(fsy fsys.FS, src, dst, want string) error {
	in, err := fsy.Open(src)
	if err != nil {
		return fmt.Errorf("reading the card's ASC MHL history: %w", err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	sums, _, err := hashing.Reader([]hashing.Algo{hashing.MD5}, io.TeeReader(in, out))
	if cerr := out.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		os.Remove(dst)
		return fmt.Errorf("reading %s into the stage: %w", src, err)
	}
	if got := sums.Get(hashing.MD5); want == "" || want != got {
		os.Remove(dst)
		return fmt.Errorf("%s reads differently now (md5 %s) than when it was offloaded (md5 %q): the card changed; no history written", src, got, want)
	}
	return nil
}

// stagedFile is a file of the stage, to upload and verify.
type stagedFile struct {
	rel  string
	size int64
	sums hashing.Sums
}

// uploadHistory uploads the stage's files to the card's folder on cloud
// destination di, the chain last, and verifies every object. own starts
// the comment of the generations this job writes there (SealComment).
func (c *cardRun) uploadHistory(ctx context.Context, di int, stage string, recorded SealFiles, own string) (note string, err error) {
	files, err := c.stagedFiles(stage)
	if err != nil {
		return "", err
	}
	var first, last []stagedFile
	for _, f := range files {
		if f.rel == chainRel {
			last = append(last, f)
		} else {
			first = append(first, f)
		}
	}
	if err := c.chainFree(ctx, di, last, files); err != nil {
		var left *leftoverError
		if errors.As(err, &left) {
			return "", err
		}
		how, ours, herr := c.earlierHistory(ctx, di, recorded, own)
		switch {
		case herr != nil && ours:
			// This job wrote it, with every file verified then; the
			// resume has more (files added to the card, or changed).
			return "", fmt.Errorf("%s "+HistoryWritten+" once every file was verified, and dit never replaces an object, so no generation can be added to it: %v: those files are verified there, but the card is not safe to format by this job: offload it again to another cloud folder, whose history lists every file",
				storePath(c.dests[di], relJoin(c.out, ascmhl.HistoryDir)), herr)
		case herr != nil:
			return "", fmt.Errorf("%w, and the history there is not kept as the card's: %v", err, herr)
		}
		if f := c.storeChain; f != nil && !f.done[di] {
			c.verifiedStore(di, f, RemoteByHistory+how)
		}
		if ours {
			// This job's, written in an earlier run once every file was
			// verified there (a resume for another destination's files).
			return "", nil
		}
		return fmt.Sprintf("%s holds an ASC MHL history already (an earlier job's) that records every file of the card with the card's hashes: kept as it is, no generation added for this job (dit never replaces an object)",
			storePath(c.dests[di], relJoin(c.out, ascmhl.HistoryDir))), nil
	}
	if _, err := c.sendStaged(ctx, di, stage, first); err != nil {
		return "", err
	}
	crashpoint.Hit("cloud seal: manifests uploaded")
	how, err := c.sendStaged(ctx, di, stage, last)
	if err != nil {
		return "", err
	}
	if f := c.storeChain; f != nil && len(last) > 0 && !f.done[di] {
		f.res[di].written = true
		c.verifiedStore(di, f, RemoteByHistory+how[chainRel])
	}
	return "", nil
}

// chainFree checks, before anything of the history is sent, that the
// card's folder on destination di holds no other chain than the staged
// one (a killed run's is the same bytes): a history already there (an
// earlier job's) is never written over, nor given manifests its chain
// does not list.
//
// Nor is a history written beside objects of another one: with no chain
// there, every object in the card's ascmhl/ folder must be one of the
// stage's (a killed run sent it); any other (a manifest of an earlier
// history whose chain was moved away) refuses the seal (a
// *leftoverError), so a history dit calls sealed verifies whole.
func (c *cardRun) chainFree(ctx context.Context, di int, chain, staged []stagedFile) error {
	if len(chain) == 0 {
		return nil
	}
	held, err := c.historyHeld(ctx, c.stores[di], staged)
	if err != nil {
		return fmt.Errorf("cannot list %s: %w", storePath(c.dests[di], c.out), err)
	}
	if _, ok := held[chainRel]; !ok {
		ours := map[string]bool{}
		for _, f := range staged {
			ours[f.rel] = true
		}
		var left []string
		for rel := range held {
			if strings.HasPrefix(rel, ascmhlPrefix) && !ours[rel] {
				left = append(left, strings.TrimPrefix(rel, ascmhlPrefix))
			}
		}
		if len(left) > 0 {
			sort.Strings(left)
			return &leftoverError{fmt.Sprintf("%s holds %s not in the history dit writes for this card (%s), left from another history: nothing of this card's history was sent (beside them it would not verify): %s, and resume with dit offload --resume %d",
				storePath(c.dests[di], relJoin(c.out, ascmhl.HistoryDir)), summary.NFiles(len(left)), strings.Join(left, ", "), MoveHistoryAside, c.j.rec.ID)}
		}
		return nil
	}
	if _, err := c.checkStaged(ctx, di, chain[0], held); err != nil {
		return fmt.Errorf("%w (the folder holds an ASC MHL history already, perhaps an earlier job's: nothing of this job's history was sent)", err)
	}
	return nil
}

// stagedFiles lists the stage's files with their hashes.
func (c *cardRun) stagedFiles(stage string) ([]stagedFile, error) {
	var out []stagedFile
	err := filepath.WalkDir(stage, func(p string, e fs.DirEntry, err error) error {
		if err != nil || !e.Type().IsRegular() {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		sums, n, err := hashing.Reader(c.j.algos, f) // a manifest: ~330 B a file of the card
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(stage, p)
		out = append(out, stagedFile{rel: filepath.ToSlash(rel), size: n, sums: sums})
		return nil
	})
	sort.Slice(out, func(a, b int) bool { return out[a].rel < out[b].rel })
	return out, err
}

// sendStaged uploads the staged files the destination does not hold and
// verifies each object there against the staged file; it returns how
// each was verified (verify_algos), by path.
func (c *cardRun) sendStaged(ctx context.Context, di int, stage string, files []stagedFile) (map[string]string, error) {
	if len(files) == 0 {
		return nil, nil
	}
	d := c.dests[di]
	st := c.stores[di]
	where := storePath(d, c.out)
	held, err := c.historyHeld(ctx, st, files)
	if err != nil {
		return nil, fmt.Errorf("cannot list %s: %w", where, err)
	}
	var send []string
	for _, f := range files {
		if _, ok := held[f.rel]; !ok {
			send = append(send, f.rel)
		}
	}
	if len(send) > 0 {
		names, err := dest.NamesOf(st, send)
		if err != nil {
			return nil, err
		}
		err = st.Put(ctx, stage, names, c.out, nil)
		names.Remove()
		if err != nil {
			return nil, err
		}
		if held, err = c.historyHeld(ctx, st, files); err != nil {
			return nil, fmt.Errorf("cannot list %s after the upload: %w", where, err)
		}
	}
	how := map[string]string{}
	for _, f := range files {
		h, err := c.checkStaged(ctx, di, f, held)
		if err != nil {
			return nil, err
		}
		how[f.rel] = h
	}
	return how, nil
}

// checkStaged verifies the object of a staged file: the storage's MD5, or
// else read back and hashed.
func (c *cardRun) checkStaged(ctx context.Context, di int, f stagedFile, held map[string]dest.Object) (string, error) {
	where := storePath(c.dests[di], relJoin(c.out, f.rel))
	o, ok := held[f.rel]
	if !ok {
		return "", fmt.Errorf("%s is not on the remote after the upload", where)
	}
	if m := o.StorageMD5; m != "" && o.Size == f.size && strings.EqualFold(m, f.sums.Get(hashing.MD5)) {
		return storeMethod(RemoteByStorage, []hashing.Algo{hashing.MD5}), nil
	}
	if o.Size == f.size {
		got, _, err := c.readBackStore(ctx, di, f.rel, f.size)
		if err != nil {
			return "", fmt.Errorf("%s cannot be read back: %w", where, err)
		}
		if compared, _, same := f.sums.Compare(got); same && len(compared) > 0 {
			return storeMethod(RemoteByReadBack, compared), nil
		}
	}
	return "", fmt.Errorf("%s is there and differs from the history dit wrote for this card (%d bytes, the history's %d): dit never overwrites an object on a remote: %s, and resume with dit offload --resume %d",
		where, o.Size, f.size, MoveHistoryAside, c.j.rec.ID)
}

// historyHeld is what the card's folder on st holds of a history to send
// (files: the stage's), by path in the card's folder: its top-level
// ascmhl folder at any depth, and the folder of each staged file that is
// not in it (an MHL v1.1 list beside the card's files), that folder's own
// objects; no other folder of the card's is listed.
func (c *cardRun) historyHeld(ctx context.Context, st dest.Store, files []stagedFile) (map[string]dest.Object, error) {
	in, err := st.List(ctx, relJoin(c.out, ascmhl.HistoryDir))
	if err != nil {
		return nil, err
	}
	held := make(map[string]dest.Object, len(in))
	for rel, o := range in {
		held[ascmhlPrefix+rel] = o
	}
	listed := map[string]bool{}
	for _, f := range files {
		dir := path.Dir(f.rel)
		if strings.HasPrefix(f.rel, ascmhlPrefix) || listed[dir] {
			continue
		}
		listed[dir] = true
		objs, err := st.ListDir(ctx, relJoin(c.out, dir))
		if err != nil {
			return nil, err
		}
		for name, o := range objs {
			held[relJoin(dir, name)] = o
		}
	}
	return held, nil
}

// leftoverError is a seal refused because the card's ascmhl/ folder on
// a remote holds objects of another history (chainFree).
type leftoverError struct{ msg string }

func (e *leftoverError) Error() string { return e.msg }

// ascmhlPrefix starts the paths of the card's top-level ascmhl folder.
const ascmhlPrefix = "ascmhl/"
