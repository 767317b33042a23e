package main

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dit-org/dit/internal/assembly"
	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload"
)

// checkResume refuses what dit offload --resume would otherwise drop
// without a word: a job-defining flag given explicitly with a value other
// than the one the job recorded, or cards / destinations (-d) other than
// the job's. The same value, compared the way the engine reads it (a hash
// list as a set, paths absolute, cleaned and with symlinks resolved), is
// accepted. Per-run flags (--json, --throttle, --topology, --simulate,
// --limit, --allow-degraded, --again, --db, ...) are not checked. Every
// difference is named in one usage error (exit 2).
func checkResume(cmd *cobra.Command, o OffloadOptions, cat *catalog.Catalog, cards []string) error {
	rec, err := cat.Job(o.Resume)
	if err != nil {
		return err
	}
	diffs, err := resumeSettingDiffs(cmd.Flags().Changed, o, cat, rec)
	if err != nil {
		return err
	}
	places, err := resumePlaceDiffs(o, cat, rec, cards)
	if err != nil {
		return err
	}
	diffs = append(diffs, places...)
	if len(diffs) > 0 {
		return &exitError{code: ExitUsage, err: errors.New(strings.Join(diffs, "\n"))}
	}
	return nil
}

// resumeSettingDiffs names each job-defining flag given (changed) with a
// value other than the one job rec recorded.
func resumeSettingDiffs(changed func(string) bool, o OffloadOptions, cat *catalog.Catalog, rec *catalog.Job) ([]string, error) {
	var diffs []string
	differ := func(flag, recorded, given string) {
		diffs = append(diffs, fmt.Sprintf("job %d was started with %s, not %s: a resumed job keeps the settings it started with; resume without --%s (or with %s)",
			rec.ID, flagArg(flag, recorded), flagArg(flag, given), flag, flagArg(flag, recorded)))
	}
	// same checks a flag whose value is compared as written.
	same := func(flag, recorded, given string) {
		if changed(flag) && given != recorded {
			differ(flag, recorded, given)
		}
	}

	if changed("hash") {
		// Both sides through hashing.ParseList: a set in a fixed order.
		recorded := rec.Hashes
		if algos, err := hashing.ParseList(rec.Hashes); err == nil {
			recorded = hashing.Names(algos)
		}
		if given, err := hashing.ParseList(o.Hashes); err != nil {
			diffs = append(diffs, fmt.Sprintf("--hash: %v", err))
		} else if hashing.Names(given) != recorded {
			differ("hash", recorded, hashing.Names(given))
		}
	}
	same("verify", orDefault(rec.VerifyMode, string(offload.VerifyDest)), o.Verify)
	same("verify-hashes", orDefault(rec.VerifyHashes, "fastest"), o.VerifyHashes)
	if changed("layout") {
		recorded := orDefault(rec.Layout, offload.DefaultLayout)
		ok, err := sameLayout(cat, rec, recorded, o.Layout)
		if err != nil {
			return nil, err
		}
		if !ok {
			differ("layout", recorded, o.Layout)
		}
	}
	same("on-conflict", orDefault(rec.OnConflict, string(offload.ConflictFail)), o.OnConflict)
	same("include-hidden", strconv.FormatBool(rec.IncludeHidden), strconv.FormatBool(o.IncludeHidden))
	ignore, err := assembly.IgnorePatterns(o.Ignore, o.IgnoreFile, assembly.FlagNames)
	if (changed("ignore") || changed("ignore-file")) && err != nil {
		diffs = append(diffs, err.Error())
	} else if (changed("ignore") || changed("ignore-file")) && !slices.Equal(ignore, rec.Ignore) {
		diffs = append(diffs, fmt.Sprintf("job %d was started with ignore patterns [%s], not [%s]: a resumed job keeps the files it left out; resume without --ignore/--ignore-file",
			rec.ID, strings.Join(rec.Ignore, " "), strings.Join(ignore, " ")))
	}
	same("name", rec.Name, o.Name)
	if changed("mhl") {
		// The engine's own rule and wording (offload.ResumeMHL).
		if _, err := offload.ResumeMHL(rec, o.MHL); err != nil {
			diffs = append(diffs, err.Error())
		}
	}
	same("then-parallel", strconv.Itoa(max(rec.ThenParallel, 1)), strconv.Itoa(o.ThenParallel))
	if changed("rclone-config") && rec.RcloneConfig != "" && canonPath(o.RcloneConfig) != canonPath(rec.RcloneConfig) {
		differ("rclone-config", rec.RcloneConfig, o.RcloneConfig)
	}
	if changed("cloud-bwlimit") && rec.CloudBwLimit != 0 {
		if v, err := offload.ParseRemoteBwLimit(o.RemoteBwLimit); err == nil && v != rec.CloudBwLimit {
			differ("cloud-bwlimit", bwLimitArg(rec.CloudBwLimit), o.RemoteBwLimit)
		}
	}
	if changed("proxies") || changed("proxies-to") {
		// The assembly's own rule and wording (assembly.ResumeProxies).
		if _, _, err := assembly.ResumeProxies(rec, o.Proxies, o.ProxiesTo); err != nil {
			diffs = append(diffs, err.Error())
		}
	}
	return diffs, nil
}

// resumeProxies leaves a resumed job's proxies to the job (it makes those
// it started with) unless --proxies or --proxies-to was given, which
// checkResume found the same: dit watch's preset gives them too, and a
// preset changed since does not stop the card's job from being resumed.
// A job recorded before its proxies were takes those given.
func resumeProxies(cmd *cobra.Command, cat *catalog.Catalog, id int64, s *assembly.Settings) error {
	if cmd.Flags().Changed("proxies") || cmd.Flags().Changed("proxies-to") {
		return nil
	}
	rec, err := cat.Job(id)
	if err != nil {
		return err
	}
	if !rec.ProxiesUnrecorded {
		s.Proxies, s.ProxiesTo = "", nil
	}
	return nil
}

// resumePlaceDiffs names the second-run destinations (--then),
// destinations (-d) and cards given that are not job rec's, compared as
// sets of canonical paths.
func resumePlaceDiffs(o OffloadOptions, cat *catalog.Catalog, rec *catalog.Job, cards []string) ([]string, error) {
	var diffs []string
	if len(o.Then) > 0 {
		recorded, err := recordedDests(cat, rec.ID, func(hop int) bool { return hop == 2 })
		if err != nil {
			return nil, err
		}
		if d := pathSetDiff(recorded, o.Then); d != "" {
			diffs = append(diffs, fmt.Sprintf("job %d was started with --then destination(s) [%s], not [%s] (%s): a resumed job fills the second-run destinations it started with; resume without --then (the job remembers them)",
				rec.ID, strings.Join(recorded, ", "), strings.Join(o.Then, ", "), d))
		}
	}
	if len(o.Dests) > 0 {
		recorded, err := recordedDests(cat, rec.ID, func(hop int) bool { return hop <= 1 })
		if err != nil {
			return nil, err
		}
		if d := pathSetDiff(recorded, o.Dests); d != "" {
			diffs = append(diffs, fmt.Sprintf("job %d was started with destination(s) %s, not %s (%s): a resumed job writes to the destinations it started with; resume without -d (the job remembers them)",
				rec.ID, strings.Join(recorded, ", "), strings.Join(o.Dests, ", "), d))
		}
	}
	if len(cards) > 0 {
		ks, err := cat.Cards(rec.ID)
		if err != nil {
			return nil, err
		}
		var recorded []string
		for _, k := range catalog.FirstRun(ks) {
			recorded = append(recorded, k.Path)
		}
		if d := pathSetDiff(recorded, cards); d != "" {
			diffs = append(diffs, fmt.Sprintf("job %d was started with card(s) %s, not %s (%s): a resumed job copies the cards it started with; resume without naming cards (the job remembers them), or offload the others as a new job",
				rec.ID, strings.Join(recorded, ", "), strings.Join(cards, ", "), d))
		}
	}
	return diffs, nil
}

// recordedDests lists the paths of job id's destinations whose hop
// matches.
func recordedDests(cat *catalog.Catalog, id int64, hop func(int) bool) ([]string, error) {
	ds, err := cat.Dests(id)
	if err != nil {
		return nil, err
	}
	var recorded []string
	for _, d := range ds {
		if hop(d.Hop) {
			recorded = append(recorded, d.Path)
		}
	}
	return recorded, nil
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// sameLayout reports whether the layout given puts every card of the job
// in the same folder as the recorded one (e.g. "{job}/{card}/" and
// "{job}/{card}" do). A layout the engine refuses is not the same.
func sameLayout(cat *catalog.Catalog, rec *catalog.Job, recorded, given string) (bool, error) {
	if given == recorded {
		return true, nil
	}
	ks, err := cat.Cards(rec.ID)
	if err != nil {
		return false, err
	}
	if len(ks) == 0 {
		return path.Clean(given) == path.Clean(recorded), nil
	}
	for _, k := range catalog.FirstRun(ks) {
		want, err := offload.ExpandLayout(recorded, rec.Name, k.Label, rec.Started)
		if err != nil {
			return false, nil
		}
		got, err := offload.ExpandLayout(given, rec.Name, k.Label, rec.Started)
		if err != nil || got != want {
			return false, nil
		}
	}
	return true, nil
}

// canonPath is a path as the engine records it: absolute, cleaned, with
// symlinks resolved when it exists.
func canonPath(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	return abs
}

// pathSetDiff compares the paths given with the recorded ones as sets of
// canonical paths: "" when they are the same, else what is not recorded
// and what is left out.
func pathSetDiff(recorded, given []string) string {
	rec, giv := map[string]bool{}, map[string]bool{}
	for _, p := range recorded {
		rec[canonPath(p)] = true
	}
	var extra, missing []string
	for _, p := range given {
		c := canonPath(p)
		if !rec[c] && !giv[c] {
			extra = append(extra, c)
		}
		giv[c] = true
	}
	for _, p := range recorded {
		if !giv[canonPath(p)] {
			missing = append(missing, p)
		}
	}
	var parts []string
	if len(extra) > 0 {
		parts = append(parts, "not the job's: "+strings.Join(extra, ", "))
	}
	if len(missing) > 0 {
		parts = append(parts, "left out: "+strings.Join(missing, ", "))
	}
	return strings.Join(parts, "; ")
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./{}-]+$`)

// flagArg writes --flag value as it would be typed (quoted when needed).
// bwLimitArg is a recorded --cloud-bwlimit (bytes/s) in dit's rate
// syntax, as it would be given: the largest decimal unit that writes it
// exactly ("5MB/s", "2.5MB/s", "500kB/s"), else bytes ("2500001B/s").
// offload.ParseRemoteBwLimit reads it back to v.
func bwLimitArg(v int64) string {
	for _, u := range []struct {
		n    float64
		name string
	}{{1e9, "GB/s"}, {1e6, "MB/s"}, {1e3, "kB/s"}} {
		if float64(v) < u.n {
			continue
		}
		s := strconv.FormatFloat(float64(v)/u.n, 'f', -1, 64) + u.name
		if back, err := offload.ParseRemoteBwLimit(s); err == nil && back == v {
			return s
		}
	}
	return strconv.FormatInt(v, 10) + "B/s"
}

func flagArg(flag, value string) string {
	if flag == "include-hidden" { // a bool: --include-hidden=false
		return "--" + flag + "=" + value
	}
	if !shellSafe.MatchString(value) {
		value = "'" + strings.ReplaceAll(value, "'", `'\''`) + "'"
	}
	return "--" + flag + " " + value
}
