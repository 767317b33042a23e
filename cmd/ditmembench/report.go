//go:build unix

package main

import (
	"os"
	"path/filepath"
)

// reportFormats are the formats of dit report measured one by one.
var reportFormats = []string{"csv", "json", "html", "pdf"}

// reportAll is the name of dit report writing every format into a folder
// (dit report JOB --out DIR: the four, the clip sheet and the editorial
// lists of the job's clips), as the job writes them into each
// destination at its end.
const reportAll = "dit report (all formats)"

// reportCommands are the dit report commands measured on the job of
// work: each format to a file, then every format into a folder.
func reportCommands(work string) ([][]string, error) {
	var cmds [][]string
	for _, f := range reportFormats {
		cmds = append(cmds, []string{"report", "1", "--format", f, "--out", filepath.Join(work, "report."+f)})
	}
	all := filepath.Join(work, "reports-all")
	if err := os.MkdirAll(all, 0o755); err != nil {
		return nil, err
	}
	return append(cmds, []string{"report", "1", "--out", all}), nil
}

// reportName is how a dit report command of reportCommands is named.
func reportName(c []string) string {
	if len(c) > 3 && c[2] == "--format" {
		return "dit report --format " + c[3]
	}
	return reportAll
}
