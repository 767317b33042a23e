package assembly

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/proxies"
)

// ProxyPresets lists the proxy presets (dit offload --proxies), for help.
func ProxyPresets() string { return proxies.PresetNames() }

// proxies attaches the job's proxy maker (Settings.Proxies): the spec
// and the destinations checked, ffmpeg found. Without Proxies it does
// nothing (ProxiesTo alone is refused).
func (p *Prepared) proxies(ctx context.Context) error {
	s := &p.s
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
	to, err := proxyDests(s.ProxiesTo, dests)
	if err != nil {
		return usage(err)
	}
	m, err := proxies.New(ctx, proxies.Options{Spec: spec, To: to, Workers: s.ProxyWorkers, Catalog: s.Catalog, OnProxy: s.Hooks.OnProxy})
	if err != nil {
		return err
	}
	p.proxy = m
	return nil
}

// proxyDests checks --proxies-to against the job's destinations (-d,
// then --then): each a destination of the job, a folder or a dit array
// (a blade of it); none given, the first -d.
func proxyDests(given, dests []string) ([]string, error) {
	var all []string
	for _, d := range dests {
		all = append(all, abs(d))
	}
	if len(given) == 0 {
		if len(all) == 0 {
			return nil, fmt.Errorf("--proxies: the job has no destination to write proxies to")
		}
		return all[:1], nil
	}
	var to []string
	for _, g := range given {
		a := abs(g)
		switch {
		case !slices.Contains(all, a):
			return nil, fmt.Errorf("--proxies-to %s is not a destination (-d or --then) of the job: give one of %s", g, strings.Join(all, ", "))
		case !slices.Contains(to, a):
			to = append(to, a)
		}
	}
	return to, nil
}

func abs(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
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
