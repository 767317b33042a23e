package main

import (
	"slices"
	"testing"

	"github.com/dit-org/dit/internal/assembly"
	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/offload"
)

// A resumed job's settings: a flag given with the value the job recorded
// (compared as the engine reads it: a hash list as a set, defaults for
// what was not recorded) passes; one given with another value is named,
// in the order of the flags, with the way to resume; a flag not given is
// not checked whatever its value.
func TestResumeSettingDiffs(t *testing.T) {
	rec := &catalog.Job{ID: 7, Name: "Day01", Hashes: "xxh64,md5", IncludeHidden: false}
	given := func(flags ...string) func(string) bool {
		return func(f string) bool { return slices.Contains(flags, f) }
	}
	o := OffloadOptions{Spec: assembly.Spec{Hashes: "md5,xxh64", Verify: "dest", VerifyHashes: "fastest", OnConflict: "fail", Name: "Day01", ThenParallel: 1}}
	diffs, err := resumeSettingDiffs(given("hash", "verify", "verify-hashes", "on-conflict", "include-hidden", "name", "then-parallel"), o, nil, rec)
	if err != nil || len(diffs) != 0 {
		t.Fatalf("same settings: %q, %v", diffs, err)
	}

	o = OffloadOptions{Spec: assembly.Spec{Hashes: "sha1", Verify: "none", VerifyHashes: "fastest", OnConflict: "fail", SpecFlags: assembly.SpecFlags{IncludeHidden: true}, Name: "Day 2", ThenParallel: 3}}
	diffs, err = resumeSettingDiffs(given("hash", "verify", "include-hidden", "name", "then-parallel"), o, nil, rec)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"job 7 was started with --hash md5,xxh64, not --hash sha1: a resumed job keeps the settings it started with; resume without --hash (or with --hash md5,xxh64)",
		"job 7 was started with --verify dest, not --verify none: a resumed job keeps the settings it started with; resume without --verify (or with --verify dest)",
		"job 7 was started with --include-hidden=false, not --include-hidden=true: a resumed job keeps the settings it started with; resume without --include-hidden (or with --include-hidden=false)",
		"job 7 was started with --name Day01, not --name 'Day 2': a resumed job keeps the settings it started with; resume without --name (or with --name Day01)",
		"job 7 was started with --then-parallel 1, not --then-parallel 3: a resumed job keeps the settings it started with; resume without --then-parallel (or with --then-parallel 1)",
	}
	if !slices.Equal(diffs, want) {
		t.Fatalf("got\n%q\nwant\n%q", diffs, want)
	}

	diffs, err = resumeSettingDiffs(given(), o, nil, rec)
	if err != nil || len(diffs) != 0 {
		t.Fatalf("no flag given: %q, %v", diffs, err)
	}
}

// A resumed job's proxies (--proxies, --proxies-to): given the same (the
// spec as the preset parser reads it, the destinations as a set) they
// pass; others are named with the recorded ones and the way to resume;
// asking for proxies of a job started without them is refused; a job
// recorded before its proxies were takes those given.
func TestResumeProxyDiffs(t *testing.T) {
	rec := &catalog.Job{ID: 7, Name: "Day01", Hashes: "md5", Proxies: "prores-proxy,burnin", ProxiesTo: []string{"/raid/a", "/shuttle"}}
	given := func(flags ...string) func(string) bool {
		return func(f string) bool { return slices.Contains(flags, f) }
	}
	o := OffloadOptions{Spec: assembly.Spec{SpecProxies: assembly.SpecProxies{Proxies: "ProRes-Proxy, burnin", ProxiesTo: []string{"/shuttle/", "/raid/b/../a", "/shuttle"}}}}
	diffs, err := resumeSettingDiffs(given("proxies", "proxies-to"), o, nil, rec)
	if err != nil || len(diffs) != 0 {
		t.Fatalf("same proxies: %q, %v", diffs, err)
	}

	o = OffloadOptions{Spec: assembly.Spec{SpecProxies: assembly.SpecProxies{Proxies: "h264", ProxiesTo: []string{"/raid/a"}}}}
	diffs, err = resumeSettingDiffs(given("proxies", "proxies-to"), o, nil, rec)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"job 7 was started with --proxies prores-proxy,burnin, not --proxies h264: a resumed job keeps the settings it started with; resume without --proxies (or with --proxies prores-proxy,burnin)\n" +
		"job 7 was started with --proxies-to /raid/a, /shuttle, not --proxies-to /raid/a: a resumed job writes its proxies to the destinations it started with; resume without --proxies-to (the job remembers them)"}
	if !slices.Equal(diffs, want) {
		t.Fatalf("got\n%q\nwant\n%q", diffs, want)
	}
	if diffs, _ = resumeSettingDiffs(given(), o, nil, rec); len(diffs) != 0 {
		t.Fatalf("no flag given: %q", diffs)
	}

	none := &catalog.Job{ID: 8, Hashes: "md5"}
	diffs, _ = resumeSettingDiffs(given("proxies"), OffloadOptions{Spec: assembly.Spec{SpecProxies: assembly.SpecProxies{Proxies: "h264"}}}, nil, none)
	want = []string{"job 8 was started without --proxies, not with --proxies h264: a resumed job keeps the settings it started with; resume without --proxies (and --proxies-to)"}
	if !slices.Equal(diffs, want) {
		t.Fatalf("got\n%q\nwant\n%q", diffs, want)
	}
	none.ProxiesUnrecorded = true
	if diffs, _ = resumeSettingDiffs(given("proxies"), OffloadOptions{Spec: assembly.Spec{SpecProxies: assembly.SpecProxies{Proxies: "h264"}}}, nil, none); len(diffs) != 0 {
		t.Fatalf("a job that did not record its proxies: %q", diffs)
	}
}

// A recorded --cloud-bwlimit is echoed in dit's rate syntax, as it can be
// given again (offload.ParseRemoteBwLimit reads it back to the same
// bytes/s), not as a count of bytes; the same rate written otherwise
// ("5M", "40Mbit/s") passes.
func TestResumeCloudBwLimitEcho(t *testing.T) {
	given := func(f string) bool { return f == "cloud-bwlimit" }
	rec := &catalog.Job{ID: 9, Name: "Day01", Hashes: "xxh64", CloudBwLimit: 5_000_000}
	o := OffloadOptions{Spec: assembly.Spec{Hashes: "xxh64", Verify: "dest", VerifyHashes: "fastest", OnConflict: "fail", Name: "Day01", ThenParallel: 1}}
	for _, same := range []string{"5MB/s", "5M", "40Mbit/s", "5000kB/s"} {
		o.RemoteBwLimit = same
		if diffs, err := resumeSettingDiffs(given, o, nil, rec); err != nil || len(diffs) != 0 {
			t.Fatalf("%s: %q, %v", same, diffs, err)
		}
	}
	o.RemoteBwLimit = "6MB/s"
	diffs, err := resumeSettingDiffs(given, o, nil, rec)
	want := []string{"job 9 was started with --cloud-bwlimit 5MB/s, not --cloud-bwlimit 6MB/s: a resumed job keeps the settings it started with; resume without --cloud-bwlimit (or with --cloud-bwlimit 5MB/s)"}
	if err != nil || !slices.Equal(diffs, want) {
		t.Fatalf("got\n%q\nwant\n%q (%v)", diffs, want, err)
	}
	for v, s := range map[int64]string{5_000_000: "5MB/s", 2_500_000: "2.5MB/s", 500_000: "500kB/s", 1_000_000_000: "1GB/s",
		2_500_001: "2.500001MB/s", 999: "999B/s", 1_234_567_891: "1.234567891GB/s"} {
		got := bwLimitArg(v)
		back, err := offload.ParseRemoteBwLimit(got)
		if got != s || err != nil || back != v {
			t.Errorf("bwLimitArg(%d) = %q (read back %d, %v), want %q", v, got, back, err, s)
		}
	}
}
