package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dit-org/dit/internal/assembly"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/plan"
	"github.com/dit-org/dit/internal/speedtest"
	"github.com/dit-org/dit/reports/jobreport"
)

// Shell completion (dit completion bash|zsh|fish|powershell, through
// cobra's __complete command): the values each flag takes (hashes,
// verify modes, hash lists, report formats, ...), the job numbers of the
// catalog for a command or flag that takes one, folders for folder
// flags and YAML files for the topology and preset.

// completeCmd is a command of the tree and the completion of its flags.
type completeCmd struct {
	path  string // the command's path under dit ("offload", "job show")
	flags map[string]cobra.CompletionFunc
	args  cobra.CompletionFunc // its positional arguments (nil: cobra's default)
}

// addCompletions registers every command's flag and argument
// completions. A command or flag that is not there is a mistake of this
// table, found by the completion test.
func addCompletions(g *GlobalOptions, root *cobra.Command) {
	jobs, jobArg := jobNumbers(g, false), jobNumbers(g, true)
	dirs := cobra.FixedCompletions(nil, cobra.ShellCompDirectiveFilterDirs)
	yaml := cobra.FixedCompletions([]string{"yaml", "yml"}, cobra.ShellCompDirectiveFilterFileExt)
	hashes := hashList(hashing.All)
	var asc []hashing.Algo
	for _, a := range hashing.All {
		if a.InASCMHL() {
			asc = append(asc, a)
		}
	}
	verify := values("dest\tread every copy back", "source+dest\tre-read the card too", "none\tcopy only, never safe to format")
	verifyHashes := values("fastest\tthe fastest recorded hash", "all\tevery recorded hash")
	formats := values(append(slices.Clone(jobreport.Formats), jobreport.ClipSheetFormat, jobreport.ALEFormat, jobreport.EDLFormat, jobreport.FCPXMLFormat, jobreport.ProxySheetFormat)...)
	var presets []string
	for _, p := range assembly.ProxyPresetList() {
		presets = append(presets, p, p+",burnin")
	}
	var frames []string
	for f := range speedtest.Frames {
		frames = append(frames, f)
	}
	slices.Sort(frames)
	media := values(plan.DefaultProfiles().MediaNames()...)
	table := []completeCmd{
		{path: "offload", flags: map[string]cobra.CompletionFunc{
			"hash": hashes, "verify": verify, "verify-hashes": verifyHashes,
			"mhl":          values("asc\tASC MHL history", "v1\tMHL v1.1", "both\tASC MHL and MHL v1.1", "none\tno hash lists"),
			"on-conflict":  values("fail\tstop: never overwrite", "skip\tleave the file there", "rename\tcopy beside it under another name"),
			"drive-health": values("warn", "refuse", "off"), "proxies": values(presets...),
			"layout": values("{job}/{card}", "{date}/{job}/{card}", "{job}/{date}/{card}", "{host}/{job}/{card}"),
			"resume": jobs, "dest": dirs, "then": dirs, "proxies-to": dirs, "topology": yaml,
		}},
		{path: "watch", flags: map[string]cobra.CompletionFunc{"preset": yaml, "topology": yaml, "volumes": dirs}},
		{path: "plan", flags: map[string]cobra.CompletionFunc{
			"hash": hashes, "verify": verify, "topology": yaml, "dest": dirs, "then": dirs, "fit": media,
		}},
		{path: "job show", args: jobArg},
		{path: "verify", args: jobArg, flags: map[string]cobra.CompletionFunc{"verify-hashes": verifyHashes}},
		{path: "report", args: jobArg, flags: map[string]cobra.CompletionFunc{"format": formats}},
		{path: "catalog sync", flags: map[string]cobra.CompletionFunc{"job": jobs}},
		{path: "hash", flags: map[string]cobra.CompletionFunc{"hash": hashes}},
		{path: "mhl create", flags: map[string]cobra.CompletionFunc{"hash": hashList(asc)}},
		{path: "mhl verify", flags: map[string]cobra.CompletionFunc{"verify-hashes": verifyHashes}},
		{path: "testdata cards", flags: map[string]cobra.CompletionFunc{
			"style": values("clips\tclips with sidecars", "frames\tX-OCN-like frames", "dng\tDNG sequences", "mixed\tall of them"),
			"out":   dirs,
		}},
		{path: "speedtest", flags: map[string]cobra.CompletionFunc{"frame": values(frames...)}},
		{path: "array create", flags: map[string]cobra.CompletionFunc{
			"level":       values("0\tstriping", "4\tstriping and a parity blade"),
			"stripe-unit": values("64KiB", "128KiB", "256KiB", "512KiB", "1MiB", "2MiB", "4MiB", "8MiB", "16MiB"),
		}},
	}
	for _, c := range table {
		cmd, rest, err := root.Find(strings.Fields(c.path))
		if err != nil || len(rest) > 0 || cmd.CommandPath() != "dit "+c.path {
			panic(fmt.Sprintf("completion: no command dit %s", c.path))
		}
		if c.args != nil {
			cmd.ValidArgsFunction = c.args
		}
		for name, f := range c.flags {
			if err := cmd.RegisterFlagCompletionFunc(name, f); err != nil {
				panic(fmt.Sprintf("completion: dit %s --%s: %v", c.path, name, err))
			}
		}
	}
}

// values completes a flag with fixed values ("value\tdescription"),
// those starting with what was typed.
func values(v ...string) cobra.CompletionFunc {
	return cobra.FixedCompletions(v, cobra.ShellCompDirectiveNoFileComp)
}

// hashList completes a comma-separated list of hashes: each name not in
// the list yet, after what was typed up to its last comma.
func hashList(algos []hashing.Algo) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		done, _ := cutLast(toComplete, ",")
		given := strings.Split(done, ",")
		var out []cobra.Completion
		for _, a := range algos {
			if !slices.Contains(given, a.String()) {
				out = append(out, prefixed(done, a.String()))
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	}
}

// cutLast splits s at its last sep: before it (with sep), and after.
func cutLast(s, sep string) (before, after string) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return "", s
	}
	return s[:i+len(sep)], s[i+len(sep):]
}

// prefixed is the completion of a list item after done (the items typed).
func prefixed(done, v string) string {
	if done == "" || strings.HasSuffix(done, ",") {
		return done + v
	}
	return done + "," + v
}

// jobNumbers completes a job number (an argument or a flag) with the
// catalog's jobs, newest first, each described by its name and state.
// The catalog is the one the command line names (--db, DIT_DB); one that
// is not there offers nothing, and creates nothing. arg: the command's
// one JOB argument (nothing once it is given), else a flag's value.
func jobNumbers(g *GlobalOptions, arg bool) cobra.CompletionFunc {
	return func(_ *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if arg && len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp // the one JOB is given
		}
		cat, err := g.openCatalogExisting()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		defer cat.Close()
		jobs, err := cat.Jobs()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []cobra.Completion
		for _, j := range jobs {
			out = append(out, cobra.CompletionWithDesc(fmt.Sprint(j.ID), j.Name+" ("+j.State+")"))
		}
		return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveKeepOrder
	}
}
