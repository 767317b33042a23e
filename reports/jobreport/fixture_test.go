package jobreport

import (
	"math"

	"github.com/dit-org/dit/internal/offload"
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

	a := Card{CardFigures: offload.CardFigures{Label: "A001", Status: "verified", Verdict: "Verified: safe to format", SafeToFormat: true, Files: 412, Bytes: 498_123_456_789, CopyStarted: at(20), CopyFinished: at(1127), VerifyStart: at(80), VerifyEnd: at(1300), BytesCopied: 498_123_456_789}, Source: "/Volumes/A001", Media: "CFast 2.0", Bus: "USB 3.2 Gen 2 (reader 1)", Skipped: []Skip{}, Failures: []Failure{}, CopyRate: Rate{Samples: 1107, Mean: 449_975_000, Min: 247_000_000, Max: 498_000_000, P95: 489_000_000}, VerifyRate: Rate{Samples: 1210, Mean: 823_400_000, Min: 452_000_000, Max: 905_000_000, P95: 890_000_000}, BytesVerified: 2 * 498_123_456_789, CopySeconds: 1107, VerifySeconds: 1210, ActiveSeconds: 1280, Destinations: []CardDest{
		{Path: layout(raid, "A001"), Verified: 412, WriteRate: Rate{Samples: 1107, Mean: 449_975_000}, ReadBackRate: Rate{Samples: 1210, Mean: 498_000_000}},
		{Path: layout(shuttle, "A001"), Verified: 412, WriteRate: Rate{Samples: 1107, Mean: 449_975_000}, ReadBackRate: Rate{Samples: 1210, Mean: 325_400_000}},
	}, FileList: []File{
		{Path: "A001/CLIP/A001C001_261120_R1AB.mxf", Size: 48_123_456_789, Mtime: at(-7200), State: "verified",
			Hashes: map[string]string{"xxh64": "652d236cd89ce46d", "md5": "283ada638ab6da8e36f3ce724ba17068"},
			Copies: []Copy{{Dest: raid, State: "verified", VerifiedAt: at(400), VerifiedBy: "xxh64"}, {Dest: shuttle, State: "verified", VerifiedAt: at(410), VerifiedBy: "xxh64"}}},
	}, series: seriesOf(wave("copy", 20, 1127, 2, 450e6), wave("verify", 80, 1290, 2, 823e6))}

	// B001 was being copied when the job was interrupted at 50 minutes; the
	// resume an hour later copied the file that was cut short again.
	b := Card{CardFigures: offload.CardFigures{Label: "B001", Status: "verified", Verdict: "Verified: safe to format", SafeToFormat: true, Files: 1203, Bytes: 256_000_000_000, CopyStarted: at(1200), CopyFinished: at(6663), VerifyStart: at(1300), VerifyEnd: at(6700), BytesCopied: 280_500_000_000}, Source: "/Volumes/B001", Failures: []Failure{}, Skipped: []Skip{
		{Path: ".DS_Store", Kind: "metadata", Reason: "macOS Finder metadata (copy it with --include-hidden)"},
		{Path: "CLIPS/._B001C003.R3D", Kind: "metadata", Reason: "macOS AppleDouble resource fork (copy it with --include-hidden)"},
		{Path: "CLIPS/latest", Kind: "symlink", Reason: "symbolic link, not followed"},
	}, CopyRate: Rate{Samples: 1753, Mean: 160_011_000, Min: 88_000_000, Max: 178_000_000, P95: 174_000_000}, VerifyRate: Rate{Samples: 1730, Mean: 295_954_000, Min: 163_000_000, Max: 330_000_000, P95: 322_000_000}, BytesVerified: 512_000_000_000, CopySeconds: 1753, VerifySeconds: 1730, ActiveSeconds: 1850, Destinations: []CardDest{
		{Path: layout(raid, "B001"), Verified: 1203, Skipped: 3, WriteRate: Rate{Samples: 1753, Mean: 160_011_000}, ReadBackRate: Rate{Samples: 1730, Mean: 180_000_000}},
		{Path: layout(shuttle, "B001"), Verified: 1203, Skipped: 3, WriteRate: Rate{Samples: 1753, Mean: 160_011_000}, ReadBackRate: Rate{Samples: 1730, Mean: 116_000_000}},
	}, series: seriesOf(wave("copy", 1200, 2900, 2, 160e6), wave("copy", 6610, 6663, 1, 160e6),
		wave("verify", 1300, 2950, 2, 296e6), wave("verify", 6620, 6700, 1, 296e6))}

	// The sound card: small and slow (MB/s), one file differs on the shuttle.
	s := Card{CardFigures: offload.CardFigures{Label: "SOUND_D14", Status: "failed", Verdict: "FAILED: NOT safe to format", Files: 96, Failed: 1, Bytes: 3_200_000_000, CopyStarted: at(6700), CopyFinished: at(6740), VerifyStart: at(6705), VerifyEnd: at(6770), BytesCopied: 3_200_000_000}, Source: "/Volumes/SOUND_D14", Media: "SD", Bus: "USB 3.0 (reader 2)", Skipped: []Skip{}, Failures: []Failure{{Path: "Day14/T012_03.WAV", Error: "/Volumes/SHUTTLE_01: read-back: xxh64 differs"}}, CopyRate: Rate{Samples: 40, Mean: 80_000_000, Min: 44_000_000, Max: 89_000_000, P95: 87_500_000}, VerifyRate: Rate{Samples: 60, Mean: 71_100_000, Min: 39_000_000, Max: 79_000_000, P95: 77_000_000}, BytesVerified: 6_400_000_000, CopySeconds: 40, VerifySeconds: 60, ActiveSeconds: 70, Destinations: []CardDest{
		{Path: layout(raid, "SOUND_D14"), Verified: 96, WriteRate: Rate{Samples: 40, Mean: 80_000_000}, ReadBackRate: Rate{Samples: 60, Mean: 40_000_000}},
		{Path: layout(shuttle, "SOUND_D14"), Verified: 95, Failed: 1, WriteRate: Rate{Samples: 40, Mean: 80_000_000}, ReadBackRate: Rate{Samples: 60, Mean: 31_100_000}},
	}, series: seriesOf(wave("copy", 6700, 6740, 1, 80e6), wave("verify", 6705, 6770, 1, 71e6))}
	for _, c := range []*Card{&a, &b, &s} {
		c.CopyTBPerHour = tbhOf(c.BytesCopied, c.CopySeconds)
		c.VerifyTBPerHour = tbhOf(c.BytesVerified, c.VerifySeconds)
		c.EndToEndTBPerHour = tbhOf(c.BytesCopied, c.ActiveSeconds)
		c.TBPerHour = c.EndToEndTBPerHour
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
		Cards:        []Card{{CardFigures: offload.CardFigures{Label: "C001", Status: "verified", Verdict: "Verified: safe to format", SafeToFormat: true}, Source: "/Volumes/C001", Skipped: []Skip{}, Failures: []Failure{}, FileList: []File{}, Destinations: []CardDest{{Path: "/Volumes/RAID_B/Day 15 Splinter/C001"}}}},
		Destinations: []DestTotals{{Path: "/Volumes/RAID_B"}},
		Totals:       Totals{JobFigures: offload.JobFigures{Seconds: 3, ActiveSeconds: 3, Runs: 1}, Cards: 1, SafeToFormat: 1, Verified: true},
	}
	return r
}

// cascadeReport is a cascade (dit offload -d RAID_A --then SHUTTLE_01
// --then SHUTTLE_02): each card is copied to the RAID first (then it is
// free), then its copy on the RAID to both shuttles, one card at a time
// (then it is safe to format). The sound card's second run failed: one
// file differs on SHUTTLE_02, so it is free but NOT safe to format.
func cascadeReport() *Report {
	const raid, sh1, sh2 = "/Volumes/RAID_A", "/Volumes/SHUTTLE_01", "/Volumes/SHUTTLE_02"
	const job = "Day 16 Second Unit"
	layout := func(dest, card string) string { return dest + "/" + job + "/" + card }
	r := &Report{
		Generated: generated,
		Job: Job{ID: 21, Name: job, State: "done", Host: "dit-cart-1", ToolVersion: "1.0.0-test",
			Started: at(0), Finished: at(3200), Hashes: []string{"xxh64", "md5"}, Verify: "dest", VerifyHashes: "fastest",
			Layout: "{job}/{card}"},
	}
	dests := func(label string, write, readBack float64, shuttle2Failed int, files int) []CardDest {
		return []CardDest{
			{Path: layout(raid, label), Verified: files, WriteRate: Rate{Samples: 100, Mean: write}, ReadBackRate: Rate{Samples: 100, Mean: readBack}},
			{Path: layout(sh1, label), Run: 2, Verified: files, WriteRate: Rate{Samples: 100, Mean: write * 0.9}, ReadBackRate: Rate{Samples: 100, Mean: readBack * 0.6}},
			{Path: layout(sh2, label), Run: 2, Verified: files - shuttle2Failed, Failed: shuttle2Failed,
				WriteRate: Rate{Samples: 100, Mean: write * 0.9}, ReadBackRate: Rate{Samples: 100, Mean: readBack * 0.6}},
		}
	}
	// A file verified on the RAID at t1 (first run), on the shuttles at t2.
	copies := func(t1, t2 float64, failed string) []Copy {
		cs := []Copy{
			{Dest: raid, State: "verified", VerifiedAt: at(t1), VerifiedBy: "xxh64"},
			{Dest: sh1, State: "verified", VerifiedAt: at(t2), VerifiedBy: "xxh64"},
			{Dest: sh2, State: "verified", VerifiedAt: at(t2), VerifiedBy: "xxh64"},
		}
		if failed != "" {
			cs[2] = Copy{Dest: sh2, State: "failed", Error: failed}
		}
		return cs
	}

	// A001: first run 0:00:30 to 0:21:30, free at 0:22:00; second run from
	// the RAID 0:22:10 to 0:40:10 (checked by 0:41:20), safe at 0:41:20.
	a := Card{CardFigures: offload.CardFigures{Label: "A001", Status: "verified", Verdict: "Verified: safe to format", SafeToFormat: true, Files: 310, Bytes: 480_000_000_000, CopyStarted: at(30), CopyFinished: at(1230), VerifyStart: at(60), VerifyEnd: at(1290), BytesCopied: 480_000_000_000, CardFree: true, FreeAt: at(1320), SafeAt: at(2480)}, Source: "/Volumes/A001", Media: "CFast 2.0", Bus: "USB 3.2 Gen 2 (reader 1)", Skipped: []Skip{}, Failures: []Failure{}, CopyRate: Rate{Samples: 1200, Mean: 400_000_000, Min: 220_000_000, Max: 440_000_000, P95: 430_000_000}, VerifyRate: Rate{Samples: 1230, Mean: 390_000_000, Min: 210_000_000, Max: 430_000_000, P95: 420_000_000}, BytesVerified: 480_000_000_000, CopySeconds: 1200, VerifySeconds: 1230, ActiveSeconds: 1260, Destinations: dests("A001", 400_000_000, 390_000_000, 0, 310), FileList: []File{{Path: "A001/CLIP/A001C001_261122_R2CD.mxf", Size: 41_000_000_000, Mtime: at(-7200), State: "verified",
		Hashes: map[string]string{"xxh64": "1c2d3e4f5a6b7c8d", "md5": "0f1e2d3c4b5a69788796a5b4c3d2e1f0"},
		Copies: copies(400, 1800, "")}}, Then: &SecondRun{Source: layout(raid, "A001"), State: "verified", Files: 310, Bytes: 480_000_000_000,
		CopyStarted: at(1330), CopyFinished: at(2410), DoneAt: at(2480),
		BytesCopied: 480_000_000_000, CopySeconds: 1080, ActiveSeconds: 1140}, series: seriesOf(wave("copy", 30, 1230, 2, 400e6), wave("verify", 60, 1290, 2, 390e6))}

	// B001: a slower reader; its second run waits for A001's.
	b := Card{CardFigures: offload.CardFigures{Label: "B001", Status: "verified", Verdict: "Verified: safe to format", SafeToFormat: true, Files: 1203, Bytes: 256_000_000_000, CopyStarted: at(40), CopyFinished: at(1640), VerifyStart: at(100), VerifyEnd: at(1700), BytesCopied: 256_000_000_000, CardFree: true, FreeAt: at(1720), SafeAt: at(3160)}, Source: "/Volumes/B001", Failures: []Failure{}, Skipped: []Skip{{Path: ".DS_Store", Kind: "metadata", Reason: "macOS Finder metadata (copy it with --include-hidden)"}}, CopyRate: Rate{Samples: 1600, Mean: 160_000_000, Min: 88_000_000, Max: 178_000_000, P95: 174_000_000}, VerifyRate: Rate{Samples: 1600, Mean: 160_000_000, Min: 90_000_000, Max: 180_000_000, P95: 175_000_000}, BytesVerified: 256_000_000_000, CopySeconds: 1600, VerifySeconds: 1600, ActiveSeconds: 1660, Destinations: dests("B001", 160_000_000, 160_000_000, 0, 1203), FileList: []File{{Path: "CLIPS/B001C001.R3D", Size: 2_000_000_000, Mtime: at(-7000), State: "verified",
		Hashes: map[string]string{"xxh64": "8d7c6b5a4f3e2d1c", "md5": "f0e1d2c3b4a5968778695a4b3c2d1e0f"},
		Copies: copies(700, 2900, "")}}, Then: &SecondRun{Source: layout(raid, "B001"), State: "verified", Files: 1203, Bytes: 256_000_000_000,
		CopyStarted: at(2410), CopyFinished: at(3100), DoneAt: at(3160),
		BytesCopied: 256_000_000_000, CopySeconds: 690, ActiveSeconds: 750}, series: seriesOf(wave("copy", 40, 1640, 2, 160e6), wave("verify", 100, 1700, 2, 160e6))}

	// The sound card: free after two minutes; its second run failed.
	s := Card{CardFigures: offload.CardFigures{Label: "SOUND_D16", Status: "verified", SafeToFormat: false, Files: 96, Bytes: 3_200_000_000, CopyStarted: at(50), CopyFinished: at(90), VerifyStart: at(55), VerifyEnd: at(110), BytesCopied: 3_200_000_000, CardFree: true, FreeAt: at(120),
		// As offload words it: the clock time is the machine's local time.
		Verdict: "Second run FAILED (card free since " + at(120).Local().Format("15:04:05") + "): NOT safe to format: keep the card"},
		Source: "/Volumes/SOUND_D16", Media: "SD", Bus: "USB 3.0 (reader 2)", Skipped: []Skip{}, Failures: []Failure{{Path: "Day16/T001_01.WAV (2nd run)", Error: "/Volumes/SHUTTLE_02: read-back: xxh64 differs"}}, CopyRate: Rate{Samples: 40, Mean: 80_000_000, Min: 44_000_000, Max: 89_000_000, P95: 87_500_000}, VerifyRate: Rate{Samples: 55, Mean: 58_000_000, Min: 39_000_000, Max: 79_000_000, P95: 77_000_000}, BytesVerified: 3_200_000_000, CopySeconds: 40, VerifySeconds: 55, ActiveSeconds: 60, Destinations: dests("SOUND_D16", 80_000_000, 58_000_000, 1, 96), FileList: []File{{Path: "Day16/T001_01.WAV", Size: 33_000_000, Mtime: at(-6000), State: "verified",
			Hashes: map[string]string{"xxh64": "aa11bb22cc33dd44", "md5": "00112233445566778899aabbccddeeff"},
			Copies: copies(80, 3110, "read-back: xxh64 differs")}}, Then: &SecondRun{Source: layout(raid, "SOUND_D16"), State: "failed", Files: 96, Bytes: 3_200_000_000, Failed: 1,
			CopyStarted: at(3100), CopyFinished: at(3116), DoneAt: at(3130),
			BytesCopied: 3_200_000_000, CopySeconds: 16, ActiveSeconds: 30}, series: seriesOf(wave("copy", 50, 90, 1, 80e6), wave("verify", 55, 110, 1, 58e6))}
	for _, c := range []*Card{&a, &b, &s} {
		c.CopyTBPerHour = tbhOf(c.BytesCopied, c.CopySeconds)
		c.VerifyTBPerHour = tbhOf(c.BytesVerified, c.VerifySeconds)
		c.EndToEndTBPerHour = tbhOf(c.BytesCopied, c.ActiveSeconds)
		c.TBPerHour = c.EndToEndTBPerHour
		c.Then.CopyTBPerHour = tbhOf(c.Then.BytesCopied, c.Then.CopySeconds)
		c.Then.EndToEndTBPerHour = tbhOf(c.Then.BytesCopied, c.Then.ActiveSeconds)
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
		t.BytesCopied += c.BytesCopied // the first run: bytes read from the cards
		t.BytesVerified += c.BytesVerified
	}
	t.Seconds, t.ActiveSeconds, t.Runs = 3200, 3200, 1
	t.Verified = t.SafeToFormat == t.Cards
	// Some card was being copied from 30 to 1640 s, some first copy read
	// back from 60 to 1700 s.
	t.CopyTBPerHour = tbhOf(t.BytesCopied, 1640-30)
	t.VerifyTBPerHour = tbhOf(t.BytesVerified, 1700-60)
	t.TBPerHour = tbhOf(t.BytesCopied, t.ActiveSeconds)
	r.Destinations = []DestTotals{
		{Path: raid, Verified: 1609, Bytes: t.Bytes,
			WriteRate:    Rate{Samples: 1610, Mean: 350_000_000, P95: 480_000_000},
			ReadBackRate: Rate{Samples: 1640, Mean: 340_000_000, P95: 470_000_000}},
		{Path: sh1, Run: 2, Verified: 1609, Bytes: t.Bytes,
			WriteRate:    Rate{Samples: 1780, Mean: 330_000_000, P95: 440_000_000},
			ReadBackRate: Rate{Samples: 1800, Mean: 210_000_000, P95: 290_000_000}},
		{Path: sh2, Run: 2, Verified: 1608, Failed: 1, Bytes: t.Bytes - 33_000_000,
			WriteRate:    Rate{Samples: 1780, Mean: 330_000_000, P95: 440_000_000},
			ReadBackRate: Rate{Samples: 1800, Mean: 205_000_000, P95: 285_000_000}},
	}
	return r
}
