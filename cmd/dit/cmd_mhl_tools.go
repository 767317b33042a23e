package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dit-org/dit/internal/assembly"
	"github.com/dit-org/dit/internal/format/ascmhl"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/units"
)

// creatorFlags are the ASC MHL <creatorinfo> fields a DIT names: the
// author (name, email, phone, role), the location and a comment
// (assembly.Creator, which checks them). dit mhl create, dit mhl flatten
// and dit offload take them.
type creatorFlags struct{ assembly.Creator }

// AddFlags registers the flags.
func (c *creatorFlags) AddFlags(f *pflag.FlagSet) { addCreatorFlags(f, &c.Creator) }

// addCreatorFlags registers the creator info's flags into c.
func addCreatorFlags(f *pflag.FlagSet, c *assembly.Creator) {
	f.StringVar(&c.Author, "author-name", "", "ASC MHL creatorinfo: the author's `name` (who ran or controlled the process)")
	f.StringVar(&c.Email, "author-email", "", "ASC MHL creatorinfo: the author's email (name@domain.tld)")
	f.StringVar(&c.Phone, "author-phone", "", "ASC MHL creatorinfo: the author's phone")
	f.StringVar(&c.Role, "author-role", "", "ASC MHL creatorinfo: the author's role, e.g. DIT")
	f.StringVar(&c.Location, "location", "", "ASC MHL creatorinfo: where this runs, e.g. \"Stage 5, Babelsberg\"")
	f.StringVar(&c.Comment, "comment", "", "ASC MHL creatorinfo: a comment")
}

// author checks the fields and returns the author (zero when none given).
func (c creatorFlags) author() (ascmhl.Author, error) {
	a, err := c.Check(assembly.FlagNames)
	return a, usageOf(err)
}

func (c creatorFlags) authors() ([]ascmhl.Author, error) {
	a, err := c.author()
	if err != nil || a.IsZero() {
		return nil, err
	}
	return []ascmhl.Author{a}, nil
}

// MHLCreateOptions are the flags of dit mhl create.
type MHLCreateOptions struct {
	Hashes            string
	Ignore            []string
	IgnoreFile        string
	NoDirectoryHashes bool
	Creator           creatorFlags
	JSON              bool
}

// MHLDiffOptions are the flags of dit mhl diff.
type MHLDiffOptions struct {
	Hash       bool
	Ignore     []string
	IgnoreFile string
	JSON       bool
}

// MHLFlattenOptions are the flags of dit mhl flatten.
type MHLFlattenOptions struct {
	Out        string
	Ignore     []string
	IgnoreFile string
	Creator    creatorFlags
	JSON       bool
}

// osFolder refuses what dit mhl create cannot write to.
func osFolder(dir string) (string, error) {
	if _, _, ok := offload.SplitArrayPath(dir); ok {
		return "", usageErr(fmt.Errorf("%s is a folder of a dit array: dit mhl create writes into OS folders only (dit offload writes the histories of an array destination)", dir))
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if err := checkFolderArg("DIR", dir, "give the folder of a copied card, e.g. DEST/JOB/A001"); err != nil {
		return "", err
	}
	return abs, nil
}

func runMHLCreate(cmd *cobra.Command, o MHLCreateOptions, g *GlobalOptions, dir string) error {
	algos, err := hashing.ParseList(o.Hashes)
	if err != nil {
		return usageErr(fmt.Errorf("--hash: %w", err))
	}
	for _, a := range algos {
		if !a.InASCMHL() {
			return usageErr(fmt.Errorf("--hash: %s is not an ASC MHL hash format (use c4, md5, sha1, xxh128, xxh3, xxh64)", a))
		}
	}
	ignore, err := ignorePatterns(o.Ignore, o.IgnoreFile)
	if err != nil {
		return usageErr(err)
	}
	authors, err := o.Creator.authors()
	if err != nil {
		return err
	}
	abs, err := osFolder(dir)
	if err != nil {
		return err
	}
	st, err := ascmhl.OpenOSStore(abs)
	if err != nil {
		return fmt.Errorf("cannot open %s: %w", dir, err)
	}
	defer st.Close()
	host, _ := os.Hostname()
	opt := ascmhl.CreateOptions{Algos: algos, Ignore: ignore, NoDirectoryHashes: o.NoDirectoryHashes, Folder: filepath.Base(abs),
		Host: host, Tool: "dit", ToolVersion: version, Authors: authors, Location: o.Creator.Location, Comment: o.Creator.Comment}
	if !o.JSON {
		opt.OnFinding = func(f ascmhl.Finding) { fmt.Fprintln(g.stdout, strings.ToUpper(f.Kind)+f.String()[len(f.Kind):]) }
	}
	res, err := ascmhl.Create(cmd.Context(), st, opt)
	if errors.Is(err, ascmhl.ErrDamaged) {
		return &exitError{code: offload.ExitSomeFailed, err: fmt.Errorf("%s: %w (dit mhl verify %s names each problem)", dir, err, dir)}
	}
	if err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	if o.JSON {
		enc := json.NewEncoder(g.stdout)
		enc.SetIndent("", "  ")
		findings, renamed := res.Findings, res.Renamed
		if findings == nil {
			findings = []ascmhl.Finding{}
		}
		if renamed == nil {
			renamed = []ascmhl.Renamed{}
		}
		if err := enc.Encode(struct {
			Dir        string           `json:"dir"`
			OK         bool             `json:"ok"`
			Generation int              `json:"generation"`
			Manifests  []string         `json:"manifests"`
			Files      int              `json:"files"`
			Bytes      int64            `json:"bytes"`
			Original   int              `json:"original"`
			Verified   int              `json:"verified"`
			Failed     int              `json:"failed"`
			Renamed    []ascmhl.Renamed `json:"renamed"`
			Findings   []ascmhl.Finding `json:"findings"`
			Recovered  []string         `json:"recovered,omitempty"`
			Warnings   []string         `json:"warnings,omitempty"`
		}{dir, res.OK(), res.Generation, res.Manifests, res.Files, res.Bytes, res.Original, res.Verified, res.Failed,
			renamed, findings, res.Recovered, res.Warnings}); err != nil {
			return err
		}
	} else {
		for _, w := range res.Recovered {
			fmt.Fprintln(g.stderr, "dit: recovered:", w)
		}
		for _, w := range res.Warnings {
			fmt.Fprintln(g.stderr, "dit: warning:", w)
		}
		for _, r := range res.Renamed {
			if r.Dir {
				fmt.Fprintf(g.stdout, "RENAMED %s/ -> %s/ (folder)\n", ascmhl.DisplayName(r.From), ascmhl.DisplayName(r.To))
			} else {
				fmt.Fprintf(g.stdout, "RENAMED %s -> %s\n", ascmhl.DisplayName(r.From), ascmhl.DisplayName(r.To))
			}
		}
		fmt.Fprintf(g.stdout, "%s: generation %d written (%s): %d files, %s: %d original, %d verified, %d failed",
			dir, res.Generation, res.Manifests[len(res.Manifests)-1], res.Files, units.FormatBytes(res.Bytes), res.Original, res.Verified, res.Failed)
		if len(res.Renamed) > 0 {
			fmt.Fprintf(g.stdout, "; %d renamed", len(res.Renamed))
		}
		if n := len(res.Manifests) - 1; n > 0 {
			fmt.Fprintf(g.stdout, "; %d nested histor%s extended too", n, map[bool]string{true: "y", false: "ies"}[n == 1])
		}
		if res.OK() {
			fmt.Fprintln(g.stdout)
		} else {
			fmt.Fprintf(g.stdout, "; %d problem(s) above: NOT verified\n", len(res.Findings))
		}
	}
	if !res.OK() {
		return &exitError{code: offload.ExitSomeFailed}
	}
	return nil
}

func runMHLDiff(cmd *cobra.Command, o MHLDiffOptions, g *GlobalOptions, dir string) error {
	ignore, err := ignorePatterns(o.Ignore, o.IgnoreFile)
	if err != nil {
		return usageErr(err)
	}
	st, err := openHistoryDir(dir)
	if err != nil {
		return err
	}
	defer st.Close()
	opt := ascmhl.VerifyOptions{SizesOnly: !o.Hash, Ignore: ignore}
	if !o.JSON {
		opt.OnFinding = func(f ascmhl.Finding) { fmt.Fprintln(g.stdout, strings.ToUpper(f.Kind)+f.String()[len(f.Kind):]) }
	}
	res, err := ascmhl.Verify(cmd.Context(), st, opt)
	if err != nil {
		return noHistory(dir, err)
	}
	counts := map[string]int{}
	for _, f := range res.Findings {
		counts[f.Kind]++
	}
	if o.JSON {
		enc := json.NewEncoder(g.stdout)
		enc.SetIndent("", "  ")
		findings := res.Findings
		if findings == nil {
			findings = []ascmhl.Finding{}
		}
		return firstErr(enc.Encode(struct {
			Dir         string           `json:"dir"`
			Same        bool             `json:"same"`
			Hashed      bool             `json:"hashed"`
			Generations int              `json:"generations"`
			Files       int              `json:"files_matching"`
			Findings    []ascmhl.Finding `json:"findings"`
			Warnings    []string         `json:"warnings,omitempty"`
		}{dir, res.OK(), o.Hash, len(res.History.Generations), res.Files, findings, res.Warnings}), diffExit(res))
	}
	for _, w := range res.Warnings {
		fmt.Fprintln(g.stderr, "dit: warning:", w)
	}
	how := "by size"
	if o.Hash {
		how = "by size and hash"
	}
	if res.OK() {
		fmt.Fprintf(g.stdout, "%s: %d files as the ASC MHL history records them (%s); nothing new or missing\n", dir, res.Files, how)
		return nil
	}
	var parts []string
	for _, k := range []string{ascmhl.FindNew, ascmhl.FindMissing, ascmhl.FindChanged, ascmhl.FindFailed, ascmhl.FindUnread, ascmhl.FindHistory} {
		if counts[k] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[k], k))
		}
	}
	fmt.Fprintf(g.stdout, "%s: %d files as recorded (%s); differs from the ASC MHL history: %s\n", dir, res.Files, how, strings.Join(parts, ", "))
	return diffExit(res)
}

func diffExit(res *ascmhl.VerifyResult) error {
	if res.OK() {
		return nil
	}
	return &exitError{code: offload.ExitSomeFailed}
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

func runMHLFlatten(cmd *cobra.Command, o MHLFlattenOptions, g *GlobalOptions, dir string) error {
	if o.Out == "" {
		return usageErr(errors.New("--out FILE or FOLDER is required: where the flattened manifest goes (outside the history)"))
	}
	if !isDir(o.Out) && !isDir(filepath.Dir(o.Out)) {
		return usagef("--out %s: its folder %s does not exist: give a file in an existing folder, or a folder", o.Out, filepath.Dir(o.Out))
	}
	ignore, err := ignorePatterns(o.Ignore, o.IgnoreFile)
	if err != nil {
		return usageErr(err)
	}
	authors, err := o.Creator.authors()
	if err != nil {
		return err
	}
	st, err := openHistoryDir(dir)
	if err != nil {
		return err
	}
	defer st.Close()
	host, _ := os.Hostname()
	res, err := ascmhl.Flatten(cmd.Context(), st, ascmhl.FlattenOptions{Ignore: ignore, Host: host, Tool: "dit", ToolVersion: version,
		Authors: authors, Location: o.Creator.Location, Comment: o.Creator.Comment})
	if errors.Is(err, ascmhl.ErrDamaged) {
		return &exitError{code: offload.ExitSomeFailed, err: fmt.Errorf("%s: %w (dit mhl verify %s names each problem)", dir, err, dir)}
	}
	if err != nil {
		return noHistory(dir, err)
	}
	data, err := res.Manifest.Marshal()
	if err != nil {
		return err
	}
	// --out: a folder gets the reference tool's name in it; else a file.
	outDir, name := filepath.Dir(o.Out), filepath.Base(o.Out)
	if fi, err := os.Stat(o.Out); err == nil && fi.IsDir() {
		folder := filepath.Base(dir)
		if blade, rel, ok := offload.SplitArrayPath(dir); ok {
			folder = filepath.Base(filepath.Join(blade, rel))
		} else if abs, err := filepath.Abs(dir); err == nil {
			folder = filepath.Base(abs)
		}
		outDir, name = o.Out, ascmhl.PackingListName(folder, res.Manifest.Created)
	}
	if inHistoryFolder(dir, outDir) {
		return usageErr(fmt.Errorf("--out %s is inside %s: a manifest there would be taken as an unchained generation; write it elsewhere", o.Out, filepath.Join(dir, ascmhl.HistoryDir)))
	}
	out, err := ascmhl.OpenOSStore(outDir)
	if err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	defer out.Close()
	if err := out.WriteFileAtomic(name, data, false); err != nil {
		if errors.Is(err, os.ErrExist) {
			return fmt.Errorf("--out: %s exists: not replaced", filepath.Join(outDir, name))
		}
		return fmt.Errorf("writing %s: %w", filepath.Join(outDir, name), err)
	}
	written := filepath.Join(outDir, name)
	if o.JSON {
		enc := json.NewEncoder(g.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Dir         string   `json:"dir"`
			Out         string   `json:"out"`
			Files       int      `json:"files"`
			Generations int      `json:"generations"`
			Histories   []string `json:"histories"`
			LeftOut     []string `json:"left_out,omitempty"`
			Warnings    []string `json:"warnings,omitempty"`
		}{dir, written, len(res.Manifest.Files), res.Generations, res.Histories, res.LeftOut, res.Warnings})
	}
	for _, w := range res.Warnings {
		fmt.Fprintln(g.stderr, "dit: warning:", w)
	}
	for _, p := range res.LeftOut {
		fmt.Fprintln(g.stdout, "LEFT OUT "+ascmhl.DisplayName(p)+": recorded only with failed hashes")
	}
	nested := ""
	if n := len(res.Histories) - 1; n > 0 {
		nested = fmt.Sprintf(" and %d nested histor%s", n, map[bool]string{true: "y", false: "ies"}[n == 1])
	}
	fmt.Fprintf(g.stdout, "%s: %d files from %d generation(s) of the history%s flattened into %s\n", dir, len(res.Manifest.Files), res.Generations, nested, written)
	return nil
}

// inHistoryFolder reports whether out is DIR/ascmhl (or inside it).
func inHistoryFolder(dir, out string) bool {
	if _, _, ok := offload.SplitArrayPath(dir); ok {
		return false
	}
	resolve := func(p string) string {
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		}
		return p
	}
	h, o := resolve(filepath.Join(dir, ascmhl.HistoryDir)), resolve(out)
	return o == h || strings.HasPrefix(o, h+string(filepath.Separator))
}
