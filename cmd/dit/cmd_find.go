package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/units"
	"github.com/dit-org/dit/raid/mountplace"
)

// foundCopy is a copy as dit find prints it: Path is where it opens (on
// an array: below its mount point or mount place), ArrayMounted says, for
// a copy in an array, whether the array is mounted, and MountCommand is
// the command that mounts it when it is not.
type foundCopy struct {
	catalog.Found
	Path         string `json:"path"`
	ArrayMounted *bool  `json:"array_mounted,omitempty"`
	MountCommand string `json:"mount_command,omitempty"`
}

func newFindCommand(g *GlobalOptions) *cobra.Command {
	var jsonOut bool
	var limit, offset int
	cmd := &cobra.Command{
		Use:   "find CLIP-OR-PATH",
		Short: "Every copy of a clip or file, on every station: job, destination, verified when",
		Long: `dit find lists every copy the catalog knows of the files whose path contains
CLIP-OR-PATH (case-insensitive): a clip name (A023C004), a file name, a path
on a card or on a destination. On a shared catalog (--db postgres://...) that
is every copy made by every station: for each, the station, the job, the
card, the copy's full path and when it was read back and verified (empty:
not verified). A copy in a dit array is named by the path it opens at while
the array is mounted (dit array mount: its mount point, or its mount place
~/dit-arrays/NAME when not mounted), and a line under the table says, for
each array, whether it is mounted and the command that mounts it (--json:
card_path, the folder a cascade's second run read, is named the same way). It lists the first --limit copies (default 100), oldest job
first, and says when more exist: --offset N skips the first N (the next
page).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if limit < 1 {
				return usagef("--limit %d: give how many copies to list, 1 or more (default %d)", limit, catalog.FindLimit)
			}
			if offset < 0 {
				return usagef("--offset %d: give how many copies to skip, 0 or more", offset)
			}
			cat, err := g.openCatalogExisting()
			if err != nil {
				return err
			}
			defer cat.Close()
			found, more, err := cat.Find(args[0], offset, limit)
			if err != nil {
				return err
			}
			res := mountplace.NewResolver()
			cardPaths := map[string]string{}
			var places []*mountplace.Place
			rows := make([]foundCopy, len(found))
			for i, f := range found {
				var p *mountplace.Place
				rows[i].Found = f
				rows[i].Path, p = res.CopyPath(f.Dest, f.Path)
				rows[i].CardPath = cardOpenPath(res, cardPaths, f.CardPath)
				if p != nil {
					rows[i].ArrayMounted = &p.Mounted
					if !p.Mounted {
						rows[i].MountCommand = p.MountCommand()
					}
					if !slices.Contains(places, p) {
						places = append(places, p)
					}
				}
			}
			if jsonOut {
				enc := json.NewEncoder(g.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(rows)
			}
			if len(found) == 0 && offset > 0 {
				return fmt.Errorf("no copy of %q after the first %d in %s", args[0], offset, cat.Path())
			}
			if len(found) == 0 {
				return fmt.Errorf("no copy of %q in %s: check the spelling (any part of a clip name or path matches), or --db", args[0], cat.Path())
			}
			tw := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "STATION\tJOB\tCARD\tFILE\tSIZE\tCOPY\tSTATE\tVERIFIED")
			for _, f := range rows {
				v := "-"
				if !f.VerifiedAt.IsZero() {
					v = f.VerifiedAt.Local().Format("2006-01-02 15:04:05")
				}
				fmt.Fprintf(tw, "%s\t%d %s\t%s\t%s\t%s\t%s\t%s\t%s\n", f.Station, f.JobID, f.Job, f.Card, f.Rel, units.FormatBytes(f.Size), f.Path, f.State, v)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			for _, p := range places {
				if p.Mounted {
					fmt.Fprintf(g.stdout, "Copies on array %s: mounted at %s\n", p.Name(), p.Dir)
				} else {
					fmt.Fprintf(g.stdout, "Copies on array %s: not mounted; their paths above open once it is: %s\n", p.Name(), p.MountCommand())
				}
			}
			if more {
				fmt.Fprintf(g.stdout, "(copies %d to %d; more exist: dit find %q --offset %d, or narrow CLIP-OR-PATH)\n",
					offset+1, offset+len(found), args[0], offset+len(found))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print a JSON array of copies (with --limit and --offset: that page)")
	cmd.Flags().IntVar(&limit, "limit", catalog.FindLimit, "list at most `N` copies")
	cmd.Flags().IntVar(&offset, "offset", 0, "skip the first `N` copies (the next page: the offset printed)")
	return cmd
}

// cardOpenPath is the folder a copy was read from as a path to open: a
// cascade's second run reads the first copy, which on a dit array is
// below the array's mount point or mount place, not the blade's folder;
// a card's folder as it is. Each folder is looked at once (seen).
func cardOpenPath(res *mountplace.Resolver, seen map[string]string, p string) string {
	if o, ok := seen[p]; ok {
		return o
	}
	o := p
	if blade, rel, ok := offload.SplitArrayPath(p); ok && rel != "" {
		if dir, pl := res.Path(blade, rel); pl != nil {
			o = dir
		}
	}
	seen[p] = o
	return o
}
