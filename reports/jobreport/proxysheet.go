package jobreport

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/cloud"
	"github.com/dit-org/dit/internal/proxies"
)

// ProxySheetFormat names the proxies sheet (a CSV, one row per proxy of
// the job on each destination, and per clip whose proxy failed) in
// [Report.Write] and dit report --format.
const ProxySheetFormat = "proxies"

// ProxySheetName is the proxies sheet's file name.
func (r *Report) ProxySheetName() string {
	return strings.TrimSuffix(r.FileName("csv"), ".csv") + "_proxies.csv"
}

// HasProxies tells whether the job made (or tried to make) proxies.
func (r *Report) HasProxies() bool {
	for _, c := range r.Cards {
		if len(c.Proxies) > 0 {
			return true
		}
	}
	return false
}

// proxySheetHead is the proxies sheet's header: the job's hashes go
// between size_bytes and verified_by.
func (r *Report) proxySheetHead() []string {
	head := []string{"card", "clip", "preset", "state", "destination", "path", "source", "tc_start", "size_bytes"}
	head = append(head, r.proxyHashes()...)
	return append(head, "verified_by", "made_utc", "error")
}

// proxyHashes are the hash columns of the proxies sheet: the job's, and
// md5 when the job has a cloud destination (a proxy uploaded is checked
// by its MD5).
func (r *Report) proxyHashes() []string {
	hs := r.Job.Hashes
	if slices.Contains(hs, "md5") {
		return hs
	}
	for _, d := range r.Destinations {
		if cloud.IsDest(d.Path) {
			return append(slices.Clip(hs), "md5")
		}
	}
	return hs
}

// WriteProxySheet writes the proxies sheet: one row per proxy, by card
// in the order they were recorded (see the package doc). A report built
// from the catalog reads the proxies as it writes them
// (catalog.EachProxy); a read that fails ends the file with a row
// "# INCOMPLETE: ..." and returns the error.
func (r *Report) WriteProxySheet(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	cw := csv.NewWriter(bw)
	head := r.proxySheetHead()
	if err := csvRow(cw, bw, head); err != nil {
		return err
	}
	row := make([]string, 0, len(head))
	hashes := r.proxyHashes()
	write := func(card string, p *Proxy) error {
		row = append(row[:0], card, p.Clip, p.Preset, p.State, p.Dest, p.Path, p.Source, p.TCStart, strconv.FormatInt(p.Size, 10))
		for _, a := range hashes {
			row = append(row, p.Hashes[a])
		}
		row = append(row, p.VerifiedBy, csvTime(p.MadeAt), p.Error)
		return csvRow(cw, bw, row)
	}
	var err error
	if r.src == nil {
		for _, c := range r.Cards {
			for i := range c.Proxies {
				if err = write(c.Label, &c.Proxies[i]); err != nil {
					break
				}
			}
		}
	} else {
		label := map[int64]string{}
		for i, cf := range r.src.cards {
			label[cf.id] = r.Cards[i].Label
		}
		err = r.src.cat.EachProxy(r.Job.ID, func(p catalog.Proxy) error {
			x := proxyRow(r, p)
			return write(label[p.CardID], &x)
		})
		if err != nil {
			err = fmt.Errorf("reading the proxies of job %d from the catalog: %w", r.Job.ID, err)
		}
	}
	return endCSV(cw, bw, err)
}

// proxyRow is a proxy of the catalog as the report shows it.
func proxyRow(res *Report, p catalog.Proxy) Proxy {
	x := Proxy{Clip: p.Clip, Preset: p.Preset, State: p.State, Dest: p.Dest, Source: proxies.SourcePath(res.resolver(), p.Source), TCStart: p.TCStart, Size: p.Size,
		Error: p.Error, VerifiedBy: p.VerifyAlgos}
	if p.State == catalog.ProxyMade {
		x.MadeAt = p.MadeAt // the catalog's time of a failed one is when it failed: not made
	}
	if p.Path != "" {
		x.Path = res.openPath(p.Dest, p.Path)
	}
	for _, a := range p.Sums.Algos() {
		if x.Hashes == nil {
			x.Hashes = map[string]string{}
		}
		x.Hashes[a.String()] = p.Sums.Get(a)
	}
	return x
}
