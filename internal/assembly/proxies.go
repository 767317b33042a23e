package assembly

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/cloud"
	"github.com/dit-org/dit/internal/proxies"
)

// ProxyPresets lists the proxy presets (dit offload --proxies), for help.
func ProxyPresets() string { return proxies.PresetNames() }

// proxies attaches the job's proxy maker (Settings.Proxies): the spec
// and the destinations checked, ffmpeg found, and both given to the
// engine to record with the job. A resumed job makes the proxies it
// started with (ResumeProxies). Without Proxies it does nothing
// (ProxiesTo alone is refused).
func (p *Prepared) proxies(ctx context.Context) error {
	s := &p.s
	if s.Resume != 0 {
		rec, err := s.Catalog.Job(s.Resume)
		if err != nil {
			return err
		}
		if s.Proxies, s.ProxiesTo, err = ResumeProxies(rec, s.Proxies, s.ProxiesTo); err != nil {
			return usage(err)
		}
	}
	if s.Proxies == "" {
		if len(s.ProxiesTo) > 0 {
			return usage(fmt.Errorf("--proxies-to needs --proxies PRESET (%s)", proxies.PresetNames()))
		}
		return nil
	}
	spec, err := proxies.ParseSpec(s.Proxies)
	if err != nil {
		return usage(err)
	}
	// A cascade's --then folders may take the proxies too (a first run
	// to a dit array, proxies on the shuttle).
	dests := append(append([]string(nil), p.Dests...), s.Then...)
	if s.Resume != 0 {
		rec, err := s.Catalog.Dests(s.Resume)
		if err != nil {
			return err
		}
		dests = nil
		for _, d := range rec {
			dests = append(dests, d.Path)
		}
	}
	if !slices.ContainsFunc(dests, func(d string) bool { return !cloud.IsDest(d) }) {
		// Made from a verified copy in a folder or a dit array: a job
		// with only cloud destinations has none.
		if s.Resume != 0 {
			p.Warnings = append(p.Warnings, fmt.Sprintf("job %d's proxies (--proxies %s) are not made: it has only cloud destinations, and proxies are made from a verified copy in a folder or a dit array", s.Resume, s.Proxies))
			p.opts.Proxies, p.opts.ProxiesTo = "", nil
			return nil
		}
		return usage(fmt.Errorf("--proxies %s with only cloud destinations: proxies are made from a verified copy in a folder or a dit array, and this job writes none; add one with -d (the proxies can still go to the cloud with --proxies-to), or make them in another job", s.Proxies))
	}
	to, err := proxyDests(s.ProxiesTo, dests)
	if err != nil {
		return usage(err)
	}
	p.opts.Proxies, p.opts.ProxiesTo = spec.String(), to
	var rec *catalog.Job
	if s.Resume != 0 {
		if rec, err = s.Catalog.Job(s.Resume); err != nil {
			return err
		}
	}
	// The job's rclone: its recorded configuration and limit on a resume.
	rc, err := jobRclone(s.Rclone, rec)
	if err != nil {
		return usage(err)
	}
	m, err := proxies.New(ctx, proxies.Options{Spec: spec, To: to, Workers: s.ProxyWorkers, Catalog: s.Catalog, OnProxy: s.Hooks.OnProxy, Rclone: rc,
		OnCount: func(label string, made, total int) {
			if j := p.engine.Load(); j != nil {
				j.CountProxies(label, made, total)
			}
		}})
	if s.Resume != 0 && errors.Is(err, proxies.ErrNoFFmpeg) {
		// The footage first: the job is resumed, its proxies are not
		// made.
		p.Warnings = append(p.Warnings, fmt.Sprintf("job %d's proxies (--proxies %s) are not made by this resume: no ffmpeg and ffprobe on PATH (Debian, Ubuntu: apt-get install ffmpeg; macOS: brew install ffmpeg); the footage is resumed without them",
			s.Resume, s.Proxies))
		return nil
	}
	if err != nil {
		return err
	}
	p.proxy = m
	return nil
}

// ResumeProxies are the proxies (spec, to: --proxies, --proxies-to) a
// resume of job rec makes: those the job started with. Given none, or
// the same (the spec as proxies.ParseSpec reads it, the destinations as
// a set of paths), it takes them; others are refused, naming both. A job
// recorded before its proxies were (rec.ProxiesUnrecorded) takes those
// given.
func ResumeProxies(rec *catalog.Job, spec string, to []string) (string, []string, error) {
	if rec.ProxiesUnrecorded {
		return spec, to, nil
	}
	var diffs []string
	if spec != "" && !sameSpec(rec.Proxies, spec) {
		if rec.Proxies == "" {
			diffs = append(diffs, fmt.Sprintf("job %d was started without --proxies, not with --proxies %s: a resumed job keeps the settings it started with; resume without --proxies (and --proxies-to)",
				rec.ID, spec))
		} else {
			diffs = append(diffs, fmt.Sprintf("job %d was started with --proxies %s, not --proxies %s: a resumed job keeps the settings it started with; resume without --proxies (or with --proxies %s)",
				rec.ID, rec.Proxies, spec, rec.Proxies))
		}
	}
	if len(to) > 0 && !samePaths(rec.ProxiesTo, to) {
		recorded := "without --proxies-to"
		if len(rec.ProxiesTo) > 0 {
			recorded = "with --proxies-to " + strings.Join(rec.ProxiesTo, ", ")
		}
		diffs = append(diffs, fmt.Sprintf("job %d was started %s, not --proxies-to %s: a resumed job writes its proxies to the destinations it started with; resume without --proxies-to (the job remembers them)",
			rec.ID, recorded, strings.Join(to, ", ")))
	}
	if len(diffs) > 0 {
		return "", nil, errors.New(strings.Join(diffs, "\n"))
	}
	return rec.Proxies, rec.ProxiesTo, nil
}

// sameSpec: --proxies a and b make the same proxies.
func sameSpec(a, b string) bool {
	if a == b {
		return true
	}
	x, err := proxies.ParseSpec(a)
	if err != nil {
		return false
	}
	y, err := proxies.ParseSpec(b)
	return err == nil && x.String() == y.String()
}

// samePaths: the folders a and b are the same set (canonical paths).
func samePaths(a, b []string) bool {
	set := func(ps []string) []string {
		var out []string
		for _, p := range ps {
			out = append(out, canon(p))
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	return slices.Equal(set(a), set(b))
}

// proxyDests checks --proxies-to against the job's destinations (-d,
// then --then): each a destination of the job, a folder or a dit array
// (a blade of it) or a cloud destination (rclone:REMOTE:PATH), matched
// by its canonical path and given as the job names it; none given, the
// first -d.
func proxyDests(given, dests []string) ([]string, error) {
	var all, canons []string
	for _, d := range dests {
		all, canons = append(all, abs(d)), append(canons, canon(d))
	}
	if len(given) == 0 {
		if len(all) == 0 {
			return nil, fmt.Errorf("--proxies: the job has no destination to write proxies to")
		}
		return all[:1], nil
	}
	var to []string
	for _, g := range given {
		i := slices.Index(canons, canon(g))
		switch {
		case i < 0:
			return nil, fmt.Errorf("--proxies-to %s is not a destination (-d or --then) of the job: give one of %s", g, strings.Join(all, ", "))
		case !slices.Contains(to, all[i]):
			to = append(to, all[i])
		}
	}
	return to, nil
}

func abs(p string) string {
	if cloud.IsDest(p) {
		return p // a cloud destination: as the engine records it, as given
	}
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}

// canon is p absolute, cleaned, with symlinks resolved when it exists
// (as the engine records a destination); a cloud destination's remote
// and folder, cleaned.
func canon(p string) string {
	if cd, err := cloud.Parse(p); err == nil {
		return cd.String()
	}
	a := abs(p)
	if r, err := filepath.EvalSymlinks(a); err == nil {
		return r
	}
	return a
}

// Proxies are the job's proxies as recorded so far (none: no
// --proxies).
func (j *Job) Proxies() ([]catalog.Proxy, error) {
	if j.p.proxy == nil {
		return nil, nil
	}
	return j.p.s.Catalog.Proxies(j.ID())
}

// WaitProxies waits until the proxies of the cards done so far are made.
func (j *Job) WaitProxies() {
	if j.p.proxy != nil {
		j.p.proxy.Wait()
	}
}
