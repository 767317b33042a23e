package main

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/dit-org/dit/internal/hashing"
)

// Set at build time with -ldflags "-X main.commit=... -X main.date=..."
// (see the Makefile; version is in main.go). A plain `go build` in a git
// checkout still gets the commit and its date from Go's build info.
var (
	commit = ""
	date   = ""
)

// buildInfo is what dit version prints.
type buildInfo struct {
	Version string `json:"version"`
	Commit  string `json:"commit"`
	Date    string `json:"date"`
	Go      string `json:"go"`
	OS      string `json:"os"`
	Arch    string `json:"arch"`
	// MD5 is how this process computes MD5: the CPU's vector lanes
	// (AVX2, AVX-512) or crypto/md5, and why.
	MD5 string `json:"md5"`
}

func currentBuild() buildInfo {
	b := buildInfo{Version: version, Commit: commit, Date: date, Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH,
		MD5: strings.TrimPrefix(hashing.MD5Implementation(), "md5: ")}
	if bi, ok := debug.ReadBuildInfo(); ok && (b.Commit == "" || b.Date == "") {
		var rev, when, dirty string
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				when = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					dirty = "-dirty"
				}
			}
		}
		if b.Commit == "" && rev != "" {
			b.Commit = rev + dirty
		}
		if b.Date == "" {
			b.Date = when
		}
	}
	if b.Commit == "" {
		b.Commit = "unknown"
	}
	if b.Date == "" {
		b.Date = "unknown"
	}
	return b
}

func (b buildInfo) String() string {
	return fmt.Sprintf("dit %s\ncommit:   %s\nbuilt:    %s\ngo:       %s\nplatform: %s/%s\nmd5:      %s\n", b.Version, b.Commit, b.Date, b.Go, b.OS, b.Arch, b.MD5)
}

func newVersionCommand(g *GlobalOptions) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print dit's version, commit, build date, Go version and platform",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			b := currentBuild()
			if asJSON {
				e := json.NewEncoder(g.stdout)
				e.SetIndent("", "  ")
				return e.Encode(b)
			}
			_, err := fmt.Fprint(g.stdout, b)
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON object (version, commit, date, go, os, arch, md5)")
	return cmd
}

// addReleaseCommands makes dit --version print what dit version prints and
// adds the hidden gen-docs command (man pages for make install).
func addReleaseCommands(root *cobra.Command) {
	root.SetVersionTemplate(currentBuild().String())
	root.AddCommand(newGenDocsCommand(root))
}

// parseBuildDate reads the -X main.date stamp (RFC 3339).
func parseBuildDate(s string) (time.Time, error) { return time.Parse(time.RFC3339, s) }
