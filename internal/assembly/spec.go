package assembly

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/dit-org/dit/internal/cloud"
	"github.com/dit-org/dit/internal/format/ascmhl"
	"github.com/dit-org/dit/internal/hashing"
	"github.com/dit-org/dit/internal/offload"
	"github.com/dit-org/dit/internal/proxies"
	"github.com/dit-org/dit/internal/units"
)

// Spec is a job's settings as a person gives them, the one schema of
// every front end: dit offload's flags, a preset file (dit watch,
// dit-gui's auto-offload), dit-gui's form. Values are text as typed
// ("xxh64,md5", "200MB/s"); the zero value of a field is dit's default.
// Settings checks every value with the engine's rules and turns the Spec
// into the job's Settings; a bad value is a *UsageError naming the field
// as the front end calls it (Namer). Fields are the preset file's keys
// (yaml, SpecKeys), in the same words as the flags (FlagNames: a key's
// "_" is the flag's "-"; hashes is --hash, destinations -d/--dest,
// author --author-name).
//
// A front end fills a Spec (dit offload binds its flags to one, dit
// watch reads it from the preset file, dit-gui's form fills one as the
// person types) and calls Settings with the cards; it then adds only
// what is its own: the catalog, the hooks, the notifications, the
// topology of the bus budget (Settings.Sched.Topology), a resume. Jobs
// made from equal Specs record the same settings, whichever front end
// made them.
type Spec struct {
	Name         string   `yaml:"name,omitempty" json:"name,omitempty"`                 // --name
	Dests        []string `yaml:"destinations,omitempty" json:"destinations,omitempty"` // -d, folders or rclone:REMOTE:PATH
	Then         []string `yaml:"then,omitempty" json:"then,omitempty"`                 // --then: a cascade's second run
	ThenParallel int      `yaml:"then_parallel,omitempty" json:"then_parallel,omitempty"`
	Hashes       string   `yaml:"hashes,omitempty" json:"hashes,omitempty"`               // --hash: "xxh64,md5"
	Verify       string   `yaml:"verify,omitempty" json:"verify,omitempty"`               // dest, source+dest, none
	VerifyHashes string   `yaml:"verify_hashes,omitempty" json:"verify_hashes,omitempty"` // fastest, all
	Layout       string   `yaml:"layout,omitempty" json:"layout,omitempty"`               // "{job}/{card}"
	OnConflict   string   `yaml:"on_conflict,omitempty" json:"on_conflict,omitempty"`     // fail, skip, rename
	MHL          string   `yaml:"mhl,omitempty" json:"mhl,omitempty"`                     // asc, v1, both, none
	Ignore       []string `yaml:"ignore,omitempty" json:"ignore,omitempty"`               // patterns: *.RMD, CACHE/
	IgnoreFile   string   `yaml:"ignore_file,omitempty" json:"ignore_file,omitempty"`     // patterns, one a line
	// The rates and sizes of the copy, the proxies of the clips, the
	// drives' check and how rclone reaches the cloud destinations (in
	// this order: SpecKeys).
	SpecPace    `yaml:",inline"`
	SpecProxies `yaml:",inline"`
	DriveHealth string `yaml:"drive_health,omitempty" json:"drive_health,omitempty"` // warn, refuse, off
	SpecRemote  `yaml:",inline"`
	// Flags: include hidden files, write to a degraded array, an ALE
	// with the reports, ASC MHL folders without hashes.
	SpecFlags `yaml:",inline" json:",inline"`
	// Creator is what the hash lists say of the offload.
	Creator Creator `yaml:",inline" json:",inline"`
}

// SpecPace is a Spec's rates and sizes.
type SpecPace struct {
	Throttle string `yaml:"throttle,omitempty" json:"throttle,omitempty"` // each card's read rate: 200MB/s
	// Limits cap the destinations' writes: "RATE" (every destination) or
	// "DEST=RATE" (--limit, the preset's limit:).
	Limits     []string `yaml:"limit,omitempty" json:"limit,omitempty"`
	BlockSize  string   `yaml:"block_size,omitempty" json:"block_size,omitempty"`
	Checkpoint string   `yaml:"checkpoint_every,omitempty" json:"checkpoint_every,omitempty"` // "64MiB", "0" never
}

// SpecProxies are a Spec's editorial proxies of the clips.
type SpecProxies struct {
	Proxies      string   `yaml:"proxies,omitempty" json:"proxies,omitempty"` // PRESET[,burnin]
	ProxiesTo    []string `yaml:"proxies_to,omitempty" json:"proxies_to,omitempty"`
	ProxyWorkers int      `yaml:"proxy_workers,omitempty" json:"proxy_workers,omitempty"`
}

// SpecRemote is how rclone reaches a Spec's cloud destinations:
// RcloneConfig its configuration file ("": rclone's own), RemoteBwLimit
// their upload limit, a rate such as 20MB/s.
type SpecRemote struct {
	RcloneConfig  string `yaml:"rclone_config,omitempty" json:"rclone_config,omitempty"`
	RemoteBwLimit string `yaml:"cloud_bwlimit,omitempty" json:"cloud_bwlimit,omitempty"`
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
// ("preset day.yaml: verify"), a form's label ("Verify").
type Namer func(key string) string

// FlagNames names the fields as dit offload's flags.
func FlagNames(key string) string {
	switch key {
	case "hashes":
		return "--hash"
	case "destinations":
		return "--dest"
	case "author":
		return "--author-name"
	}
	return "--" + strings.ReplaceAll(key, "_", "-")
}

// PresetNames names the fields as the keys of the preset file.
func PresetNames(file string) Namer {
	return func(key string) string { return fmt.Sprintf("preset %s: %s", file, key) }
}

// PresetLines names the fields as the keys of the preset file, with the
// line each is on ("preset day.yaml:4: verify") when lines knows it.
func PresetLines(file string, lines map[string]int) Namer {
	return func(key string) string {
		if l := lines[key]; l > 0 {
			return fmt.Sprintf("preset %s:%d: %s", file, l, key)
		}
		return fmt.Sprintf("preset %s: %s", file, key)
	}
}

// SpecKeys are the keys of a Spec in a preset file (its yaml keys), in
// the order of its fields.
func SpecKeys() []string { return yamlKeys(reflect.TypeFor[Spec]()) }

func yamlKeys(t reflect.Type) []string {
	var keys []string
	for f := range t.Fields() {
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		switch {
		case opts == "inline" && name == "":
			keys = append(keys, yamlKeys(f.Type)...)
		case name != "" && name != "-":
			keys = append(keys, name)
		}
	}
	return keys
}

// Settings checks s and returns the job's settings for these cards (no
// catalog, hooks, notifications or topology: the front end adds them;
// Sched holds the limits). name says how the front end calls a field
// (nil: FlagNames).
func (s Spec) Settings(name Namer, cards []string) (Settings, error) {
	if name == nil {
		name = FlagNames
	}
	bad := func(key, format string, a ...any) error {
		return usage(fmt.Errorf("%s: %s", name(key), fmt.Sprintf(format, a...)))
	}
	out := Settings{Name: s.Name, Cards: cards, Dests: s.Dests, Then: s.Then, ThenParallel: max(s.ThenParallel, 1),
		Copying:  Copying{Layout: or(s.Layout, offload.DefaultLayout), IncludeHidden: s.IncludeHidden, AllowDegraded: s.AllowDegraded},
		Sealing:  Sealing{ALE: s.ALE, NoDirectoryHashes: s.NoDirectoryHashes, Location: s.Creator.Location, Comment: s.Creator.Comment},
		Proxying: Proxying{Proxies: s.Proxies, ProxiesTo: s.ProxiesTo, ProxyWorkers: max(s.ProxyWorkers, 1)}}
	if err := CheckJobName(s.Name); err != nil {
		return Settings{}, bad("name", "%s: %v", s.Name, err)
	}
	if _, err := offload.ExpandLayout(out.Layout, "job", "CARD", time.Now()); err != nil {
		// The engine's words name the flag: said after the caller's name
		// of the field instead.
		msg, _ := strings.CutPrefix(err.Error(), "invalid --layout ")
		return Settings{}, bad("layout", "%s", msg)
	}
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
	if s.Proxies != "" {
		if _, err := proxies.ParseSpec(s.Proxies); err != nil {
			return Settings{}, bad("proxies", "%q: give a preset (%s), optionally followed by \",burnin\" (e.g. prores-proxy,burnin)",
				s.Proxies, proxies.PresetNames())
		}
	}
	if err := s.engineRules(&out, name, bad); err != nil {
		return Settings{}, err
	}
	if err := s.sizes(&out, bad); err != nil {
		return Settings{}, err
	}
	if out.Ignore, err = IgnorePatterns(s.Ignore, s.IgnoreFile, name); err != nil {
		return Settings{}, err
	}
	a, err := s.Creator.Check(name)
	if err != nil {
		return Settings{}, err
	}
	out.Author = offload.Author{Name: a.Name, Email: a.Email, Phone: a.Phone, Role: a.Role}
	drives, ok := map[string]DriveCheck{"": DrivesWarn, "warn": DrivesWarn, "refuse": DrivesRefuse, "off": DrivesOff}[s.DriveHealth]
	if !ok {
		return Settings{}, bad("drive_health", "%q: give warn, refuse or off", s.DriveHealth)
	}
	out.Drives = drives
	return out, nil
}

// ForResume is the part of s a resumed job takes from its front end:
// the settings of this run (rates, sizes, the drives' check, rclone, an ALE,
// the creator info, proxies as given), not those the job keeps from the
// catalog (cards, destinations, hashes, verification, layout, name,
// ignore patterns, hash lists: offload.Resume), which are left at their
// defaults. A front end that lets a person give those again compares
// them with the recorded ones itself (dit offload --resume refuses a
// different one).
func (s Spec) ForResume() Spec {
	return Spec{SpecPace: s.SpecPace, SpecProxies: s.SpecProxies, DriveHealth: s.DriveHealth, SpecRemote: s.SpecRemote,
		SpecFlags: SpecFlags{AllowDegraded: s.AllowDegraded, ALE: s.ALE, NoDirectoryHashes: s.NoDirectoryHashes}, Creator: s.Creator}
}

// engineRules are the engine's rules of a job's settings: a cascade needs
// read-back, the hash lists need their hashes, cloud destinations their
// verification.
func (s Spec) engineRules(out *Settings, name Namer, bad func(key, format string, a ...any) error) error {
	if len(s.Then) > 0 && out.Verify == offload.VerifyNone {
		return bad("verify", "a cascade (then) needs read-back (dest): a card is free only once its first copy is verified")
	}
	out.MHL = or(s.MHL, offload.DefaultMHL)
	parseErr, hashErr := CheckMHL(out.MHL, out.Hashes)
	if parseErr != nil {
		return bad("mhl", "%q: use asc (the default), v1, both or none", s.MHL)
	}
	if hashErr != nil {
		// The hashes named as the front end names them (seal says --hash).
		return bad("mhl", "%s (or none)", strings.ReplaceAll(hashErr.Error(), "--hash", name("hashes")))
	}
	if err := CheckRemoteDests(s.Dests, s.Then, out.Verify); err != nil {
		// The engine's words, after the name of the field at fault (a
		// RemoteRefusal still, for errors.As).
		key := "destinations"
		if cr := (*offload.RemoteRefusal)(nil); errors.As(err, &cr) {
			switch {
			case cr.Reason == offload.RemoteNoReadBack:
				key = "verify"
			case cr.Reason == offload.RemoteBesideThen, !slices.ContainsFunc(s.Dests, badCloud):
				key = "then"
			}
		}
		return usage(fmt.Errorf("%s: %w", name(key), err))
	}
	if s.RemoteBwLimit != "" {
		if _, err := offload.ParseRemoteBwLimit(s.RemoteBwLimit); err != nil {
			return bad("cloud_bwlimit", "%q: give a rate in bytes/s, decimal units, e.g. 20MB/s (20 000 000 bytes/s), 20M, 500kB/s or 160Mbit/s", s.RemoteBwLimit)
		}
	}
	out.Rclone = &cloud.Rclone{Config: s.RcloneConfig, BwLimit: s.RemoteBwLimit}
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
	for _, l := range s.Limits {
		_, rate, named := strings.Cut(l, "=")
		if !named {
			rate = l
		}
		if v, err := units.ParseRate(rate); err != nil || v <= 0 {
			return bad("limit", "%q: give RATE or DEST=RATE, e.g. 1.5GB/s or /Volumes/RAID=1.5GB/s", l)
		}
	}
	if len(s.Limits) > 0 {
		out.Sched = Schedule{Limits: s.Limits, Discover: true}
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

// IgnorePatterns are the ignore patterns of a list (Spec.Ignore) and a
// file (Spec.IgnoreFile: one a line, blank lines and # comments left
// out), each checked to be one ASC MHL can record; a bad one is a
// *UsageError naming the field (nil name: FlagNames).
func IgnorePatterns(list []string, file string, name Namer) ([]string, error) {
	if name == nil {
		name = FlagNames
	}
	out := append([]string(nil), list...)
	if file != "" {
		b, err := os.ReadFile(file)
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
			return nil, usage(fmt.Errorf("%s: %q: not a pattern (e.g. *.RMD, CACHE/, /PROXY)", name("ignore"), p))
		}
	}
	return out, nil
}

// Check refuses creator info that would make a manifest invalid (an
// email the ASC MHL schema does not accept, text XML cannot carry),
// naming the field (nil name: FlagNames), and returns the author,
// trimmed (zero when none is given).
func (c Creator) Check(name Namer) (ascmhl.Author, error) {
	if name == nil {
		name = FlagNames
	}
	a := ascmhl.Author{Name: strings.TrimSpace(c.Author), Email: strings.TrimSpace(c.Email),
		Phone: strings.TrimSpace(c.Phone), Role: strings.TrimSpace(c.Role)}
	for _, f := range []struct {
		key string
		a   ascmhl.Author
	}{{"author", ascmhl.Author{Name: a.Name}}, {"author_email", ascmhl.Author{Email: a.Email}},
		{"author_phone", ascmhl.Author{Phone: a.Phone}}, {"author_role", ascmhl.Author{Role: a.Role}}} {
		if err := f.a.Check(); err != nil {
			return ascmhl.Author{}, usage(fmt.Errorf("%s: %w", name(f.key), err))
		}
	}
	for _, f := range [][2]string{{"location", c.Location}, {"comment", c.Comment}} {
		if !ascmhl.XMLSafe(f[1]) {
			return ascmhl.Author{}, usage(fmt.Errorf("%s: holds characters an XML document cannot carry", name(f[0])))
		}
	}
	return a, nil
}

// badCloud: d is a cloud destination rclone cannot take as written.
func badCloud(d string) bool {
	if !cloud.IsDest(d) {
		return false
	}
	_, err := cloud.Parse(d)
	return err != nil
}

func or(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// CheckJobName refuses a job name that would not be one folder: {job}
// of the layout is the name, so a / (or \), or a name that is . or
// holds .., would put the cards elsewhere than in a folder of that name
// (a/b nests folders; ../x leaves the destination). "" is no name (the
// date and time).
func CheckJobName(name string) error {
	if strings.ContainsAny(name, `/\`) || name == "." || strings.Contains(name, "..") {
		return errors.New("a job name cannot hold / or .. (or \\): it is one folder on each destination ({job} of --layout): give a name such as Day01 or Day01_unit2")
	}
	return nil
}
