//go:build unix

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/dit-org/dit/internal/units"
)

// framesBench is the frame-sequence benchmark: two cards of 10,000+ small
// files (DNG/ARRIRAW-like, 100-500 KB) and, for the time per byte of big
// files, two cards of clips of the same size, each copied to two ext4
// filesystems on loop devices (image files on the root disk, so fsync
// reaches a disk, as on set) by dit, ocopy and the naive way. It prints
// each tool's wall time, its per-file overhead in ms (frames' time minus
// the clips' time for the same bytes, over the files) and frames' time per
// byte against clips'. It needs root, mkfs.ext4 and losetup, and says so
// when it cannot run.
func framesBench(dit, ocopy, work string, size string) {
	img := "/var/tmp/ditbench-ext4"
	if !framesCanRun(img, size) {
		return
	}
	defer os.RemoveAll(img)
	var mounts []string
	for i := 1; i <= 2; i++ {
		f := filepath.Join(img, fmt.Sprintf("d%d.img", i))
		mp := filepath.Join(img, fmt.Sprintf("d%d", i))
		must(os.Mkdir(mp, 0o755))
		must(exec.Command("truncate", "-s", "24G", f).Run())
		if out, err := exec.Command("mkfs.ext4", "-q", "-F", f).CombinedOutput(); err != nil {
			fmt.Printf("frames on ext4: skipped (mkfs.ext4: %v %s)\n", err, out)
			return
		}
		if out, err := exec.Command("mount", "-o", "loop", f, mp).CombinedOutput(); err != nil {
			fmt.Printf("frames on ext4: skipped (mount -o loop: %v %s)\n", err, out)
			return
		}
		mounts = append(mounts, mp)
		defer exec.Command("umount", mp).Run()
	}
	cs := &frameCards{dit: dit, work: work, size: size, files: map[string]int{}, bytes: map[string]int64{}}
	d1, d2 := filepath.Join(mounts[0], "out"), filepath.Join(mounts[1], "out")
	tools := framesTools(dit, ocopy, work, d1, d2)
	fmt.Printf("\nFrames on ext4 (two ext4 filesystems on loop devices, images on the root disk)\n")
	wall := map[string]map[string]float64{}
	for _, tl := range tools {
		wall[tl.name] = map[string]float64{}
	}
	n := 0
	for _, style := range []string{"clips", "dng"} {
		set := cs.gen(style)
		for _, tl := range tools {
			resetExt4(mounts)
			n++
			m, err := tl.do(set[0], set[1], n)
			must(err)
			wall[tl.name][style] = m.wall.Seconds()
			fmt.Printf("%-6s %-5s wall %7.2fs  cpu %6.2fs (kernel %5.2fs)\n", tl.name, style, m.wall.Seconds(), m.cpu.Seconds(), m.sys.Seconds())
		}
		must(os.RemoveAll(filepath.Dir(set[0])))
	}
	framesReport(tools, wall, cs)
}

// framesCanRun says whether the benchmark can run here, and says why not
// when it cannot (not root, a tool missing, no room on the root disk);
// it unmounts what a stopped run left mounted and makes the folder img.
func framesCanRun(img, size string) bool {
	if os.Geteuid() != 0 {
		fmt.Println("frames on ext4: skipped (loop devices need root: run make bench as root)")
		return false
	}
	for _, tool := range []string{"mkfs.ext4", "losetup", "mount", "umount"} {
		if _, err := exec.LookPath(tool); err != nil {
			fmt.Printf("frames on ext4: skipped (%s not found: apt-get install e2fsprogs mount)\n", tool)
			return false
		}
	}
	// A run that was stopped half way (must exits without the deferred
	// umounts) leaves its filesystems mounted: unmount them first.
	for i := 1; i <= 2; i++ {
		mp := filepath.Join(img, fmt.Sprintf("d%d", i))
		if out, err := exec.Command("mountpoint", "-q", mp).CombinedOutput(); err == nil && len(out) == 0 {
			if out, err := exec.Command("umount", mp).CombinedOutput(); err != nil {
				fmt.Printf("frames on ext4: skipped (%s is still mounted from an earlier run and umount failed: %v %s)\n", mp, err, out)
				return false
			}
		}
	}
	os.RemoveAll(img)
	must(os.MkdirAll(img, 0o755))
	// Each filesystem holds two cards at a time (the removed copies'
	// blocks are given back to the root disk by fstrim between runs):
	// check the root disk has room for both, and some.
	perCard, err := units.ParseBytes(size)
	must(err)
	var st unix.Statfs_t
	must(unix.Statfs(img, &st))
	if need, free := 4*perCard+4e9, int64(st.Bavail)*int64(st.Bsize); free < need {
		fmt.Printf("frames on ext4: skipped (%s has %s free; two filesystems of two %s cards need %s: free some space or use -frames-size)\n",
			img, units.FormatBytes(free), size, units.FormatBytes(need))
		return false
	}
	return true
}

// frameCards generates the benchmark's cards, one set in memory at a
// time (tmpfs), and counts their files and bytes by style.
type frameCards struct {
	dit, work, size string
	files           map[string]int
	bytes           map[string]int64
}

// gen generates two cards of style and returns their folders.
func (cs *frameCards) gen(style string) [2]string {
	out := filepath.Join(cs.work, "cards-"+style)
	_, err := run(cs.dit, "testdata", "cards", "--out", out, "--cards", "2", "--size", cs.size, "--style", style, "--seed", "11")
	must(err)
	filepath.Walk(out, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			cs.files[style]++
			cs.bytes[style] += fi.Size()
		}
		return nil
	})
	return [2]string{filepath.Join(out, "A001"), filepath.Join(out, "A002")}
}

// resetExt4 empties the destinations on the ext4 mounts, gives their
// blocks back and drops the page cache.
func resetExt4(mounts []string) {
	for _, m := range mounts {
		must(os.RemoveAll(filepath.Join(m, "out")))
		must(os.Mkdir(filepath.Join(m, "out"), 0o755))
	}
	exec.Command("sync").Run()
	for _, m := range mounts {
		// Give the removed copies' blocks back to the image files, so
		// the images do not grow with each run until the root disk is
		// full (ext4 does not reuse freed blocks first).
		if out, err := exec.Command("fstrim", m).CombinedOutput(); err != nil {
			fmt.Printf("(fstrim %s: %v %s: the image files keep the removed copies' blocks)\n", m, err, strings.TrimSpace(string(out)))
		}
	}
	os.WriteFile("/proc/sys/vm/drop_caches", []byte("3\n"), 0o644)
}

// framesTool copies cards a and b to both destinations (run i).
type framesTool struct {
	name string
	do   func(a, b string, i int) (measure, error)
}

// framesTools are dit, the naive way and, when it is there, ocopy.
func framesTools(dit, ocopy, work, d1, d2 string) []framesTool {
	tools := []framesTool{
		{"dit", func(a, b string, i int) (measure, error) {
			return run(dit, "offload", "--db", filepath.Join(work, fmt.Sprintf("frames-%d.db", i)), "--hash", "md5,xxh64", "-d", d1, "-d", d2, a, b)
		}},
		{"naive", func(a, b string, _ int) (measure, error) {
			script := fmt.Sprintf(`set -e; cp -r %[1]q %[2]q %[3]q; cp -r %[1]q %[2]q %[4]q; sync; find %[1]q %[2]q %[3]q %[4]q -type f -exec md5sum {} + > /dev/null`, a, b, d1, d2)
			return run("sh", "-c", script)
		}},
	}
	if ocopy != "" {
		if _, err := os.Stat(ocopy); err == nil {
			tools = append(tools, framesTool{"ocopy", func(a, b string, _ int) (measure, error) {
				return runAllQuiet([][]string{
					{ocopy, "--hash-algorithm", "md5", "--machine-readable", a, d1, d2},
					{ocopy, "--hash-algorithm", "md5", "--machine-readable", b, d1, d2},
				}, true)
			}})
		}
	}
	return tools
}

// framesReport prints each tool's frames' time per byte against clips'
// and its per-file overhead.
func framesReport(tools []framesTool, wall map[string]map[string]float64, cs *frameCards) {
	files, bytes := cs.files, cs.bytes
	fmt.Printf("two cards of %d DNG-like frames in all (%.2f GB) against two cards of %d clip files (%.2f GB)\n",
		files["dng"], float64(bytes["dng"])/1e9, files["clips"], float64(bytes["clips"])/1e9)
	for _, tl := range tools {
		w := wall[tl.name]
		perByte := w["dng"] / float64(bytes["dng"]) / (w["clips"] / float64(bytes["clips"]))
		overhead := (w["dng"] - w["clips"]*float64(bytes["dng"])/float64(bytes["clips"])) / float64(files["dng"]) * 1000
		line := fmt.Sprintf("%-6s frames / clips time per byte = %.2f; per-file overhead %.2f ms", tl.name, perByte, overhead)
		if tl.name == "dit" {
			line += fmt.Sprintf(" (target frames <= 1.5 x clips: %s)", check(perByte <= 1.5))
		}
		fmt.Println(line)
	}
	if o, ok := wall["ocopy"]; ok {
		fmt.Printf("frames on ext4, dit wall / ocopy wall = %.2f\n", wall["dit"]["dng"]/o["dng"])
	}
}
