package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/units"
	"github.com/dit-org/dit/raid"
	"github.com/dit-org/dit/raid/mountplace"
)

// JobShowOptions are the flags of dit job show.
type JobShowOptions struct {
	JSON    bool
	Clips   bool
	Proxies bool
}

func newJobCommand(g *GlobalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "job",
		Short: "Inspect one job",
	}
	var o JobShowOptions
	show := &cobra.Command{
		Use:   "show JOB",
		Short: "Show a job: its cards, and every file with its hashes and state on each destination",
		Long: `dit job show JOB prints the job's summary, then each card's files with their
hashes and their state on each destination, and the card's skipped entries.

A job run with a bus budget (--topology, --simulate or --limit) recorded its
plan: "Plan against run" sets it against what the job did, per card and for
the job: the time to copied, to card free (a cascade) and to safe to format,
planned and as it ran, in seconds from the first card's copy start, and their
ratio (ran / planned). A simulated job's plan is in the units of the run.
--json gives them as plan_vs_run.`,
		Args: oneJobArg("dit job show"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseJobID(args[0])
			if err != nil {
				return err
			}
			if o.Clips {
				return runJobShowClips(o, g, id)
			}
			if o.Proxies {
				return runJobShowProxies(o, g, id)
			}
			return runJobShow(o, g, id)
		},
	}
	show.Flags().BoolVar(&o.JSON, "json", false, "print JSON")
	show.Flags().BoolVar(&o.Clips, "clips", false, "list each card's clips (camera, duration, codec, resolution, size, verified, thumbnail) instead of its files")
	show.Flags().BoolVar(&o.Proxies, "proxies", false, "list the job's editorial proxies (dit offload --proxies): made, with path, timecode, size and hashes, or failed, with ffmpeg's error")
	cmd.AddCommand(show)
	return cmd
}

type showCopy struct {
	Dest       string `json:"dest"`
	Path       string `json:"path"`
	State      string `json:"state"`
	VerifiedBy string `json:"verified_by,omitempty"`
	Error      string `json:"error,omitempty"`
}

type showFile struct {
	Path   string            `json:"path"`
	Size   int64             `json:"size"`
	Mtime  string            `json:"mtime"`
	State  string            `json:"state"`
	Hashes map[string]string `json:"hashes"`
	Error  string            `json:"error,omitempty"`
	Copies []showCopy        `json:"copies"`
}

func runJobShow(o JobShowOptions, g *GlobalOptions, id int64) error {
	cat, err := g.openCatalogExisting()
	if err != nil {
		return err
	}
	defer cat.Close()
	s, err := offload.LoadSummary(cat, id)
	if err != nil {
		return err
	}
	rec, err := cat.Job(id)
	if err != nil {
		return err
	}
	cards, err := cat.Cards(id)
	if err != nil {
		return err
	}
	dests, err := cat.Dests(id)
	if err != nil {
		return err
	}
	// A cascade's second run: its copies go with the card's files.
	second := map[int64][]int64{}
	var first []*catalog.Card
	for _, k := range cards {
		if k.Hop == 2 {
			second[k.FromCard] = append(second[k.FromCard], k.ID)
		} else {
			first = append(first, k)
		}
	}
	// Each card's files are written as they are read: memory stays flat
	// however many files a job has.
	each := func(i int, fn func(*catalog.File) error) error {
		k := first[i]
		return cat.EachFile(k.ID, second[k.ID], fn)
	}
	// A copy as people act on it: the destination's kind looked at once,
	// not once a copy.
	dp := destDisplays{}
	res := mountplace.NewResolver()
	for _, d := range dests {
		dd := destDisplay{path: d.Path, blade: raid.IsBlade(d.Path)}
		if dd.blade {
			dd.place = res.PlaceOf(d.Path)
		}
		dp[d.ID] = dd
	}
	// The plan at the job's start against what it did (a job run with a
	// bus budget records its plan).
	pr, err := loadPlanRun(cat, id)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(g.stdout, 64<<10)
	if o.JSON {
		err = writeJobShowJSON(w, cat, s, jobMHL(rec), pr, first, func(i int, fn func(showFile) error) error {
			return each(i, func(f *catalog.File) error { return fn(dp.showFile(f)) })
		})
	} else {
		err = writeJobShowText(w, cat, s, jobMHL(rec), pr, first, each, dp, g)
	}
	if err != nil {
		return err
	}
	return w.Flush()
}

// destDisplay is a destination's folder, whether it is a dit array's
// blade, and that array's place (raid/mountplace): its copies are named
// by the path they open at, below the array's mount point or, when it
// is not mounted, its mount place (array:BLADE//PATH only when the
// array cannot be identified).
type destDisplay struct {
	path  string
	blade bool
	place *mountplace.Place
}

// destDisplays are a job's destinations by id.
type destDisplays map[int64]destDisplay

// copyPath is where copy cp is, as people act on it: a path to open.
func (dp destDisplays) copyPath(cp *catalog.Copy) string {
	d := dp[cp.DestID]
	if d.place != nil {
		return filepath.Join(d.place.Dir, filepath.FromSlash(strings.TrimLeft(filepath.ToSlash(cp.Path), "/")))
	}
	return offload.DisplayPathIn(d.path, cp.Path, d.blade)
}

// writeArrayPlaces writes, for each dit array among the job's
// destinations, whether it is mounted and, when not, the command that
// mounts it (the copies' paths open once it is).
func (dp destDisplays) writeArrayPlaces(w io.Writer) {
	seen := map[*mountplace.Place]bool{}
	var ids []int64
	for id := range dp {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		p := dp[id].place
		if p == nil || seen[p] {
			continue
		}
		seen[p] = true
		if p.Mounted {
			fmt.Fprintf(w, "Copies on array %s: mounted at %s\n", p.Name(), p.Dir)
		} else {
			fmt.Fprintf(w, "Copies on array %s: not mounted; their paths above open once it is: %s\n", p.Name(), p.MountCommand())
		}
	}
}

// showFile is file f as dit job show --json lists it.
func (dp destDisplays) showFile(f *catalog.File) showFile {
	sf := showFile{Path: f.Rel, Size: f.Size, Mtime: jsonTime(f.Mtime), State: f.State, Error: f.Error, Hashes: map[string]string{}}
	for _, a := range f.Sums.Algos() {
		sf.Hashes[a.String()] = f.Sums.Get(a)
	}
	for i := range f.Copies {
		cp := &f.Copies[i]
		sf.Copies = append(sf.Copies, showCopy{Dest: dp[cp.DestID].path, Path: dp.copyPath(cp), State: cp.State, VerifiedBy: cp.VerifyAlgos, Error: cp.Error})
	}
	return sf
}

// hashLabels are the text's hash lines' heads ("      md5    "), in the
// order of hashing.All.
var hashLabels = func() []string {
	out := make([]string, len(hashing.All))
	for i, a := range hashing.All {
		out[i] = fmt.Sprintf("      %-6s ", a)
	}
	return out
}()

// writeJobShowText writes the job's summary, then each card's files
// with their hashes and copies, and its skipped entries. A file's lines
// are put together in one buffer, not formatted piece by piece: a job
// has as many as there are files.
func writeJobShowText(w io.Writer, cat *catalog.Catalog, s *offload.Summary, mhl string, pr *planRun, first []*catalog.Card,
	each func(int, func(*catalog.File) error) error, dp destDisplays, g *GlobalOptions) error {
	writeSummary(w, s, cat.Path(), mhl, g)
	writeProxyCount(w, cat, s.JobID, g)
	writePlanRun(w, pr)
	var b []byte
	for i, k := range first {
		c := s.Cards[i]
		fmt.Fprintf(w, "\n%s (%s)\n", c.Label, c.Path)
		err := each(i, func(f *catalog.File) error {
			b = append(b[:0], "  "...)
			b = append(append(b, f.Rel...), "  "...)
			b = append(append(b, units.FormatBytes(f.Size)...), "  "...)
			b = append(append(b, f.State...), '\n')
			for n, a := range hashing.All {
				if v := f.Sums.Get(a); v != "" {
					b = append(append(append(b, hashLabels[n]...), v...), '\n')
				}
			}
			for i := range f.Copies {
				cp := &f.Copies[i]
				b = append(append(b, "      -> "...), dp.copyPath(cp)...)
				b = append(append(b, "  "...), cp.State...)
				if by := offload.RemoteVerifiedBy(cp.VerifyAlgos); by != cp.VerifyAlgos && cp.State == offload.StateVerified {
					b = append(append(b, " by "...), by...)
				}
				if cp.Error != "" {
					b = append(append(append(b, "  ("...), cp.Error...), ')')
				}
				b = append(b, '\n')
			}
			if f.Error != "" {
				b = append(append(append(b, "      error: "...), f.Error...), '\n')
			}
			_, err := w.Write(b)
			return err
		})
		if err != nil {
			return err
		}
		err = cat.EachSkipped(k.ID, func(sk catalog.Skip) error {
			_, err := fmt.Fprintf(w, "  skipped %s: %s (%s)\n", sk.Rel, sk.Reason, sk.Kind)
			return err
		})
		if err != nil {
			return err
		}
	}
	dp.writeArrayPlaces(w)
	return nil
}

// filesMark and skipsMark stand for a card's file list and skipped
// entries in its JSON until they are written in their place.
const (
	filesMark = `"\u0000files"`
	skipsMark = `"\u0000skips"`
)

// writeJSONList writes the items each gives, one by one as they come,
// as json.Encoder with a two-space indent writes a list that is a field
// of a card of the job's cards (a nil list, none: null).
func writeJSONList(w io.Writer, each func(item func(any) error) error) error {
	n := 0
	err := each(func(v any) error {
		b, err := json.MarshalIndent(v, "        ", "  ")
		if err != nil {
			return err
		}
		if n == 0 {
			io.WriteString(w, "[\n        ")
		} else {
			io.WriteString(w, ",\n        ")
		}
		n++
		_, err = w.Write(b)
		return err
	})
	if err != nil {
		return err
	}
	if n == 0 {
		_, err = io.WriteString(w, "null")
	} else {
		_, err = io.WriteString(w, "\n      ]")
	}
	return err
}

// writeJobShowJSON writes what json.Encoder with a two-space indent
// writes of the summary with each card's file_list and skipped_entries,
// the files written one by one as they are read.
func writeJobShowJSON(w io.Writer, cat *catalog.Catalog, s *offload.Summary, mhl string, pr *planRun, first []*catalog.Card,
	each func(int, func(showFile) error) error) error {
	head, err := json.MarshalIndent(struct {
		*offload.Summary
		MHL       string            `json:"mhl"` // hash lists: asc, v1, both or none
		PlanVsRun *planRun          `json:"plan_vs_run,omitempty"`
		Cards     []json.RawMessage `json:"cards"`
	}{s, mhl, pr, []json.RawMessage{}}, "", "  ")
	if err != nil {
		return err
	}
	head = bytes.TrimSuffix(head, []byte("[]\n}"))
	if len(first) == 0 {
		_, err := fmt.Fprintf(w, "%snull\n}\n", head) // no card: as the encoder writes a nil list
		return err
	}
	w.Write(head)
	io.WriteString(w, "[\n    ")
	for i, k := range first {
		if i > 0 {
			io.WriteString(w, ",\n    ")
		}
		card, err := json.MarshalIndent(struct {
			offload.CardSummary
			FileList json.RawMessage `json:"file_list"`
			SkipList json.RawMessage `json:"skipped_entries"`
		}{s.Cards[i], json.RawMessage(filesMark), json.RawMessage(skipsMark)}, "    ", "  ")
		if err != nil {
			return err
		}
		before, rest, _ := bytes.Cut(card, []byte(filesMark))
		mid, after, _ := bytes.Cut(rest, []byte(skipsMark))
		w.Write(before)
		err = writeJSONList(w, func(item func(any) error) error {
			return each(i, func(f showFile) error { return item(f) })
		})
		if err != nil {
			return err
		}
		w.Write(mid)
		err = writeJSONList(w, func(item func(any) error) error {
			return cat.EachSkipped(k.ID, func(sk catalog.Skip) error { return item(sk) })
		})
		if err != nil {
			return err
		}
		w.Write(after)
	}
	_, err = io.WriteString(w, "\n  ]\n}\n")
	return err
}

// oneJobArg accepts exactly one argument, the job; without one it says
// what the command wants (exit 2).
func oneJobArg(command string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		switch {
		case len(args) == 0:
			return &exitError{code: ExitUsage, err: fmt.Errorf("%s needs a job number (see dit jobs)", command)}
		case len(args) > 1:
			return &exitError{code: ExitUsage, err: fmt.Errorf("%s takes one job number, not %d arguments (see dit jobs)", command, len(args))}
		}
		return nil
	}
}

// jsonTime is a file's time as `dit job show --json` says it: RFC 3339
// in UTC with the nanoseconds it has (none: the seconds alone); "" for
// none known.
func jsonTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}
