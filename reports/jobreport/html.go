package jobreport

import (
	"bytes"
	"html/template"
	"io"
	"strings"
	"time"

	"gonum.org/v1/plot/vg"

	"github.com/dit-org/dit/internal/units"
	"github.com/dit-org/dit/reports/ascmhl"
)

// maxHTMLFiles caps the file table of one card in the HTML report; the CSV
// always has every file.
const maxHTMLFiles = 2000

var funcs = template.FuncMap{
	"bytes": units.FormatBytes,
	"tbh":   FormatTBH,
	"rate":  formatRate,
	"time":  formatTime,
	"name":  ascmhl.DisplayName,
	"join":  strings.Join,
	"dur": func(a, b time.Time) string {
		if a.IsZero() || b.IsZero() {
			return "-"
		}
		return units.FormatDuration(b.Sub(a))
	},
	"upto": func(n int, files []File) []File {
		if len(files) > n {
			return files[:n]
		}
		return files
	},
	"minus": func(a, b int) int { return a - b },
}

var htmlTmpl = template.Must(template.New("report").Funcs(funcs).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Offload report: {{.R.Job.Name}} (job {{.R.Job.ID}})</title>
<style>
body{font-family:"Liberation Sans",Arial,Helvetica,sans-serif;margin:2em;color:#111;max-width:1100px}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #999}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #bbb;padding:.2em .5em;text-align:left;vertical-align:top}
th{background:#eee}.num{text-align:right}.safe{color:#060;font-weight:bold}.notsafe{color:#b00;font-weight:bold}
.mono{font-family:"Liberation Mono",Menlo,monospace;font-size:.85em}figure{margin:1em 0}figure svg{max-width:100%;height:auto}
</style>
</head>
<body>
<h1>Offload report: {{.R.Job.Name}} (job {{.R.Job.ID}})</h1>
<table>
<tr><th>Job</th><td>{{.R.Job.ID}} {{.R.Job.Name}} ({{.R.Job.State}})</td></tr>
<tr><th>Host</th><td>{{.R.Job.Host}}</td></tr>
<tr><th>Tool</th><td>dit {{.R.Job.ToolVersion}}</td></tr>
<tr><th>Started</th><td>{{time .R.Job.Started}}</td></tr>
<tr><th>Finished</th><td>{{time .R.Job.Finished}}</td></tr>
<tr><th>Hashes</th><td>{{join .R.Job.Hashes ", "}}</td></tr>
<tr><th>Verify</th><td>{{.R.Job.Verify}} (recomputing {{.R.Job.VerifyHashes}})</td></tr>
<tr><th>Cards</th><td>{{.R.Totals.Cards}}, {{.R.Totals.SafeToFormat}} safe to format</td></tr>
<tr><th>Files</th><td>{{.R.Totals.Files}} files, {{bytes .R.Totals.Bytes}}, {{.R.Totals.Skipped}} skipped, {{.R.Totals.Failed}} failed</td></tr>
<tr><th>End to end</th><td>{{tbh .R.Totals.TBPerHour}}</td></tr>
<tr><th>Report</th><td>generated {{time .R.Generated}}</td></tr>
</table>

<h2>Destinations</h2>
<table>
<tr><th>Destination</th><th>Verified</th><th>Copied, not verified</th><th>Failed</th><th>Skipped</th><th>Bytes</th><th>Write rate (mean / p95)</th><th>Read-back rate (mean / p95)</th></tr>
{{range .R.Destinations}}<tr><td>{{name .Path}}</td><td class="num">{{.Verified}}</td><td class="num">{{.Copied}}</td><td class="num">{{.Failed}}</td><td class="num">{{.Skipped}}</td><td class="num">{{bytes .Bytes}}</td><td>{{rate .WriteRate.Mean}} / {{rate .WriteRate.P95}}</td><td>{{rate .ReadBackRate.Mean}} / {{rate .ReadBackRate.P95}}</td></tr>
{{end}}</table>

{{range $i, $c := .R.Cards}}
<h2 id="card-{{$i}}">Card {{$c.Label}}: {{if $c.SafeToFormat}}<span class="safe">{{$c.Verdict}}</span>{{else}}<span class="notsafe">{{$c.Verdict}}</span>{{end}}</h2>
<table>
<tr><th>Source</th><td>{{name $c.Source}}</td></tr>
{{if $c.Media}}<tr><th>Media</th><td>{{$c.Media}}</td></tr>{{end}}
{{if $c.Bus}}<tr><th>Bus</th><td>{{$c.Bus}}</td></tr>{{end}}
<tr><th>Files</th><td>{{$c.Files}} files, {{bytes $c.Bytes}}, {{len $c.Skipped}} skipped, {{len $c.Failures}} failed</td></tr>
<tr><th>Copy</th><td>{{time $c.CopyStarted}} to {{time $c.CopyFinished}} ({{dur $c.CopyStarted $c.CopyFinished}}): <b>{{tbh $c.CopyTBPerHour}}</b></td></tr>
<tr><th>Verify</th><td>{{time $c.VerifyStarted}} to {{time $c.VerifyFinished}} ({{dur $c.VerifyStarted $c.VerifyFinished}}): <b>{{tbh $c.VerifyTBPerHour}}</b></td></tr>
<tr><th>End to end</th><td><b>{{tbh $c.EndToEndTBPerHour}}</b></td></tr>
<tr><th>Copy rate</th><td>mean {{rate $c.CopyRate.Mean}}, min {{rate $c.CopyRate.Min}}, max {{rate $c.CopyRate.Max}}, p95 {{rate $c.CopyRate.P95}} ({{$c.CopyRate.Samples}} samples)</td></tr>
<tr><th>Verify rate</th><td>mean {{rate $c.VerifyRate.Mean}}, min {{rate $c.VerifyRate.Min}}, max {{rate $c.VerifyRate.Max}}, p95 {{rate $c.VerifyRate.P95}} ({{$c.VerifyRate.Samples}} samples)</td></tr>
</table>
<figure class="chart">{{index $.Charts $i}}<figcaption>Throughput of {{$c.Label}} over time (per-second samples)</figcaption></figure>
<table>
<tr><th>On destination</th><th>Verified</th><th>Copied, not verified</th><th>Failed</th><th>Skipped</th><th>Write rate (mean)</th><th>Read-back rate (mean)</th></tr>
{{range $c.Destinations}}<tr><td>{{name .Path}}</td><td class="num">{{.Verified}}</td><td class="num">{{.Copied}}</td><td class="num">{{.Failed}}</td><td class="num">{{.Skipped}}</td><td>{{rate .WriteRate.Mean}}</td><td>{{rate .ReadBackRate.Mean}}</td></tr>
{{end}}</table>
{{if $c.Failures}}<h3>Failures</h3><ul>{{range $c.Failures}}<li><span class="mono">{{name .Path}}</span>: {{.Error}}</li>{{end}}</ul>{{end}}
{{if $c.Skipped}}<h3>Skipped</h3><ul>{{range $c.Skipped}}<li><span class="mono">{{name .Path}}</span>: {{.Reason}} ({{.Kind}})</li>{{end}}</ul>{{end}}
<details><summary>{{len $c.FileList}} files with their hashes</summary>
<table class="mono">
<tr><th>Path</th><th>Size</th><th>State</th><th>Hashes</th></tr>
{{range upto $.MaxFiles $c.FileList}}<tr><td>{{name .Path}}</td><td class="num">{{.Size}}</td><td>{{.State}}</td><td>{{range $a, $v := .Hashes}}{{$a}} {{$v}}<br>{{end}}</td></tr>
{{end}}</table>
{{if gt (len $c.FileList) $.MaxFiles}}<p>... and {{minus (len $c.FileList) $.MaxFiles}} more: see the CSV report.</p>{{end}}
</details>
{{end}}
</body>
</html>
`))

// WriteHTML writes a self-contained HTML page: tables, and each card's
// throughput chart as inline SVG.
func (r *Report) WriteHTML(w io.Writer) error {
	data := struct {
		R        *Report
		Charts   []template.HTML
		MaxFiles int
	}{R: r, MaxFiles: maxHTMLFiles}
	for i := range r.Cards {
		svg, err := chart(&r.Cards[i], "svg", 16*vg.Centimeter, 8*vg.Centimeter)
		if err != nil {
			return err
		}
		// Inline: drop the XML declaration and the generator comment.
		if i := bytes.Index(svg, []byte("<svg")); i > 0 {
			svg = svg[i:]
		}
		data.Charts = append(data.Charts, template.HTML(svg))
	}
	var b bytes.Buffer
	if err := htmlTmpl.Execute(&b, data); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}
