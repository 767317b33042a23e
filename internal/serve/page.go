package serve

import (
	"html/template"
	"net/http"
)

// The page renders the status JSON with a few lines of JavaScript (its
// figures and words come formatted, Card.Shown and JobStatus.Shown: it
// formats no number, decides no state, computes no rate or estimate): at
// once from /api/status's content inlined, then at each "status" event of
// /events. window.ditUpdates (and body's data-updates) counts the events
// received, body's data-first-done and data-last-done are the running
// cards' bytes copied and read back (the live model's) at the first and
// the latest render; ?until=N closes the stream
// after N events (a headless browser's page then finishes loading).
var pageTmpl = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>dit status</title>
<style>
body{font:15px/1.4 system-ui,sans-serif;margin:0;background:#111;color:#eee}
header{padding:10px 14px;background:#222;display:flex;justify-content:space-between;align-items:baseline}
h1{font-size:18px;margin:0} h2{font-size:15px;margin:18px 14px 6px;color:#aaa;text-transform:uppercase;letter-spacing:.05em}
.job{margin:8px 10px;padding:8px 10px;background:#1c1c1c;border-radius:8px}
.job .t{display:flex;justify-content:space-between;font-weight:600}
.st{font-weight:400;color:#aaa;font-size:13px}
.card{margin:6px 0}
.card .l{display:flex;justify-content:space-between;gap:8px;font-size:14px}
.bar{height:8px;background:#333;border-radius:4px;overflow:hidden;margin-top:3px}
.bar i{display:block;height:100%;background:#3a8ee6}
.card.safe .bar i{background:#2e9e57}
.card.free .bar i{background:#b7791f}
.card.failed .bar i{background:#d64545}
.jl{font-size:13px;color:#ccc;margin:4px 0 6px}
.eta{font-size:12px;color:#aaa}
.stall{font-size:13px}
.safe-list li,.arrays li{margin:3px 0}
.ok{color:#4cc47a} .bad{color:#ff6b6b} .warn{color:#f0b429} .muted{color:#888}
.blades{margin:2px 0 6px;font-size:13px;overflow-wrap:anywhere}
ul{margin:0 14px;padding-left:18px}
footer{margin:20px 14px;color:#777;font-size:12px;overflow-wrap:anywhere}
</style></head>
<body>
<header><h1>dit status</h1><span id="live" class="muted">connecting…</span></header>
<main id="main"><noscript>JavaScript is off: read <a href="api/status">api/status</a>.</noscript></main>
<footer>Read-only view of <span id="cat"></span>. Updated <span id="gen"></span>.</footer>
<script>
const initial = {{.}};
window.ditUpdates = 0;
const q = new URLSearchParams(location.search);
const token = q.get("token");
const until = parseInt(q.get("until") || "0");
function esc(s){return String(s).replace(/[&<>"]/g,c=>({"&":"&amp;","<":"&lt;",">":"&gt;",'"':"&quot;"}[c]))}
function doneOf(c){return c.live?c.live.bytes_copied+c.live.bytes_verified:0}
function bladesHTML(a){
  if(!a.blades||!a.blades.length) return "";
  const cls={ok:"ok",warning:"warn",unknown:"muted"};
  return '<ul class="blades">'+a.blades.map(b=>'<li class="'+(cls[b.drive]||"muted")+'" data-role="'+b.role+'" data-drive="'+esc(b.drive)+'">blade '+b.role+" ("+esc(b.kind)+", "+esc(b.state)+"): drive "+(b.drive==="warning"?"WARNING":esc(b.drive))+(b.drive_reason?": "+esc(b.drive_reason):"")+"</li>").join("")+"</ul>";
}
function render(st){
  let h="<h2>Jobs</h2>";
  if(!st.jobs.length) h+='<p class="muted" style="margin:0 14px">No job running or started today.</p>';
  for(const j of st.jobs){
    h+='<div class="job" data-job="'+j.job_id+'"><div class="t"><span>'+esc(j.name)+' <span class="st">#'+j.job_id+' · '+esc(j.station)+'</span></span><span class="st">'+esc(j.state)+'</span></div>';
    if(j.live){
      const js=j.shown;
      h+='<div class="jl" data-live-at="'+esc(j.live_at)+'">'+esc(js.progress)+' · '+esc(js.rate)+' · live '+esc(js.tb_per_hour)+(js.stalled?' · <span class="warn">'+esc(js.stalled)+'</span>':'')+'<br><span class="eta">'+esc(js.eta)+'</span></div>';
    }
    if(j.live_error) h+='<div class="jl muted">live figures not read: '+esc(j.live_error)+'</div>';
    for(const c of j.cards){
      const s=c.shown;
      const done=doneOf(c);
      const what=esc(s.state)+(s.phase?" · "+esc(s.phase):"");
      const rate=s.rate?" · "+esc(s.rate):"";
      const eta=s.eta?'<div class="eta">'+esc(s.eta)+'</div>':"";
      const stall=s.stall?'<div class="stall warn">stalled: '+esc(s.stall)+'</div>':"";
      h+='<div class="card '+esc(s.tone)+'" data-card="'+esc(c.label)+'" data-hop="'+(c.live?c.live.hop||1:1)+'" data-done="'+done+'" data-state="'+esc(c.state)+'"><div class="l"><span>'+esc(c.label)+'</span><span>'+what+' · '+esc(s.progress)+rate+'</span></div><div class="bar"><i style="width:'+s.percent+'%"></i></div>'+eta+stall+'</div>';
    }
    h+="</div>";
  }
  h+="<h2>Safe to format</h2>";
  h+=st.safe_to_format.length?'<ul class="safe-list">'+st.safe_to_format.map(c=>'<li class="ok">'+esc(c.card)+' <span class="muted">'+esc(c.station)+' · job '+c.job_id+'</span></li>').join("")+"</ul>":'<p class="muted" style="margin:0 14px">None yet.</p>';
  if(st.arrays.length){
    h+="<h2>Arrays</h2><ul class=\"arrays\">"+st.arrays.map(a=>'<li class="'+(a.health==="healthy"?"ok":"bad")+'">'+esc(a.path)+": "+esc(a.health)+(a.error?" ("+esc(a.error)+")":"")+(a.damaged_units?", "+a.damaged_units+" damaged unit(s)":"")+(a.files_unreadable?"; cannot be read: "+esc(a.files_unreadable.slice(0,5).join(", "))+(a.files_unreadable.length>5?" and "+(a.files_unreadable.length-5)+" more":""):"")+(a.files_without_redundancy?"; without redundancy: "+a.files_without_redundancy.length+" file(s)":"")+bladesHTML(a)+"</li>").join("")+"</ul>";
  }
  document.getElementById("main").innerHTML=h;
  let done=0; for(const j of st.jobs) for(const c of j.cards) done+=doneOf(c);
  if(document.body.dataset.firstDone===undefined) document.body.dataset.firstDone=done;
  document.body.dataset.lastDone=done;
  document.getElementById("cat").textContent=st.catalog;
  document.getElementById("gen").textContent=new Date(st.generated).toLocaleTimeString();
}
render(initial);
const es=new EventSource("events"+(token?"?token="+encodeURIComponent(token):""));
es.addEventListener("status",e=>{
  window.ditUpdates++;
  document.body.dataset.updates=window.ditUpdates;
  document.getElementById("live").textContent="live";
  render(JSON.parse(e.data));
  if(until&&window.ditUpdates>=until){es.close();document.getElementById("live").textContent="stopped after "+until+" updates";}
});
es.onerror=()=>{document.getElementById("live").textContent="reconnecting…"};
</script>
</body></html>
`))

func (s *Server) page(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/" {
		http.NotFound(w, r)
		return
	}
	st, err := s.Snapshot()
	if err != nil {
		http.Error(w, "reading the catalog: "+err.Error(), http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	pageTmpl.Execute(w, st)
}
