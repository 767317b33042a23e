package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/dit-org/dit/internal/assembly"
	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/units"
	"github.com/dit-org/dit/internal/verdict"
	"github.com/dit-org/dit/raid/mountplace"
)

// showProxy is one proxy in dit job show --proxies --json.
type showProxy struct {
	Card    string            `json:"card"`
	Clip    string            `json:"clip"`
	Preset  string            `json:"preset"`
	State   string            `json:"state"`
	Source  string            `json:"source,omitempty"`
	Dest    string            `json:"dest,omitempty"`
	Path    string            `json:"path,omitempty"` // the proxy's full path
	TCStart string            `json:"tc_start,omitempty"`
	Size    int64             `json:"size"`
	Hashes  map[string]string `json:"hashes,omitempty"`
	Error   string            `json:"error,omitempty"`
	// VerifiedBy says how the proxy's copy was verified ("the storage's
	// own md5 (S3 ETag)" on a cloud destination); "" for the proxy as
	// ffmpeg wrote it.
	VerifiedBy string `json:"verified_by,omitempty"`
}

func proxyShow(res *mountplace.Resolver, p catalog.Proxy, label string) showProxy {
	s := showProxy{Card: label, Clip: p.Clip, Preset: p.Preset, State: p.State, Source: assembly.ProxySourcePath(res, p.Source), Dest: p.Dest,
		TCStart: p.TCStart, Size: p.Size, Error: p.Error, VerifiedBy: offload.RemoteVerifiedBy(p.VerifyAlgos)}
	if p.Path != "" {
		s.Path, _ = res.Path(p.Dest, p.Path) // in a dit array: below its mount point or mount place
	}
	for _, a := range p.Sums.Algos() {
		if s.Hashes == nil {
			s.Hashes = map[string]string{}
		}
		s.Hashes[a.String()] = p.Sums.Get(a)
	}
	return s
}

// runJobShowProxies is dit job show --proxies: the job's editorial
// proxies (dit offload --proxies), made and failed.
func runJobShowProxies(o JobShowOptions, g *GlobalOptions, id int64) error {
	cat, err := g.openCatalogExisting()
	if err != nil {
		return err
	}
	defer cat.Close()
	j, err := cat.Job(id)
	if err != nil {
		return err
	}
	cards, err := cat.Cards(id)
	if err != nil {
		return err
	}
	label := map[int64]string{}
	for _, k := range cards {
		label[k.ID] = k.Label
	}
	ps, err := cat.Proxies(id)
	if err != nil {
		return err
	}
	out := []showProxy{}
	res := mountplace.NewResolver()
	for _, p := range ps {
		out = append(out, proxyShow(res, p, label[p.CardID]))
	}
	if o.JSON {
		enc := json.NewEncoder(g.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			JobID   int64       `json:"job_id"`
			Name    string      `json:"name"`
			Proxies []showProxy `json:"proxies"`
		}{j.ID, j.Name, out})
	}
	fmt.Fprintf(g.stdout, "Job %d %q: proxies\n", j.ID, j.Name)
	if len(out) == 0 {
		fmt.Fprintln(g.stdout, "  none (made only with dit offload --proxies)")
		return nil
	}
	tw := tabwriter.NewWriter(g.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  CARD\tCLIP\tPRESET\tSTATE\tTC IN\tSIZE\tPROXY OR ERROR")
	for _, p := range out {
		what := p.Path
		if p.State != catalog.ProxyMade {
			what = p.Error
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%s\n", p.Card, p.Clip, p.Preset, p.State, dashIf(p.TCStart),
			units.FormatBytes(p.Size), what)
	}
	return tw.Flush()
}

// proxyEvent is a proxy recorded, as dit offload --json says it.
func proxyEvent(p catalog.Proxy) offload.Event {
	// Its state is the proxy's (made, failed), as the event stream has
	// always carried it.
	e := offload.Event{Type: "proxy", Time: time.Now(), JobID: p.JobID, State: verdict.State(p.State), Message: p.Clip}
	if p.Path != "" {
		e.Path, _ = mountplace.NewResolver().Path(p.Dest, p.Path)
	}
	if p.Error != "" {
		e.Message = p.Clip + ": " + p.Error
	}
	return e
}

// writeProxies says what the job's proxies came to, after its reports:
// how many were made where, and each that failed with its reason. A
// proxy failure is not the footage's: the verdict above stands.
func writeProxies(g *GlobalOptions, job *assembly.Job) {
	ps, err := job.Proxies()
	if err != nil || len(ps) == 0 {
		return
	}
	made := map[string]int{}
	var dests []string
	var failed []catalog.Proxy
	bad := false
	res := mountplace.NewResolver()
	for _, p := range ps {
		if p.State == catalog.ProxyMade {
			d, _ := res.Path(p.Dest, "proxies")
			if made[d] == 0 {
				dests = append(dests, d)
			}
			made[d]++
		} else {
			failed = append(failed, p)
			bad = bad || p.State != catalog.ProxySkipped
		}
	}
	fmt.Fprintln(g.stdout, "Proxies:")
	for _, d := range dests {
		fmt.Fprintf(g.stdout, "  %d made in %s\n", made[d], d)
	}
	for _, p := range failed {
		fmt.Fprintf(g.stdout, "  %s %s: %s\n", p.Clip, p.State, p.Error)
	}
	if bad {
		fmt.Fprintf(g.stdout, "  (a proxy that failed does not touch the copies' verdict; %s --proxies lists them)\n", g.showCommand(job.ID()))
	}
}

// writeProxyCount is dit job show's line on the job's proxies, when it
// has any: how many in each state, and where the list is.
func writeProxyCount(w io.Writer, cat *catalog.Catalog, jobID int64, g *GlobalOptions) {
	n, err := assembly.ProxyCount(cat, jobID)
	if err != nil || n == "" {
		return
	}
	if strings.HasPrefix(n, "none made") {
		fmt.Fprintf(w, "\nProxies: %s\n", n) // nothing to list
		return
	}
	fmt.Fprintf(w, "\nProxies: %s (%s --proxies lists them)\n", n, g.showCommand(jobID))
}
