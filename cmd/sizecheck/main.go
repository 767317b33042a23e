// Command sizecheck keeps dit's functions and files a size a reader can
// take in: it lists every non-test function longer than 120 lines, every
// non-test Go file longer than 700 and every struct type of more than 20
// fields, and compares them with a list
// of the known offenders (the size debt, .ci/size-debt.txt). It fails on
// an offender that is not listed, or a listed one that grew; it prints
// the debt either way, and notes listed entries that shrank or went (the
// list can then be lowered with -write). make lint runs it.
//
// Usage:
//
//	go run ./cmd/sizecheck [-debt FILE] [-write] [DIR]
//
// DIR (default ".") is walked for .go files, leaving out _test.go files,
// generated files and testdata, vendor and hidden folders. -write
// rewrites FILE with the offenders as they are now, when none is new or
// grew (or FILE does not exist yet: it starts the list).
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	debt := flag.String("debt", ".ci/size-debt.txt", "the list of known offenders")
	write := flag.Bool("write", false, "rewrite the list with the offenders as they are now (none new or grown)")
	flag.Parse()
	dir := "."
	if flag.NArg() > 0 {
		dir = flag.Arg(0)
	}
	os.Exit(run(os.Stdout, dir, *debt, *write))
}

// run checks dir against the list in debtFile and reports on w; its
// result is the exit code (0 fine, 1 a new or grown offender, 2 an error).
func run(w io.Writer, dir, debtFile string, write bool) int {
	found, err := scan(dir)
	if err != nil {
		fmt.Fprintln(w, "sizecheck:", err)
		return 2
	}
	b, err := os.ReadFile(debtFile)
	missing := os.IsNotExist(err)
	if err != nil && !missing {
		fmt.Fprintln(w, "sizecheck:", err)
		return 2
	}
	listed, err := parseDebt(string(b))
	if err != nil {
		fmt.Fprintf(w, "sizecheck: %s: %v\n", debtFile, err)
		return 2
	}
	r := compare(found, listed)
	if write && (len(r.bad) == 0 || missing) {
		// Lowering the list, or starting it: never a way to let an
		// offender in once there is a list.
		if err := os.WriteFile(debtFile, []byte(formatDebt(found)), 0o644); err != nil {
			fmt.Fprintln(w, "sizecheck:", err)
			return 2
		}
		fmt.Fprintf(w, "sizecheck: %s written: %d over the limits\n", debtFile, len(found))
		return 0
	}
	r.print(w, debtFile)
	if len(r.bad) > 0 {
		if write {
			fmt.Fprintf(w, "sizecheck: %s not written: it lowers entries, it does not take new or grown ones\n", debtFile)
		}
		return 1
	}
	return 0
}
