package main

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dit-org/dit/internal/catalog"
)

// addDBFlag adds --db, which every command that opens the catalog takes.
func (g *GlobalOptions) addDBFlag(f *pflag.FlagSet) {
	f.StringVar(&g.DB, "db", os.Getenv("DIT_DB"), "catalog database `file`, or postgres://user@host/db for a shared catalog (env DIT_DB)")
}

// addStationFlag adds --station: the commands that record jobs (offload,
// watch) and dit jobs, which lists this station's.
func (g *GlobalOptions) addStationFlag(f *pflag.FlagSet) {
	f.StringVar(&g.Station, "station", os.Getenv("DIT_STATION"), "this cart's `name`, recorded on its jobs (env DIT_STATION; default the host name)")
}

// addSyncToFlag adds --sync-to: the commands that end jobs (offload,
// watch) and dit catalog sync.
func (g *GlobalOptions) addSyncToFlag(f *pflag.FlagSet) {
	f.StringVar(&g.SyncTo, "sync-to", os.Getenv("DIT_SYNC_TO"), "push every job to this catalog (postgres://...) when it ends; a cart offline keeps its jobs in --db until dit catalog sync (env DIT_SYNC_TO)")
}

// setupCatalog gives an opened catalog this cart's station and, with
// --sync-to, the push at job end.
func (g *GlobalOptions) setupCatalog(cat *catalog.Catalog, err error) (*catalog.Catalog, error) {
	if err != nil {
		return nil, err
	}
	cat.SetStation(g.Station)
	if g.SyncTo != "" {
		cat.SyncOnJobEnd(g.SyncTo, func(jobID int64, r catalog.PushResult, err error) {
			if err != nil {
				fmt.Fprintf(g.stderr, "dit: job %d stays in %s only for now: %v\n  push it later with: dit catalog sync --to %s\n", jobID, cat.Path(), err, redactedURL(g.SyncTo))
				return
			}
			fmt.Fprintf(g.stderr, "dit: job %d pushed to %s (%s)\n", jobID, redactedURL(g.SyncTo), r)
		})
	}
	return cat, nil
}

// redactedURL is a catalog location for messages: a PostgreSQL URL
// without its password.
func redactedURL(s string) string {
	if !catalog.IsPostgresURL(s) {
		return s
	}
	if u, err := url.Parse(s); err == nil {
		return u.Redacted()
	}
	return "the PostgreSQL catalog"
}

func newCatalogCommand(g *GlobalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "catalog",
		Short: "The catalog shared by several carts: push this cart's jobs to it",
	}
	var to string
	var jsonOut bool
	var job int64
	sync := &cobra.Command{
		Use:   "sync --to postgres://user@host/db",
		Short: "Push this cart's jobs (from --db) to a shared catalog; a job pushed twice is held once",
		Long: `dit catalog sync pushes the jobs of this cart's catalog (--db, DIT_DB) to a
shared catalog (--to, default --sync-to / DIT_SYNC_TO), usually the
production's PostgreSQL database: each job with its cards, destinations,
files, copies, samples, runs, plans and proxies, in one transaction per job. A job is
known everywhere by its UUID: pushed again it is updated in place, never held
twice, and a job already there as it ended here is left alone. A cart whose
network dropped keeps working on its local catalog; run this when it is back
(with --sync-to, every job is pushed when it ends anyway).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if to == "" {
				to = g.SyncTo
			}
			if to == "" {
				return &exitError{code: ExitUsage, err: fmt.Errorf("dit catalog sync needs --to postgres://user@host/db (or DIT_SYNC_TO): the shared catalog to push to")}
			}
			if err := g.checkSyncTo("--to", to); err != nil {
				return err
			}
			cat, err := g.openCatalogExisting()
			if err != nil {
				return err
			}
			defer cat.Close()
			if cat.Path() == redactedURL(to) {
				return &exitError{code: ExitUsage, err: fmt.Errorf("--to %s is this catalog (--db): give the shared catalog", redactedURL(to))}
			}
			shared, err := catalog.Open(to)
			if err != nil {
				return fmt.Errorf("cannot open the shared catalog: %w", err)
			}
			defer shared.Close()
			var res []catalog.PushResult
			if job != 0 {
				var r catalog.PushResult
				r, err = cat.PushJob(job, shared)
				res = append(res, r)
			} else {
				res, err = cat.Push(shared)
			}
			if jsonOut {
				if res == nil {
					res = []catalog.PushResult{}
				}
				b, _ := json.MarshalIndent(res, "", "  ")
				fmt.Fprintln(g.stdout, string(b))
			} else {
				for _, r := range res {
					fmt.Fprintln(g.stdout, r)
				}
				if err == nil {
					fmt.Fprintf(g.stdout, "%s pushed to %s\n", plural(len(res), "job"), shared.Path())
				}
			}
			return err
		},
	}
	sync.Flags().StringVar(&to, "to", "", "the shared catalog (postgres://user@host/db, or a catalog file)")
	addJobFlag(sync.Flags(), &job, "job", "push only job `JOB` (its number here)")
	sync.Flags().BoolVar(&jsonOut, "json", false, "print what each push did as JSON")
	cmd.AddCommand(sync)
	return cmd
}
