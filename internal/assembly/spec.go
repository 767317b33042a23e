package assembly

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/dit-org/dit/internal/format/ascmhl"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/units"
)

// Spec is a job's settings as a person gives them, the one schema of
// every front end: dit offload's flags, a preset file (dit watch,
// dit-gui's auto-offload), dit-gui's form. Values are text as typed
// ("xxh64,md5", "200MB/s"); the zero value of a field is dit's default.
// Settings checks every value with the engine's rules and turns the Spec
// into the job's Settings; a bad value is a *UsageError naming the field
// as the front end calls it (Namer). Fields are the preset file's keys
// (yaml), in the same words as the flags.
type Spec struct {
	Name         string   `yaml:"name,omitempty" json:"name,omitempty"`
	Dests        []string `yaml:"destinations,omitempty" json:"destinations,omitempty"`
	Then         []string `yaml:"then,omitempty" json:"then,omitempty"`
	ThenParallel int      `yaml:"then_parallel,omitempty" json:"then_parallel,omitempty"`
	Hashes       string   `yaml:"hashes,omitempty" json:"hashes,omitempty"`
	Verify       string   `yaml:"verify,omitempty" json:"verify,omitempty"`
	VerifyHashes string   `yaml:"verify_hashes,omitempty" json:"verify_hashes,omitempty"`
	Layout       string   `yaml:"layout,omitempty" json:"layout,omitempty"`
	OnConflict   string   `yaml:"on_conflict,omitempty" json:"on_conflict,omitempty"`
	MHL          string   `yaml:"mhl,omitempty" json:"mhl,omitempty"`
	Ignore       []string `yaml:"ignore,omitempty" json:"ignore,omitempty"`
	IgnoreFile   string   `yaml:"ignore_file,omitempty" json:"ignore_file,omitempty"`
	Throttle     string   `yaml:"throttle,omitempty" json:"throttle,omitempty"`
	BlockSize    string   `yaml:"block_size,omitempty" json:"block_size,omitempty"`
	Checkpoint   string   `yaml:"checkpoint_every,omitempty" json:"checkpoint_every,omitempty"`
	Proxies      string   `yaml:"proxies,omitempty" json:"proxies,omitempty"`
	ProxiesTo    []string `yaml:"proxies_to,omitempty" json:"proxies_to,omitempty"`
	ProxyWorkers int      `yaml:"proxy_workers,omitempty" json:"proxy_workers,omitempty"`
	DriveHealth  string   `yaml:"drive_health,omitempty" json:"drive_health,omitempty"`
	// Flags: include hidden files, write to a degraded array, an ALE
	// with the reports, ASC MHL folders without hashes.
	SpecFlags `yaml:",inline" json:",inline"`
	// Creator is what the hash lists say of the offload.
	Creator Creator `yaml:",inline" json:",inline"`
}

// SpecFlags are a Spec's yes/no settings.
type SpecFlags struct {
	IncludeHidden     bool `yaml:"include_hidden,omitempty" json:"include_hidden,omitempty"`
	AllowDegraded     bool `yaml:"allow_degraded,omitempty" json:"allow_degraded,omitempty"`
	ALE               bool `yaml:"ale,omitempty" json:"ale,omitempty"`
	NoDirectoryHashes bool `yaml:"no_directory_hashes,omitempty" json:"no_directory_hashes,omitempty"`
}

// Creator is the ASC MHL creator info of the cards sealed in a job.
type Creator struct {
	Author   string `yaml:"author,omitempty" json:"author,omitempty"`
	Email    string `yaml:"author_email,omitempty" json:"author_email,omitempty"`
	Phone    string `yaml:"author_phone,omitempty" json:"author_phone,omitempty"`
	Role     string `yaml:"author_role,omitempty" json:"author_role,omitempty"`
	Location string `yaml:"location,omitempty" json:"location,omitempty"`
	Comment  string `yaml:"comment,omitempty" json:"comment,omitempty"`
}

// The defaults of a Spec's fields, as people read them.
const (
	DefaultHashes     = "xxh64,md5"
	DefaultBlockSize  = "256KiB"
	DefaultCheckpoint = "64MiB"
)

// Namer says how a front end calls a Spec's field (its preset key:
// "verify", "then_parallel"): a flag ("--verify"), a preset line
// ("preset day.yaml: verify"), a form's label.
type Namer func(key string) string

// FlagNames names the fields as dit offload's flags.
func FlagNames(key string) string {
	switch key {
	case "hashes":
		return "--hash"
	case "destinations":
		return "--dest"
	case "author", "author_email", "author_phone", "author_role":
		return "--" + strings.ReplaceAll(key, "_", "-")
	}
	return "--" + strings.ReplaceAll(key, "_", "-")
}

// PresetNames names the fields as the keys of the preset file.
func PresetNames(file string) Namer {
	return func(key string) string { return fmt.Sprintf("preset %s: %s", file, key) }
}

// Settings checks s and returns the job's settings for these cards (no
// catalog, hooks, notifications or bus budget: the front end adds them).
func (s Spec) Settings(name Namer, cards []string) (Settings, error) {
	if name == nil {
		name = FlagNames
	}
	bad := func(key, format string, a ...any) error {
		return usage(fmt.Errorf("%s: %s", name(key), fmt.Sprintf(format, a...)))
	}
	out := Settings{Name: s.Name, Cards: cards, Dests: s.Dests, Then: s.Then, ThenParallel: max(s.ThenParallel, 1),
		Layout: s.Layout, IncludeHidden: s.IncludeHidden, AllowDegraded: s.AllowDegraded, ALE: s.ALE,
		Proxies: s.Proxies, ProxiesTo: s.ProxiesTo, ProxyWorkers: s.ProxyWorkers, NoDirectoryHashes: s.NoDirectoryHashes,
		Location: s.Creator.Location, Comment: s.Creator.Comment}
	var err error
	if out.Hashes, err = hashing.ParseList(or(s.Hashes, DefaultHashes)); err != nil {
		return Settings{}, bad("hashes", "%v", err)
	}
	if out.Verify, err = offload.ParseVerifyMode(or(s.Verify, string(offload.VerifyDest))); err != nil {
		return Settings{}, bad("verify", "%q: use dest (every copy read back), source+dest (the card read again too) or none", s.Verify)
	}
	switch s.VerifyHashes {
	case "", "fastest":
	case "all":
		out.VerifyAll = true
	default:
		return Settings{}, bad("verify_hashes", "%q: use fastest or all", s.VerifyHashes)
	}
	if out.OnConflict, err = offload.ParseConflict(or(s.OnConflict, string(offload.ConflictFail))); err != nil {
		return Settings{}, bad("on_conflict", "%q: use fail, skip or rename", s.OnConflict)
	}
	if s.ThenParallel < 0 {
		return Settings{}, bad("then_parallel", "%d: give 1 or more cards at once", s.ThenParallel)
	}
	if s.ProxyWorkers < 0 {
		return Settings{}, bad("proxy_workers", "%d: give 1 or more ffmpeg at once", s.ProxyWorkers)
	}
	if err := s.engineRules(&out, bad); err != nil {
		return Settings{}, err
	}
	if err := s.sizes(&out, bad); err != nil {
		return Settings{}, err
	}
	if out.Ignore, err = s.ignore(name); err != nil {
		return Settings{}, err
	}
	a := ascmhl.Author{Name: strings.TrimSpace(s.Creator.Author), Email: strings.TrimSpace(s.Creator.Email),
		Phone: strings.TrimSpace(s.Creator.Phone), Role: strings.TrimSpace(s.Creator.Role)}
	if err := a.Check(); err != nil {
		return Settings{}, bad("author", "%v", err)
	}
	if !ascmhl.XMLSafe(s.Creator.Location) || !ascmhl.XMLSafe(s.Creator.Comment) {
		return Settings{}, bad("comment", "holds characters an XML document cannot carry")
	}
	out.Author = offload.Author{Name: a.Name, Email: a.Email, Phone: a.Phone, Role: a.Role}
	drives, ok := map[string]DriveCheck{"": DrivesWarn, "warn": DrivesWarn, "refuse": DrivesRefuse, "off": DrivesOff}[s.DriveHealth]
	if !ok {
		return Settings{}, bad("drive_health", "%q: give warn, refuse or off", s.DriveHealth)
	}
	out.Drives = drives
	return out, nil
}

// engineRules are the engine's rules of a job's settings: a cascade needs
// read-back, the hash lists need their hashes, cloud destinations their
// verification.
func (s Spec) engineRules(out *Settings, bad func(key, format string, a ...any) error) error {
	if len(s.Then) > 0 && out.Verify == offload.VerifyNone {
		return bad("verify", "a cascade (then) needs read-back (dest): a card is free only once its first copy is verified")
	}
	out.MHL = or(s.MHL, "asc")
	parseErr, hashErr := CheckMHL(out.MHL, out.Hashes)
	if parseErr != nil {
		return bad("mhl", "%v", parseErr)
	}
	if hashErr != nil {
		return bad("mhl", "%v (or none)", hashErr)
	}
	if err := CheckCloudDests(s.Dests, s.Then, out.Verify); err != nil {
		var ue *UsageError
		if errors.As(err, &ue) {
			return err
		}
		return usage(err)
	}
	return nil
}

// sizes reads the rates and sizes.
func (s Spec) sizes(out *Settings, bad func(key, format string, a ...any) error) error {
	if s.Throttle != "" {
		v, err := units.ParseRate(s.Throttle)
		if err != nil || v <= 0 {
			return bad("throttle", "%q: a rate such as 200MB/s", s.Throttle)
		}
		out.Throttle = v
	}
	bs, err := units.ParseBytes(or(s.BlockSize, DefaultBlockSize))
	if err != nil || bs < 4096 || bs > 256<<20 {
		return bad("block_size", "%q: use 4KiB to 256MiB", s.BlockSize)
	}
	out.BlockSize = int(bs)
	ck, err := units.ParseBytes(or(s.Checkpoint, DefaultCheckpoint))
	if err != nil || ck < 0 {
		return bad("checkpoint_every", "%q: a size such as 64MiB, or 0 for never", s.Checkpoint)
	}
	if ck == 0 {
		ck = -1
	}
	out.CheckpointEvery = ck
	return nil
}

// ignore is the ignore patterns: the list's and the file's.
func (s Spec) ignore(name Namer) ([]string, error) {
	out := append([]string(nil), s.Ignore...)
	if s.IgnoreFile != "" {
		b, err := os.ReadFile(s.IgnoreFile)
		if err != nil {
			return nil, usage(fmt.Errorf("%s: %w", name("ignore_file"), err))
		}
		for _, l := range strings.Split(string(b), "\n") {
			if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
				out = append(out, l)
			}
		}
	}
	for _, p := range out {
		if strings.TrimSpace(p) == "" || strings.ContainsAny(p, "\x00\n") {
			return nil, usage(fmt.Errorf("%s %q: not a pattern (e.g. *.RMD, CACHE/, /PROXY)", name("ignore"), p))
		}
	}
	return out, nil
}

func or(v, def string) string {
	if v == "" {
		return def
	}
	return v
}
