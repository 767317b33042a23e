package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/reports/ascmhl"
)

// MHLVerifyOptions are the flags of dit mhl verify.
type MHLVerifyOptions struct {
	AllHashes       bool
	DirectoryHashes bool
	JSON            bool
}

// MHLInfoOptions are the flags of dit mhl info.
type MHLInfoOptions struct {
	JSON bool
}

func newMHLCommand(g *GlobalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mhl",
		Short: "Check and show ASC MHL histories (the ascmhl folder of a copied card)",
	}
	var vo MHLVerifyOptions
	verify := &cobra.Command{
		Use:   "verify DIR",
		Short: "Re-hash every file of DIR against its ASC MHL history",
		Long: `Read every file of DIR and compare it with the ASC MHL history in DIR/ascmhl:
each file that is missing, changed, new (neither recorded nor ignored) or
recorded only as failed is named, and so is a damaged history (a manifest
missing, edited after it was written, not in the chain, or invalid). Paths in
a manifest never lead outside DIR: an absolute path or ".." is refused.

Exit codes: 0 every file matches; 3 something differs (each named);
1 DIR has no history or cannot be read; 2 usage.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runMHLVerify(cmd, vo, g, args[0])
		},
	}
	verify.Flags().BoolVar(&vo.AllHashes, "all-hashes", false, "recompute every recorded hash, not only the fastest")
	verify.Flags().BoolVar(&vo.DirectoryHashes, "directory-hashes", false, "also check the folder and root hashes of the newest generation")
	verify.Flags().BoolVar(&vo.JSON, "json", false, "print the result as JSON")
	var io MHLInfoOptions
	info := &cobra.Command{
		Use:   "info DIR",
		Short: "Show the generations of the ASC MHL history in DIR",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runMHLInfo(io, g, args[0])
		},
	}
	info.Flags().BoolVar(&io.JSON, "json", false, "print JSON")
	cmd.AddCommand(verify, info)
	return cmd
}

func openHistoryDir(dir string) (*ascmhl.OSStore, error) {
	st, err := ascmhl.OpenOSStore(dir)
	if err != nil {
		return nil, fmt.Errorf("cannot open %s: %w", dir, err)
	}
	return st, nil
}

func noHistory(dir string, err error) error {
	if errors.Is(err, ascmhl.ErrNoHistory) {
		return fmt.Errorf("%s has no ASC MHL history (no %s folder): give the folder of a copied card, e.g. DEST/JOB/A001",
			dir, filepath.Join(dir, ascmhl.HistoryDir))
	}
	return fmt.Errorf("%s: %w", dir, err)
}

func runMHLVerify(cmd *cobra.Command, o MHLVerifyOptions, g *GlobalOptions, dir string) error {
	st, err := openHistoryDir(dir)
	if err != nil {
		return err
	}
	defer st.Close()
	opt := ascmhl.VerifyOptions{AllHashes: o.AllHashes, DirectoryHashes: o.DirectoryHashes}
	if !o.JSON {
		opt.OnFinding = func(f ascmhl.Finding) { fmt.Fprintln(g.stdout, strings.ToUpper(f.Kind)+f.String()[len(f.Kind):]) }
	}
	res, err := ascmhl.Verify(cmd.Context(), st, opt)
	if err != nil {
		return noHistory(dir, err)
	}
	if o.JSON {
		enc := json.NewEncoder(g.stdout)
		enc.SetIndent("", "  ")
		findings := res.Findings
		if findings == nil {
			findings = []ascmhl.Finding{}
		}
		if err := enc.Encode(struct {
			Dir         string           `json:"dir"`
			OK          bool             `json:"ok"`
			Generations int              `json:"generations"`
			Files       int              `json:"files_matching"`
			Bytes       int64            `json:"bytes"`
			Findings    []ascmhl.Finding `json:"findings"`
			Warnings    []string         `json:"warnings,omitempty"`
		}{dir, res.OK(), len(res.History.Generations), res.Files, res.Bytes, findings, res.Warnings}); err != nil {
			return err
		}
	} else {
		for _, w := range res.Warnings {
			fmt.Fprintln(g.stderr, "dit: warning:", w)
		}
		fmt.Fprintf(g.stdout, "%s: %d files match the ASC MHL history (%d generation(s))", dir, res.Files, len(res.History.Generations))
		if res.OK() {
			fmt.Fprintln(g.stdout, "; nothing missing, changed or new")
		} else {
			fmt.Fprintf(g.stdout, "; %d problem(s) above: NOT verified\n", len(res.Findings))
		}
	}
	if !res.OK() {
		return &exitError{code: offload.ExitSomeFailed}
	}
	return nil
}

type infoGeneration struct {
	Seq         int              `json:"sequence"`
	File        string           `json:"file"`
	Created     string           `json:"created,omitempty"`
	Host        string           `json:"host,omitempty"`
	Tool        string           `json:"tool,omitempty"`
	ToolVersion string           `json:"tool_version,omitempty"`
	Process     string           `json:"process,omitempty"`
	Comment     string           `json:"comment,omitempty"`
	Files       int              `json:"files"`
	Folders     int              `json:"folders"`
	Actions     map[string]int   `json:"hash_actions"`
	Root        []ascmhl.DirHash `json:"root_hash,omitempty"`
	Ignore      []string         `json:"ignore,omitempty"`
}

func runMHLInfo(o MHLInfoOptions, g *GlobalOptions, dir string) error {
	st, err := openHistoryDir(dir)
	if err != nil {
		return err
	}
	defer st.Close()
	h, err := ascmhl.LoadHistory(st)
	if err != nil {
		return noHistory(dir, err)
	}
	var gens []infoGeneration
	for _, gen := range h.Generations {
		ig := infoGeneration{Seq: gen.Seq, File: gen.File, Actions: map[string]int{}}
		if m := gen.Manifest; m != nil {
			ig.Created, ig.Host, ig.Tool, ig.ToolVersion = m.Created.UTC().Format("2006-01-02 15:04:05 UTC"), m.Host, m.Tool, m.ToolVersion
			ig.Process, ig.Comment, ig.Files, ig.Folders, ig.Root, ig.Ignore = m.Process, m.Comment, len(m.Files), len(m.Dirs), m.Root, m.Ignore
			for _, f := range m.Files {
				for _, hv := range f.Hashes {
					ig.Actions[string(hv.Action)]++
				}
			}
		}
		gens = append(gens, ig)
	}
	if o.JSON {
		enc := json.NewEncoder(g.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Dir         string           `json:"dir"`
			Generations []infoGeneration `json:"generations"`
			Problems    []string         `json:"problems,omitempty"`
			Warnings    []string         `json:"warnings,omitempty"`
		}{dir, gens, h.Problems, h.Warnings})
	}
	fmt.Fprintf(g.stdout, "%s: ASC MHL history with %d generation(s)\n", dir, len(gens))
	for _, ig := range gens {
		fmt.Fprintf(g.stdout, "\n  %04d  %s\n", ig.Seq, ig.File)
		if ig.Tool == "" {
			fmt.Fprintln(g.stdout, "        (unreadable: see the problems below)")
			continue
		}
		fmt.Fprintf(g.stdout, "        %s, %s %s on %s, process %s\n", ig.Created, ig.Tool, ig.ToolVersion, ig.Host, ig.Process)
		fmt.Fprintf(g.stdout, "        %d files, %d folders; hashes: %d original, %d verified, %d failed\n", ig.Files, ig.Folders,
			ig.Actions["original"], ig.Actions["verified"], ig.Actions["failed"])
		for _, r := range ig.Root {
			fmt.Fprintf(g.stdout, "        root %s: content %s, structure %s\n", r.Algo, r.Content, r.Structure)
		}
		if ig.Comment != "" {
			fmt.Fprintf(g.stdout, "        %s\n", ig.Comment)
		}
	}
	if len(gens) > 0 && len(gens[len(gens)-1].Ignore) > 0 {
		fmt.Fprintf(g.stdout, "\n  ignored: %s\n", strings.Join(gens[len(gens)-1].Ignore, ", "))
	}
	for _, p := range h.Problems {
		fmt.Fprintf(g.stdout, "\n  PROBLEM: %s\n", p)
	}
	for _, w := range h.Warnings {
		fmt.Fprintln(g.stderr, "dit: warning:", w)
	}
	if len(h.Problems) > 0 {
		return &exitError{code: offload.ExitSomeFailed}
	}
	return nil
}
