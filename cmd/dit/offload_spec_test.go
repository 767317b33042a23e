package main

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/require"

	"github.com/dit-org/dit/internal/assembly"
	"github.com/dit-org/dit/internal/watch"
)

// cliOwnFlags are dit offload's flags that are not a job's settings
// (assembly.Spec): the CLI's own.
var cliOwnFlags = []string{"json", "resume", "reread-card", "again", "notify-config", "topology", "simulate", "simulate-scale", "simulate-physics-only"}

// dit offload's flags are the Spec: every Spec key (a preset's job key)
// is a flag in the same words, and every flag is a Spec key or the CLI's
// own.
func TestOffloadFlagsAreTheSpec(t *testing.T) {
	var o OffloadOptions
	f := pflag.NewFlagSet("offload", pflag.ContinueOnError)
	o.AddFlags(f)
	var keys []string
	for _, key := range assembly.SpecKeys() {
		flag := strings.TrimPrefix(assembly.FlagNames(key), "--")
		require.NotNil(t, f.Lookup(flag), "Spec key %s: no --%s", key, flag)
		keys = append(keys, flag)
	}
	f.VisitAll(func(fl *pflag.Flag) {
		require.True(t, slices.Contains(keys, fl.Name) || slices.Contains(cliOwnFlags, fl.Name), "--%s is neither a Spec key nor the CLI's own", fl.Name)
	})
}

// The flags at their defaults are the zero Spec's settings, dit watch's
// of a preset that names only its destinations; the same settings as
// flags and as a preset make the same job settings.
func TestOffloadSettingsOfTheFlags(t *testing.T) {
	dir := t.TempDir()
	g := &GlobalOptions{}
	parse := func(args ...string) OffloadOptions {
		var o OffloadOptions
		f := pflag.NewFlagSet("offload", pflag.ContinueOnError)
		o.AddFlags(f)
		require.NoError(t, f.Parse(args))
		return o
	}
	preset := func(doc string) *watch.Preset {
		p, err := watch.ParsePreset(filepath.Join(dir, "day.yaml"), []byte(doc))
		require.NoError(t, err)
		return p
	}
	cards := []string{filepath.Join(dir, "A001")}
	flags, err := offloadSettings(parse("-d", filepath.Join(dir, "raid")), g, cards)
	require.NoError(t, err)
	zero, err := preset("destinations: raid\n").JobSettings(cards, time.Now())
	require.NoError(t, err)
	require.Equal(t, cliSettings(zero, 0, g), flags)

	flags, err = offloadSettings(parse("-d", filepath.Join(dir, "raid"), "--hash", "sha1,c4", "--verify", "none", "--on-conflict", "skip",
		"--layout", "{card}", "--limit", "1GB/s", "--throttle", "50MB/s", "--author-role", "DIT", "--comment", "B cam"), g, cards)
	require.NoError(t, err)
	same, err := preset("destinations: raid\nhashes: c4,sha1\nverify: none\non_conflict: skip\nlayout: \"{card}\"\nlimit: 1GB/s\n"+
		"throttle: 50MB/s\nauthor_role: DIT\ncomment: B cam\n").JobSettings(cards, time.Now())
	require.NoError(t, err)
	require.Equal(t, cliSettings(same, 0, g), flags)
	require.Equal(t, []string{"1GB/s"}, flags.Sched.Limits, "--limit, the planning flags', is the Spec's")

	// A bad value: a usage error (exit 2) naming the flag.
	for _, c := range [][]string{{"--hash", "crc"}, {"--limit", "fast"}, {"--then-parallel", "0"}, {"--author-email", "jane"}, {"--cloud-bwlimit", "x"}} {
		_, err := offloadSettings(parse(append([]string{"-d", dir}, c...)...), g, cards)
		var ee *exitError
		require.True(t, errors.As(err, &ee), "%v: %v", c, err)
		require.Equal(t, ExitUsage, ee.code)
		require.True(t, strings.HasPrefix(err.Error(), c[0]+": "), err.Error())
	}
}
