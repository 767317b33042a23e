package main

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/units"
)

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
not verified). It lists the first --limit copies (default 100), oldest job
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
			if jsonOut {
				if found == nil {
					found = []catalog.Found{}
				}
				enc := json.NewEncoder(g.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(found)
			}
			if len(found) == 0 && offset > 0 {
				return fmt.Errorf("no copy of %q after the first %d in %s", args[0], offset, cat.Path())
			}
			if len(found) == 0 {
				return fmt.Errorf("no copy of %q in %s: check the spelling (any part of a clip name or path matches), or --db", args[0], cat.Path())
			}
			tw := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "STATION\tJOB\tCARD\tFILE\tSIZE\tCOPY\tSTATE\tVERIFIED")
			for _, f := range found {
				v := "-"
				if !f.VerifiedAt.IsZero() {
					v = f.VerifiedAt.Local().Format("2006-01-02 15:04:05")
				}
				fmt.Fprintf(tw, "%s\t%d %s\t%s\t%s\t%s\t%s\t%s\t%s\n", f.Station, f.JobID, f.Job, f.Card, f.Rel, units.FormatBytes(f.Size), f.Path, f.State, v)
			}
			if err := tw.Flush(); err != nil {
				return err
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
