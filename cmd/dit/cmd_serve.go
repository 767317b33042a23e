package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/dit-org/dit/internal/serve"
)

func newServeCommand(g *GlobalOptions) *cobra.Command {
	var listen, token, tokenFile string
	var poll time.Duration
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Live status off the cart: a read-only web page, JSON API and Prometheus metrics over the catalog",
		Long: `dit serve shows the catalog (--db: this cart's, or a shared postgres://
catalog) over HTTP, read-only: a status page of the current jobs (each card's
state, progress and rate, the cards safe to format, array health) that
refreshes itself live, /api/status (JSON), /events (server-sent events) and
/metrics (Prometheus). Nothing it serves changes anything: any method but GET
and HEAD gets 405.

It listens on 127.0.0.1:8765 (this machine only). To open it from a phone on
the set's network, give --listen 0.0.0.0:8765 (or [::]:8765, or the LAN
address) and a token (--token, or --token-file, DIT_SERVE_TOKEN): every
request must carry it, or gets 401. dit serve prints the addresses to open,
one per network address of this machine, with the token
(http://192.168.1.20:8765/?token=TOKEN).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			usage := func(err error) error { return &exitError{code: ExitUsage, err: err} }
			if tokenFile != "" {
				b, err := os.ReadFile(tokenFile)
				if err != nil {
					return usage(fmt.Errorf("--token-file: %w", err))
				}
				token = strings.TrimSpace(string(b))
				if token == "" {
					return usage(fmt.Errorf("--token-file %s is empty: put the token in it", tokenFile))
				}
			}
			if poll <= 0 {
				return usage(fmt.Errorf("--poll %s: give how often to read the catalog, above zero, e.g. 1s", poll))
			}
			host, _, err := net.SplitHostPort(listen)
			if err != nil {
				return usage(fmt.Errorf("--listen %q: give HOST:PORT, e.g. 127.0.0.1:8765 or 0.0.0.0:8765: %v", listen, err))
			}
			if !loopback(host) && token == "" {
				return usage(fmt.Errorf("--listen %s is reachable from the network: give a --token (or --token-file) that every request must carry", listen))
			}
			cat, err := g.openCatalogExisting()
			if err != nil {
				return err
			}
			defer cat.Close()
			ln, err := net.Listen("tcp", listen)
			if err != nil {
				return fmt.Errorf("cannot listen on %s: %w (is another dit serve running? choose another port with --listen)", listen, err)
			}
			s := serve.New(cat, serve.Options{Token: token, Poll: poll})
			ctx, cancel := context.WithCancel(cmd.Context())
			ran := make(chan struct{})
			go func() { defer close(ran); s.Run(ctx) }()
			// The catalog closes (deferred above) once the last poll is
			// done: never under a read.
			defer func() { cancel(); <-ran }()
			srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second,
				BaseContext: func(net.Listener) context.Context { return ctx }}
			interruptNote.Store("dit serve: stopping")
			urls, all := serveURLs(host, ln.Addr().(*net.TCPAddr).Port, token, net.InterfaceAddrs)
			if !all {
				fmt.Fprintf(g.stdout, "dit serve: %s (catalog %s, read-only)\n", urls[0], cat.Path())
			} else {
				fmt.Fprintf(g.stdout, "dit serve: on every address of this machine (catalog %s, read-only); open from the set's network:\n", cat.Path())
				for _, u := range urls {
					fmt.Fprintf(g.stdout, "  %s\n", u)
				}
			}
			go func() {
				<-ctx.Done()
				sctx, c := context.WithTimeout(context.Background(), 2*time.Second)
				defer c()
				srv.Shutdown(sctx)
			}()
			if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				return err
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&listen, "listen", "127.0.0.1:8765", "`address` to listen on; anything but loopback needs --token")
	f.StringVar(&token, "token", os.Getenv("DIT_SERVE_TOKEN"), "token every request must carry (?token= or Authorization: Bearer) (env DIT_SERVE_TOKEN)")
	f.StringVar(&tokenFile, "token-file", "", "read the token from this `file`")
	f.DurationVar(&poll, "poll", time.Second, "how often to read the catalog for changes")
	return cmd
}

// serveURLs are the addresses a browser opens dit serve at, listening on
// host (--listen's) and port (with the token): host's own, or, when host
// is every address ("", 0.0.0.0, [::]; all true), one per address of the
// machine's interfaces that another device can reach (not loopback, not
// link-local; IPv4 only on 0.0.0.0), or the loopback one when there is
// none.
func serveURLs(host string, port int, token string, addrs func() ([]net.Addr, error)) (urls []string, all bool) {
	q := "/"
	if token != "" {
		q += "?token=" + url.QueryEscape(token)
	}
	at := func(h string) string { return "http://" + net.JoinHostPort(h, strconv.Itoa(port)) + q }
	ip := net.ParseIP(host)
	if host != "" && (ip == nil || !ip.IsUnspecified()) {
		return []string{at(host)}, false
	}
	list, _ := addrs()
	for _, x := range list {
		n, ok := x.(*net.IPNet)
		if !ok || n.IP.IsLoopback() || n.IP.IsLinkLocalUnicast() || n.IP.IsUnspecified() {
			continue
		}
		if ip != nil && ip.To4() != nil && n.IP.To4() == nil {
			continue // 0.0.0.0 is IPv4 only
		}
		urls = append(urls, at(n.IP.String()))
	}
	if len(urls) == 0 {
		return []string{at("127.0.0.1")}, true
	}
	return urls, true
}

// loopback says whether host is this machine only.
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
