package jobreport

import (
	"math"
)

// The reports of this file are built by hand, not from a catalog: fixed
// names, times and figures, so that their renderings never change while
// the way the figures are computed (report.go) does.

// tbhOf is bytes over seconds in TB/hour, to three decimals.
func tbhOf(bytes int64, seconds float64) float64 {
	if seconds <= 0 {
		return 0
	}
	return round(float64(bytes)/1e12/(seconds/3600), 3)
}

// wave is a deterministic series of per-second samples of one phase from
// t0 to t1 (seconds since the job started), every step seconds, around
// rate bytes per second.
func wave(phase string, t0, t1, step, rate float64) []point {
	var out []point
	for t := t0; t < t1; t += step {
		v := rate * (1 + 0.07*math.Sin(t/23) + 0.04*math.Sin(t/6.1))
		if math.Mod(t, 400) < 12 { // a file boundary: a short dip
			v *= 0.55
		}
		out = append(out, point{t: t, rate: math.Round(v), phase: phase})
	}
	return out
}

func seriesOf(parts ...[]point) []point {
	var out []point
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// resumedReport is a job of three cards that was interrupted after 50
// minutes and resumed an hour later, simulated at a quarter of the
// planned rates; one card has a file that failed on the shuttle drive.
func resumedReport() *Report {
	const raid, shuttle = "/Volumes/RAID_A", "/Volumes/SHUTTLE_01"
	layout := func(dest, card string) string { return dest + "/Day 14 Main Unit/" + card }
	r := &Report{
		Generated: generated,
		Job: Job{ID: 12, Name: "Day 14 Main Unit", State: "done", Host: "dit-cart-1", ToolVersion: "1.0.0-test",
			Started: at(0), Finished: at(7200), Hashes: []string{"xxh64", "md5"}, Verify: "dest", VerifyHashes: "fastest",
			Layout: "{job}/{card}"},
	}

	a := Card{Label: "A001", Source: "/Volumes/A001", Media: "CFast 2.0", Bus: "USB 3.2 Gen 2 (reader 1)",
		State: "verified", Verdict: "Verified: safe to format", SafeToFormat: true,
		Files: 412, Bytes: 498_123_456_789, Skipped: []Skip{}, Failures: []Failure{},
		CopyStarted: at(20), CopyFinished: at(1127), VerifyStarted: at(80), VerifyFinished: at(1300),
		CopyRate:    Rate{Samples: 1107, Mean: 449_975_000, Min: 247_000_000, Max: 498_000_000, P95: 489_000_000},
		VerifyRate:  Rate{Samples: 1210, Mean: 823_400_000, Min: 452_000_000, Max: 905_000_000, P95: 890_000_000},
		BytesCopied: 498_123_456_789, BytesVerified: 2 * 498_123_456_789, CopySeconds: 1107, VerifySeconds: 1210, ActiveSeconds: 1280,
		Destinations: []CardDest{
			{Path: layout(raid, "A001"), Verified: 412, WriteRate: Rate{Samples: 1107, Mean: 449_975_000}, ReadBackRate: Rate{Samples: 1210, Mean: 498_000_000}},
			{Path: layout(shuttle, "A001"), Verified: 412, WriteRate: Rate{Samples: 1107, Mean: 449_975_000}, ReadBackRate: Rate{Samples: 1210, Mean: 325_400_000}},
		},
		FileList: []File{
			{Path: "A001/CLIP/A001C001_261120_R1AB.mxf", Size: 48_123_456_789, Mtime: at(-7200), State: "verified",
				Hashes: map[string]string{"xxh64": "652d236cd89ce46d", "md5": "283ada638ab6da8e36f3ce724ba17068"},
				Copies: []Copy{{Dest: raid, State: "verified", VerifiedAt: at(400), VerifiedBy: "xxh64"}, {Dest: shuttle, State: "verified", VerifiedAt: at(410), VerifiedBy: "xxh64"}}},
		},
		series: seriesOf(wave("copy", 20, 1127, 2, 450e6), wave("verify", 80, 1290, 2, 823e6)),
	}

	// B001 was being copied when the job was interrupted at 50 minutes; the
	// resume an hour later copied the file that was cut short again.
	b := Card{Label: "B001", Source: "/Volumes/B001", State: "verified", Verdict: "Verified: safe to format", SafeToFormat: true,
		Files: 1203, Bytes: 256_000_000_000, Failures: []Failure{},
		Skipped: []Skip{
			{Path: ".DS_Store", Kind: "metadata", Reason: "macOS Finder metadata (copy it with --include-hidden)"},
			{Path: "CLIPS/._B001C003.R3D", Kind: "metadata", Reason: "macOS AppleDouble resource fork (copy it with --include-hidden)"},
			{Path: "CLIPS/latest", Kind: "symlink", Reason: "symbolic link, not followed"},
		},
		CopyStarted: at(1200), CopyFinished: at(6663), VerifyStarted: at(1300), VerifyFinished: at(6700),
		CopyRate:    Rate{Samples: 1753, Mean: 160_011_000, Min: 88_000_000, Max: 178_000_000, P95: 174_000_000},
		VerifyRate:  Rate{Samples: 1730, Mean: 295_954_000, Min: 163_000_000, Max: 330_000_000, P95: 322_000_000},
		BytesCopied: 280_500_000_000, BytesVerified: 512_000_000_000, CopySeconds: 1753, VerifySeconds: 1730, ActiveSeconds: 1850,
		Destinations: []CardDest{
			{Path: layout(raid, "B001"), Verified: 1203, Skipped: 3, WriteRate: Rate{Samples: 1753, Mean: 160_011_000}, ReadBackRate: Rate{Samples: 1730, Mean: 180_000_000}},
			{Path: layout(shuttle, "B001"), Verified: 1203, Skipped: 3, WriteRate: Rate{Samples: 1753, Mean: 160_011_000}, ReadBackRate: Rate{Samples: 1730, Mean: 116_000_000}},
		},
		series: seriesOf(wave("copy", 1200, 2900, 2, 160e6), wave("copy", 6610, 6663, 1, 160e6),
			wave("verify", 1300, 2950, 2, 296e6), wave("verify", 6620, 6700, 1, 296e6)),
	}

	// The sound card: small and slow (MB/s), one file differs on the shuttle.
	s := Card{Label: "SOUND_D14", Source: "/Volumes/SOUND_D14", Media: "SD", Bus: "USB 3.0 (reader 2)",
		State: "failed", Verdict: "FAILED: NOT safe to format", Files: 96, Bytes: 3_200_000_000, Skipped: []Skip{},
		Failures:    []Failure{{Path: "Day14/T012_03.WAV", Error: "/Volumes/SHUTTLE_01: read-back: xxh64 differs"}},
		CopyStarted: at(6700), CopyFinished: at(6740), VerifyStarted: at(6705), VerifyFinished: at(6770),
		CopyRate:    Rate{Samples: 40, Mean: 80_000_000, Min: 44_000_000, Max: 89_000_000, P95: 87_500_000},
		VerifyRate:  Rate{Samples: 60, Mean: 71_100_000, Min: 39_000_000, Max: 79_000_000, P95: 77_000_000},
		BytesCopied: 3_200_000_000, BytesVerified: 6_400_000_000, CopySeconds: 40, VerifySeconds: 60, ActiveSeconds: 70,
		Destinations: []CardDest{
			{Path: layout(raid, "SOUND_D14"), Verified: 96, WriteRate: Rate{Samples: 40, Mean: 80_000_000}, ReadBackRate: Rate{Samples: 60, Mean: 40_000_000}},
			{Path: layout(shuttle, "SOUND_D14"), Verified: 95, Failed: 1, WriteRate: Rate{Samples: 40, Mean: 80_000_000}, ReadBackRate: Rate{Samples: 60, Mean: 31_100_000}},
		},
		series: seriesOf(wave("copy", 6700, 6740, 1, 80e6), wave("verify", 6705, 6770, 1, 71e6)),
	}
	for _, c := range []*Card{&a, &b, &s} {
		c.CopyTBPerHour = tbhOf(c.BytesCopied, c.CopySeconds)
		c.VerifyTBPerHour = tbhOf(c.BytesVerified, c.VerifySeconds)
		c.EndToEndTBPerHour = tbhOf(c.BytesCopied, c.ActiveSeconds)
	}
	r.Cards = []Card{a, b, s}
	t := &r.Totals
	for _, c := range r.Cards {
		t.Cards++
		if c.SafeToFormat {
			t.SafeToFormat++
		}
		t.Files += c.Files
		t.Bytes += c.Bytes
		t.Skipped += len(c.Skipped)
		t.Failed += len(c.Failures)
		t.BytesCopied += c.BytesCopied
		t.BytesVerified += c.BytesVerified
	}
	t.Seconds, t.ActiveSeconds, t.PausedSeconds, t.Runs, t.Resumed = 7200, 3600, 3600, 2, true
	t.Simulated, t.SimulateScale = true, 0.25
	t.Verified = t.SafeToFormat == t.Cards
	// Some card was copying for 1107+1700+53+40 s, some copy read back for
	// 1210+1650+80+65 s.
	t.CopyTBPerHour = tbhOf(t.BytesCopied, 1107+1700+53+40)
	t.VerifyTBPerHour = tbhOf(t.BytesVerified, 1210+1650+80+65)
	t.TBPerHour = tbhOf(t.BytesCopied, t.ActiveSeconds)
	r.Destinations = []DestTotals{
		{Path: raid, Verified: 1711, Skipped: 3, Bytes: t.Bytes,
			WriteRate:    Rate{Samples: 2900, Mean: 287_000_000, P95: 481_000_000},
			ReadBackRate: Rate{Samples: 3005, Mean: 301_000_000, P95: 497_000_000}},
		{Path: shuttle, Verified: 1710, Failed: 1, Skipped: 3, Bytes: t.Bytes - 41_000_000,
			WriteRate:    Rate{Samples: 2900, Mean: 287_000_000, P95: 481_000_000},
			ReadBackRate: Rate{Samples: 3005, Mean: 201_000_000, P95: 322_000_000}},
	}
	return r
}

// idleReport is a job that moved nothing: one empty card. Every TB/hour
// is 0 and renders "-".
func idleReport() *Report {
	r := &Report{
		Generated: generated,
		Job: Job{ID: 13, Name: "Day 15 Splinter", State: "done", Host: "dit-cart-2", ToolVersion: "1.0.0-test",
			Started: at(0), Finished: at(3), Hashes: []string{"xxh64"}, Verify: "dest", VerifyHashes: "fastest", Layout: "{job}/{card}"},
		Cards: []Card{{Label: "C001", Source: "/Volumes/C001", State: "verified", Verdict: "Verified: safe to format", SafeToFormat: true,
			Skipped: []Skip{}, Failures: []Failure{}, FileList: []File{},
			Destinations: []CardDest{{Path: "/Volumes/RAID_B/Day 15 Splinter/C001"}}}},
		Destinations: []DestTotals{{Path: "/Volumes/RAID_B"}},
		Totals:       Totals{Cards: 1, SafeToFormat: 1, Seconds: 3, ActiveSeconds: 3, Runs: 1, Verified: true},
	}
	return r
}
