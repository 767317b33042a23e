package jobreport

import (
	"bufio"
	"bytes"
	"fmt"
	"html/template"
	"io"
	"regexp"
	"strconv"
	"strings"

	"gonum.org/v1/plot/vg"

	"github.com/dit-org/dit/internal/format/ascmhl"
)

// maxHTMLFiles caps the file table of one card in the HTML report; the CSV
// always has every file. A variable for the tests.
var maxHTMLFiles = 2000

var funcs = template.FuncMap{
	"size":      sizeHTML,
	"tbh":       tbhNum,
	"hms":       hmsOr,
	"n":         thousands,
	"time":      formatTime,
	"span":      span,
	"name":      ascmhl.DisplayName,
	"join":      strings.Join,
	"plain":     plainText,
	"clips":     func(r *Report, c Card) template.HTML { return r.clipsHTML(&c) },
	"proxies":   func(r *Report, c Card) template.HTML { return r.proxiesHTML(&c) },
	"reason":    skipReason,
	"yesno":     yesNo,
	"verdict":   func(c Card) string { return verdictText(&c) },
	"short":     func(c Card) string { return shortVerdict(&c) },
	"failed":    func(c Card) int { return failedFiles(&c) },
	"nskipped":  func(c Card) int { return len(c.Skipped) + c.SkippedMore },
	"nfailures": func(c Card) int { return len(c.Failures) + c.FailuresMore },
	"more":      moreLine,
	"headline":  jobVerdict,
	"resumed":   resumedText,
	"simul":     simulatedText,
	"unit":      rateUnitOf,
	"cardDestUnit": func(c Card) rateUnit {
		var rs []Rate
		for _, d := range c.Destinations {
			rs = append(rs, d.WriteRate, d.ReadBackRate)
		}
		return rateUnitOf(rs...)
	},
	"destUnit": func(r *Report) rateUnit {
		var rs []Rate
		for _, d := range r.Destinations {
			rs = append(rs, d.WriteRate, d.ReadBackRate)
		}
		return rateUnitOf(rs...)
	},
	"minus": func(a, b int) int { return a - b },
	// A cascade.
	"cascadeRuns":   func(r *Report) string { return r.cascadeRunsText() },
	"cascadeTimes":  func(r *Report) string { return r.cascadeTimesText() },
	"cascadeDetail": func(r *Report) string { return r.cascadeRuns() },
	"free":          func(c Card) string { return freeText(&c) },
	"safeAt":        func(c Card) string { return safeAtText(&c) },
	"secondRun":     func(c Card) string { return secondRunText(&c) },
	"run":           runName,
	// Copies verified by the storage's own MD5 (cloud).
	"vtbh":          verifyTBH,
	"readBack":      readBackSub,
	"hasCloud":      func(r *Report) bool { return r.hasCloud() },
	"storageNote":   func(r *Report) string { return r.storageNote() },
	"cardsNote":     func(cascade bool, r *Report) string { return cardsTableNote(cascade, r.storageNote()) },
	"rbCell":        func(by VerifiedBy, v float64, u rateUnit) string { return readBackCell(by, v, u.Num) },
	"by":            func(v VerifiedBy) string { return v.Text() },
	"nothingCopied": func() string { return nothingCopied },
}

var htmlTmpl = template.Must(template.New("report").Funcs(funcs).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Offload report: {{.R.Job.Name}} (job {{.R.Job.ID}})</title>
<style>
body{font-family:"Liberation Sans",Arial,Helvetica,sans-serif;margin:2em;color:#111;max-width:1100px}
h1{font-size:1.6em;margin-bottom:.2em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #999}
.sub{color:#5a6069;margin:.1em 0}
.tiles{display:grid;grid-template-columns:repeat(4,1fr);gap:.8em;margin:.8em 0}
.tile{background:#f1f3f6;padding:.6em .8em}.tile .label{color:#5a6069;font-size:.85em}.tile .value{font-size:2em;font-weight:bold}
.tile .more{color:#5a6069;font-size:.8em}
.status{font-weight:bold;font-size:1.1em;margin:.3em 0}.status.on{color:#a65400}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #bbb;padding:.2em .5em;text-align:left;vertical-align:top}
th{background:#e2e6ec}.num{text-align:right}.safe{color:#1b7a34;font-weight:bold}.notsafe{color:#b71c1c;font-weight:bold}
tr.total td{font-weight:bold;border-top:2px solid #111}
.note{color:#5a6069;font-size:.85em}
.mono{font-family:"Liberation Mono",Menlo,monospace;font-size:.85em}figure{margin:1em 0}figure svg{max-width:100%;height:auto}
/* The verdict banners: last, two classes a rule, so that .safe and .notsafe (text colours elsewhere) never colour the text on the bar. Printed, there is no bar (a browser may leave backgrounds out): the verdict's colour on white, in a frame. */
.banner{font-weight:bold;font-size:1.25em;padding:.5em .7em;margin:1em 0;overflow-wrap:anywhere}
.banner.safe,.banner.notsafe{color:#fff}.banner.safe{background:#1b7a34}.banner.notsafe{background:#b71c1c}
@media print{.banner.safe,.banner.notsafe{background:#fff;border:.2em solid}.banner.safe{color:#1b7a34;border-color:#1b7a34}.banner.notsafe{color:#b71c1c;border-color:#b71c1c}}
</style>
</head>
<body>
{{- $t := .R.Totals}}{{$casc := .R.Cascade}}
<h1>Offload report: {{.R.Job.Name}}</h1>
<p class="sub">Job {{.R.Job.ID}} ({{.R.Job.State}}) on {{.R.Job.Host}}, dit {{.R.Job.ToolVersion}}</p>
<p class="sub">Started {{time .R.Job.Started}}, finished {{time .R.Job.Finished}}</p>
<div class="banner {{if $t.Verified}}safe{{else}}notsafe{{end}}">{{headline $t}}</div>
<div class="tiles">
<div class="tile"><div class="label">Cards</div><div class="value">{{n $t.Cards}}</div><div class="more">{{$t.SafeToFormat}} safe to format</div></div>
<div class="tile"><div class="label">Files</div><div class="value">{{n $t.Files}}</div><div class="more">{{$t.Skipped}} skipped, {{$t.Failed}} failed</div></div>
<div class="tile"><div class="label">Size</div><div class="value">{{size $t.Bytes}}</div><div class="more">{{size $t.BytesCopied}} copied, {{if $t.VerifyNotApplicable}}{{readBack $t}}{{else}}{{size $t.BytesVerified}} read back{{end}}</div></div>
<div class="tile"><div class="label">Verified</div><div class="value {{if $t.Verified}}safe{{else}}notsafe{{end}}">{{yesno $t.Verified}}</div><div class="more">{{if $t.Verified}}every card safe to format{{else}}{{minus $t.Cards $t.SafeToFormat}} of {{$t.Cards}} NOT safe{{end}}</div></div>
<div class="tile"><div class="label">Copy, TB/hour</div>{{if $t.BytesCopied}}<div class="value">{{tbh $t.CopyTBPerHour}}</div>{{else}}<div class="value">—</div><div class="more">{{nothingCopied}}</div>{{end}}</div>
<div class="tile"><div class="label">Verify, TB/hour</div><div class="value">{{if $t.VerifyNotApplicable}}—{{else}}{{tbh $t.VerifyTBPerHour}}{{end}}</div>{{if $t.VerifyNotApplicable}}<div class="more">{{$t.VerifyNotApplicable}}</div>{{end}}</div>
<div class="tile"><div class="label">End to end, TB/hour</div>{{if $t.BytesCopied}}<div class="value">{{tbh $t.TBPerHour}}</div>{{else}}<div class="value">—</div><div class="more">{{nothingCopied}}</div>{{end}}</div>
<div class="tile"><div class="label">Running time</div><div class="value">{{hms $t.ActiveSeconds}}</div><div class="more">{{hms $t.Seconds}} start to finish</div></div>
</div>
<p class="status{{if $t.Resumed}} on{{end}}">{{resumed $t}}</p>
<p class="status{{if $t.Simulated}} on{{end}}">{{simul $t}}</p>
{{- if $casc}}
<p class="status on">{{cascadeRuns .R}}</p>
<p>{{cascadeTimes .R}}</p>
{{- end}}

<h2>Cards</h2>
<table>
<tr><th>Card</th><th>Files</th><th>Size</th><th>Copy, TB/hour</th><th>Verify, TB/hour</th><th>End to end, TB/hour</th><th>Safe to format?</th></tr>
{{range $i, $c := .R.Cards}}<tr><td><a href="#card-{{$i}}">{{$c.Label}}</a></td><td class="num">{{n $c.Files}}</td><td class="num">{{size $c.Bytes}}</td><td class="num">{{tbh $c.CopyTBPerHour}}</td><td class="num">{{vtbh $c.VerifyTBPerHour $c.VerifyNotApplicable}}</td><td class="num">{{tbh $c.EndToEndTBPerHour}}</td><td class="{{if $c.SafeToFormat}}safe{{else}}notsafe{{end}}">{{short $c}}</td></tr>
{{end}}<tr class="total"><td>All cards</td><td class="num">{{n $t.Files}}</td><td class="num">{{size $t.Bytes}}</td><td class="num">{{tbh $t.CopyTBPerHour}}</td><td class="num">{{vtbh $t.VerifyTBPerHour $t.VerifyNotApplicable}}</td><td class="num">{{tbh $t.TBPerHour}}</td><td>{{$t.SafeToFormat}} of {{$t.Cards}} safe</td></tr>
</table>
{{- if $casc}}
<p class="note">{{cardsNote true .R}}</p>
<h2>Cascade: card free, then safe to format</h2>
<table>
<tr><th>Card</th><th>Card free (first run verified)</th><th>2nd run from</th><th>2nd run copy, TB/hour</th><th>2nd run end to end, TB/hour</th><th>Safe to format (both runs verified)</th></tr>
{{range $i, $c := .R.Cards}}<tr><td><a href="#card-{{$i}}">{{$c.Label}}</a></td><td{{if not $c.CardFree}} class="notsafe"{{end}}>{{free $c}}</td><td>{{if $c.Then}}{{name $c.Then.Source}}{{else}}-{{end}}</td><td class="num">{{if $c.Then}}{{tbh $c.Then.CopyTBPerHour}}{{else}}-{{end}}</td><td class="num">{{if $c.Then}}{{tbh $c.Then.EndToEndTBPerHour}}{{else}}-{{end}}</td><td class="{{if $c.SafeToFormat}}safe{{else}}notsafe{{end}}">{{safeAt $c}}</td></tr>
{{end}}</table>
<p class="note">Card free: it may leave the reader, NOT be formatted. Safe to format: the second run, from the first copy, verified it too. 2nd run copy: bytes read from the first copy over the time they were read; end to end: over the time the second run took.</p>
{{- else}}
<p class="note">{{cardsNote false .R}}</p>
{{- end}}

<h2>Job</h2>
<table>
<tr><th>Job</th><td>{{.R.Job.ID}} {{.R.Job.Name}} ({{.R.Job.State}})</td></tr>
<tr><th>Host</th><td>{{.R.Job.Host}}</td></tr>
<tr><th>Tool</th><td>dit {{.R.Job.ToolVersion}}</td></tr>
<tr><th>Started</th><td>{{time .R.Job.Started}}</td></tr>
<tr><th>Finished</th><td>{{time .R.Job.Finished}}</td></tr>
<tr><th>Running</th><td>{{hms $t.ActiveSeconds}} in {{if gt $t.Runs 1}}{{$t.Runs}} runs{{else}}1 run{{end}}{{if gt $t.PausedSeconds 0.0}}, paused {{hms $t.PausedSeconds}}{{end}}</td></tr>
<tr><th>Hashes</th><td>{{join .R.Job.Hashes ", "}}</td></tr>
<tr><th>Verify</th><td>{{.R.Job.Verify}} (recomputing {{.R.Job.VerifyHashes}})</td></tr>
<tr><th>Folder layout</th><td>{{.R.Job.Layout}}</td></tr>
{{if .R.Job.Error}}<tr><th>Error</th><td>{{plain .R.Job.Error}}</td></tr>{{end}}
{{- if $casc}}
<tr><th>Cascade</th><td>{{cascadeDetail .R}}</td></tr>
{{- end}}
<tr><th>Report</th><td>generated {{time .R.Generated}}</td></tr>
</table>

<h2>Destinations</h2>
{{- $du := destUnit .R}}
<table>
<tr><th>Destination</th>{{if $casc}}<th>Run</th>{{end}}<th>Verified</th><th>Copied, not verified</th><th>Failed</th><th>Skipped</th><th>Size</th>{{if hasCloud .R}}<th>Verified how</th>{{end}}<th>Write, {{$du.Name}} (mean / p95)</th><th>Read back, {{$du.Name}} (mean / p95)</th></tr>
{{- $cl := hasCloud .R}}
{{range .R.Destinations}}<tr><td>{{name .Path}}</td>{{if $casc}}<td>{{run .Run}}</td>{{end}}<td class="num">{{n .Verified}}</td><td class="num">{{n .Copied}}</td><td class="num">{{n .Failed}}</td><td class="num">{{n .Skipped}}</td><td class="num">{{size .Bytes}}</td>{{if $cl}}<td>{{by .VerifiedBy}}</td>{{end}}<td class="num">{{$du.Num .WriteRate.Mean}} / {{$du.Num .WriteRate.P95}}</td><td class="num">{{if .VerifiedBy.StorageMD5}}{{rbCell .VerifiedBy 0 $du}}{{else}}{{$du.Num .ReadBackRate.Mean}} / {{$du.Num .ReadBackRate.P95}}{{end}}</td></tr>
{{end}}</table>
{{- if $casc}}
<p class="note">Run: 1st, written from the cards (the card is free once they are verified there); 2nd, written from the first copy (the card is safe to format once they are verified there too).</p>
{{- end}}

{{range $i, $c := .R.Cards}}
<h2 id="card-{{$i}}">Card {{$c.Label}}: <span class="{{if $c.SafeToFormat}}safe{{else}}notsafe{{end}}">{{verdict $c}}</span></h2>
<table>
<tr><th>Source</th><td>{{name $c.Source}}</td></tr>
{{if $c.Media}}<tr><th>Media</th><td>{{$c.Media}}</td></tr>{{end}}
{{if $c.Bus}}<tr><th>Bus</th><td>{{$c.Bus}}</td></tr>{{end}}
<tr><th>Files</th><td>{{n $c.Files}} files, {{size $c.Bytes}}; {{n (nskipped $c)}} skipped, {{n (failed $c)}} failed</td></tr>
<tr><th>Copy</th><td>{{span $c.CopyStarted $c.CopyFinished}}</td></tr>
<tr><th>Verify</th><td>{{span $c.VerifyStart $c.VerifyEnd}}</td></tr>
{{- if $casc}}
<tr><th>Card free</th><td{{if not $c.CardFree}} class="notsafe"{{end}}>{{free $c}}</td></tr>
{{- if $c.Then}}
<tr><th>2nd run from</th><td>{{name $c.Then.Source}}</td></tr>
{{- end}}
<tr><th>2nd run</th><td>{{secondRun $c}}</td></tr>
<tr><th>Safe to format</th><td class="{{if $c.SafeToFormat}}safe{{else}}notsafe{{end}}">{{safeAt $c}}</td></tr>
{{- end}}
</table>
{{- $u := unit $c.CopyRate $c.VerifyRate}}
<table>
<tr><th></th><th>Moved</th><th>Time</th><th>TB/hour</th><th>Mean, {{$u.Name}}</th><th>Min, {{$u.Name}}</th><th>Max, {{$u.Name}}</th><th>p95, {{$u.Name}}</th><th>Samples</th></tr>
<tr><th>Copy (reading the card)</th><td class="num">{{size $c.BytesCopied}}</td><td class="num">{{hms $c.CopySeconds}}</td><td class="num"><b>{{tbh $c.CopyTBPerHour}}</b></td><td class="num">{{$u.Num $c.CopyRate.Mean}}</td><td class="num">{{$u.Num $c.CopyRate.Min}}</td><td class="num">{{$u.Num $c.CopyRate.Max}}</td><td class="num">{{$u.Num $c.CopyRate.P95}}</td><td class="num">{{n $c.CopyRate.Samples}}</td></tr>
{{- if $c.VerifyNotApplicable}}
<tr><th>Verify (reading the copies back)</th><td class="num">{{size $c.BytesVerified}}</td><td colspan="7">— ({{$c.VerifyNotApplicable}})</td></tr>
{{- else}}
<tr><th>Verify (reading the copies back)</th><td class="num">{{size $c.BytesVerified}}</td><td class="num">{{hms $c.VerifySeconds}}</td><td class="num"><b>{{tbh $c.VerifyTBPerHour}}</b></td><td class="num">{{$u.Num $c.VerifyRate.Mean}}</td><td class="num">{{$u.Num $c.VerifyRate.Min}}</td><td class="num">{{$u.Num $c.VerifyRate.Max}}</td><td class="num">{{$u.Num $c.VerifyRate.P95}}</td><td class="num">{{n $c.VerifyRate.Samples}}</td></tr>
{{- end}}
<tr><th>End to end</th><td class="num">{{size $c.BytesCopied}}</td><td class="num">{{hms $c.ActiveSeconds}}</td><td class="num"><b>{{tbh $c.EndToEndTBPerHour}}</b></td><td></td><td></td><td></td><td></td><td></td></tr>
{{- if and $casc $c.Then}}
<tr><th>2nd run (reading the first copy)</th><td class="num">{{size $c.Then.BytesCopied}}</td><td class="num">{{hms $c.Then.CopySeconds}}</td><td class="num"><b>{{tbh $c.Then.CopyTBPerHour}}</b></td><td></td><td></td><td></td><td></td><td></td></tr>
<tr><th>2nd run end to end</th><td class="num">{{size $c.Then.BytesCopied}}</td><td class="num">{{hms $c.Then.ActiveSeconds}}</td><td class="num"><b>{{tbh $c.Then.EndToEndTBPerHour}}</b></td><td></td><td></td><td></td><td></td><td></td></tr>
{{- end}}
</table>
<figure class="chart">{{index $.Charts $i}}<figcaption>Throughput of {{$c.Label}} over time (per-second samples)</figcaption></figure>
{{- $cu := cardDestUnit $c}}
<table>
<tr><th>On destination</th>{{if $casc}}<th>Run</th>{{end}}<th>Verified</th><th>Copied, not verified</th><th>Failed</th><th>Skipped</th>{{if $cl}}<th>Verified how</th>{{end}}<th>Write, {{$cu.Name}} (mean)</th><th>Read back, {{$cu.Name}} (mean)</th></tr>
{{range $c.Destinations}}<tr><td>{{name .Path}}</td>{{if $casc}}<td>{{run .Run}}</td>{{end}}<td class="num">{{n .Verified}}</td><td class="num">{{n .Copied}}</td><td class="num">{{n .Failed}}</td><td class="num">{{n .Skipped}}</td>{{if $cl}}<td>{{by .VerifiedBy}}</td>{{end}}<td class="num">{{$cu.Num .WriteRate.Mean}}</td><td class="num">{{rbCell .VerifiedBy .ReadBackRate.Mean $cu}}</td></tr>
{{end}}</table>
{{if $c.Failures}}<h3>Failures ({{n (nfailures $c)}})</h3><ul>{{range $c.Failures}}<li><span class="mono">{{name .Path}}</span>: {{plain .Error}}</li>{{end}}{{if $c.FailuresMore}}<li class="more">{{more $c.FailuresMore "failed" $.R.Job.ID}}</li>{{end}}</ul>{{end}}
{{if $c.Skipped}}<h3>Skipped, not copied ({{n (nskipped $c)}})</h3><ul>{{range $c.Skipped}}<li><span class="mono">{{name .Path}}</span>: {{reason .}}</li>{{end}}{{if $c.SkippedMore}}<li class="more">{{more $c.SkippedMore "skipped" $.R.Job.ID}}</li>{{end}}</ul>{{end}}{{clips $.R $c}}{{proxies $.R $c}}
{{- $rows := $.Rows $i}}
<details><summary>{{$rows}} files with their hashes</summary>
<table class="mono">
<tr><th>Path</th><th>Size</th><th>State</th><th>Hashes</th></tr>
{{range $.Files $i}}<tr><td>{{name .Path}}</td><td class="num">{{size .Size}}</td><td>{{.State}}</td><td>{{range $a, $v := .Hashes}}{{$a}} {{$v}}<br>{{end}}</td></tr>
{{end}}</table>
{{if gt $rows $.MaxFiles}}<p>... and {{minus $rows $.MaxFiles}} more: see the CSV report.</p>{{end}}
</details>
{{end}}
</body>
</html>
`))

// svgSize is a width or height in points on the chart's <svg> element.
var svgSize = regexp.MustCompile(`\b(width|height)="([0-9.]+)pt"`)

// htmlData is what the HTML template is given.
type htmlData struct {
	R        *Report
	Charts   []template.HTML
	MaxFiles int
	failed   *error // why Files failed
}

// Rows is the number of files of card i.
func (d htmlData) Rows(i int) int { return d.R.fileRows(i) }

// Files are the first MaxFiles files of card i, read as the page is
// written.
func (d htmlData) Files(i int) ([]File, error) {
	fs, err := d.R.firstFiles(i, d.MaxFiles)
	if err != nil {
		*d.failed = err
	}
	return fs, err
}

// WriteHTML writes a self-contained HTML page: tables, and each card's
// throughput chart as inline SVG. It is written as it is rendered; a
// read of the files that fails ends the page with a line that says the
// report is INCOMPLETE, and returns the error.
func (r *Report) WriteHTML(w io.Writer) error {
	var failed error
	data := htmlData{R: r, MaxFiles: maxHTMLFiles, failed: &failed}
	for i := range r.Cards {
		svg, err := chart(&r.Cards[i], "svg", 16*vg.Centimeter, 8*vg.Centimeter)
		if err != nil {
			return err
		}
		// Inline: drop the XML declaration and the generator comment, and
		// size it in CSS pixels (HTML takes no "pt" in width and height).
		if i := bytes.Index(svg, []byte("<svg")); i > 0 {
			svg = svg[i:]
		}
		svg = svgSize.ReplaceAllFunc(svg, func(m []byte) []byte {
			s := svgSize.FindSubmatch(m)
			pt, _ := strconv.ParseFloat(string(s[2]), 64)
			return fmt.Appendf(nil, `%s="%.0f"`, s[1], pt*4/3)
		})
		data.Charts = append(data.Charts, template.HTML(svg))
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	if err := htmlTmpl.Execute(bw, data); err != nil {
		if failed != nil {
			err = failed // not the template's words around it
		}
		// The read fails in a card's file table, in its folded
		// <details>: close them, or the banner is folded away with them
		// (an end tag of nothing open is ignored).
		fmt.Fprintf(bw, "\n</table></details>\n<p class=\"banner notsafe\">INCOMPLETE REPORT: %s</p>\n", template.HTMLEscapeString(err.Error()))
		bw.Flush()
		return err
	}
	return bw.Flush()
}
