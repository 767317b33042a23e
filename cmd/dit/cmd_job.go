package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/units"
)

// JobShowOptions are the flags of dit job show.
type JobShowOptions struct {
	JSON  bool
	Clips bool
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
		Args:  oneJobArg("dit job show"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseJobID(args[0])
			if err != nil {
				return err
			}
			if o.Clips {
				return runJobShowClips(o, g, id)
			}
			return runJobShow(o, g, id)
		},
	}
	show.Flags().BoolVar(&o.JSON, "json", false, "print JSON")
	show.Flags().BoolVar(&o.Clips, "clips", false, "list each card's clips (camera, duration, codec, resolution, size, verified, thumbnail) instead of its files")
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

type showCard struct {
	offload.CardSummary
	FileList []showFile     `json:"file_list"`
	SkipList []catalog.Skip `json:"skipped_entries"`
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
	destPath := map[int64]string{}
	for _, d := range dests {
		destPath[d.ID] = d.Path
	}
	var out []showCard
	first := map[int64]int{} // hop-1 card id -> index in out
	var later []*catalog.Card
	i := -1
	for _, k := range cards {
		if k.Hop == 2 {
			later = append(later, k)
			continue
		}
		i++
		first[k.ID] = i
		files, err := cat.Files(k.ID)
		if err != nil {
			return err
		}
		skips, err := cat.Skipped(k.ID)
		if err != nil {
			return err
		}
		sc := showCard{CardSummary: s.Cards[i], SkipList: skips}
		for _, f := range files {
			sf := showFile{Path: f.Rel, Size: f.Size, Mtime: catalog.Time(f.Mtime), State: f.State, Error: f.Error, Hashes: map[string]string{}}
			for _, a := range f.Sums.Algos() {
				sf.Hashes[a.String()] = f.Sums.Get(a)
			}
			for _, cp := range f.Copies {
				sf.Copies = append(sf.Copies, showCopy{Dest: destPath[cp.DestID], Path: offload.DisplayPath(destPath[cp.DestID], cp.Path),
					State: cp.State, VerifiedBy: cp.VerifyAlgos, Error: cp.Error})
			}
			sc.FileList = append(sc.FileList, sf)
		}
		out = append(out, sc)
	}
	// A cascade's second run: its copies go with the card's files.
	for _, h := range later {
		i, ok := first[h.FromCard]
		if !ok {
			continue
		}
		files, err := cat.Files(h.ID)
		if err != nil {
			return err
		}
		at := map[string]int{}
		for n, f := range out[i].FileList {
			at[f.Path] = n
		}
		for _, f := range files {
			n, ok := at[f.Rel]
			if !ok {
				continue // the first run's hash lists, copied along
			}
			for _, cp := range f.Copies {
				out[i].FileList[n].Copies = append(out[i].FileList[n].Copies, showCopy{Dest: destPath[cp.DestID],
					Path: offload.DisplayPath(destPath[cp.DestID], cp.Path), State: cp.State, VerifiedBy: cp.VerifyAlgos, Error: cp.Error})
			}
		}
	}
	if o.JSON {
		enc := json.NewEncoder(g.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			*offload.Summary
			MHL   string     `json:"mhl"` // hash lists: asc, v1, both or none
			Cards []showCard `json:"cards"`
		}{s, jobMHL(rec), out})
	}
	writeSummary(g.stdout, s, cat.Path(), jobMHL(rec), g)
	for _, c := range out {
		fmt.Fprintf(g.stdout, "\n%s (%s)\n", c.Label, c.Path)
		for _, f := range c.FileList {
			fmt.Fprintf(g.stdout, "  %s  %s  %s\n", f.Path, units.FormatBytes(f.Size), f.State)
			for _, a := range hashing.All {
				if v, ok := f.Hashes[a.String()]; ok {
					fmt.Fprintf(g.stdout, "      %-6s %s\n", a, v)
				}
			}
			for _, cp := range f.Copies {
				fmt.Fprintf(g.stdout, "      -> %s  %s", cp.Path, cp.State)
				if cp.Error != "" {
					fmt.Fprintf(g.stdout, "  (%s)", cp.Error)
				}
				fmt.Fprintln(g.stdout)
			}
			if f.Error != "" {
				fmt.Fprintf(g.stdout, "      error: %s\n", f.Error)
			}
		}
		for _, sk := range c.SkipList {
			fmt.Fprintf(g.stdout, "  skipped %s: %s (%s)\n", sk.Rel, sk.Reason, sk.Kind)
		}
	}
	return nil
}

// oneJobArg accepts exactly one argument, the job; without one it says
// what the command wants (exit 2).
func oneJobArg(command string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		switch {
		case len(args) == 0:
			return &exitError{code: offload.ExitUsage, err: fmt.Errorf("%s needs a job number (see dit jobs)", command)}
		case len(args) > 1:
			return &exitError{code: offload.ExitUsage, err: fmt.Errorf("%s takes one job number, not %d arguments (see dit jobs)", command, len(args))}
		}
		return nil
	}
}
