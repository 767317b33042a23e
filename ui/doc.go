// Package ui is dit's desktop app (dit-gui), built with Fyne: the only
// package of dit that imports fyne.io (cmd/dit-gui wires it to a real
// window; tests use fyne.io/fyne/v2/test, which needs no cgo and no
// display).
//
// It drives the same engine as the CLI and reads the same events: its
// jobs are assembled by internal/assembly from the view's settings
// (App.prepareJob: the sealing, clips, reports, scheduler, notifications
// and the decisions of earlier offloads are dit offload's), so nothing is
// computed twice.
//
//	Offload      cards (added by hand, detected, or with one click from the
//	             list of camera cards mounted: the volumes Auto-offload
//	             watches, recognised by watch.Recognize; Fyne's folder
//	             dialog cannot list mounted volumes in its sidebar, so it
//	             opens in /media/$USER, /run/media/$USER or /Volumes
//	             instead; cards offloaded before are
//	             found with offload.FindPrior and left out unless copied
//	             again), destinations (plain folders and blades of dit arrays
//	             with their health and each blade's drive health),
//	             cloud destinations (rclone:REMOTE:PATH, typed as
//	             remote:path: checked by assembly.CheckRemoteDest before
//	             they are added, with the free space their storage
//	             reports (assembly.RemoteFree; none for S3), refused in
//	             words naming the remotes
//	             rclone has, or how to install rclone; Config.Rclone),
//	             hashes, verify mode, MHL, proxies (off or a preset of
//	             assembly.ProxyPresetList, burn-in, the
//	             destinations they go to, cloud ones too: Settings.Proxies, ProxiesTo),
//	             a topology preset
//	             (internal/plan files, loaded and saved), a cascade
//	             (each destination in the first run, "First copy (card is
//	             read)", or the second, "Then, from the first copy";
//	             "Second run: cards at once": Options.Dests, Options.Then,
//	             Options.ThenParallel; a second run without a first-run
//	             destination is refused, in words), the engine's rule on
//	             cloud destinations asked as the destinations and the
//	             verify setting change (the form fills an assembly.Spec
//	             and Spec.Settings checks it with the engine's rules, a
//	             refusal named by the form's labels; a cloud
//	             destination beside second-run folders, or with no
//	             read-back, is refused beside Start in the engine's
//	             words, and Start is off until it is fixed), where a
//	             cloud destination's copy comes from
//	             (assembly.RemoteRoutes: given beside a folder, it is
//	             uploaded from the folder's verified copy in a second
//	             run, and planned there: assembly.DestRuns), and the plan
//	             before the start: a bar per bus and destination (load against
//	             capacity), each card's predicted rate and ETA, the bottleneck
//	             in words, warnings (a reader on a port slower than its card,
//	             cards that do not fit, a degraded array). Start: Ctrl+Enter.
//	Running job  offload.New / offload.Resume, then Job.Run; Options.OnEvent
//	             feeds a model (runModel: a cardView per card, the view's
//	             picture of the engine's card run) that the view renders
//	             (a cardPanel per card: a tile, two columns of them, so
//	             that every card of a job of up to 8 shows at once at
//	             1280x800; failed cards first, then stalled ones; the
//	             verdict or phase at 24 px; each destination a line, its
//	             bytes and the failures' reasons under Details; the chart
//	             off below 900 px of height, Show chart turns it on). The
//	             engine's events ask for a render (renderSoon): at most
//	             one is pending, it draws the model as it is then, so a
//	             burst of events is one render and the last state is
//	             always drawn; a render sets only the labels that changed.
//	             Every figure and estimate is the
//	             engine's live model's (package live: the progress
//	             events' snapshot, Job.Snapshot) and every state the
//	             engine's typed one (live.Phase, verdict.State): the view
//	             computes no rate or estimate. Per card a bar, bytes, files, current file (while verifying, one
//	             being read back), its rate, its live TB/hour so far
//	             (live.Card.TBPerHour; once done, what it was) and
//	             "safe in" (in a cascade
//	             "free in" too) the model's estimates ("unknown" when the
//	             model cannot say; "Paused" while paused; a stalled
//	             card, no rate, its TB/hour so far), phase and its
//	             state; a stall in the model's words ("Copying - stalled",
//	             "Stalled at DEST: s3: connection refused, retry 3 of 10,
//	             since 40s"); a row
//	             per destination (offload.DestProgress: bytes written and
//	             read back, rate, state: writing, reading back, verified,
//	             FAILED, Stalled; a cloud destination's: uploaded, checked), so a destination that lags or fails shows; large
//	             figures: the job's rate, its live TB/hour end to end
//	             (Job.TBPerHour) and its time until every card is safe
//	             to format, and how many cards are stalled; a throughput chart drawn
//	             with canvas lines (last five minutes, one line per card,
//	             decimal GB/s); pause / resume (Ctrl+P), cancel and add
//	             card, gone once the job ended (ended means ended). In
//	             a cascade a card has a row per run: the first run (from
//	             the card), "Card free - eject" once the engine says
//	             card_free, and the second run (the engine's progress of
//	             Hop 2) with its own bar. Every card has an
//	             Eject button (see Eject), and once it is done its clips
//	             (see Clips).
//	Auto-offload a switch at the top of the Running job view (see below),
//	             with its log.
//	History      past jobs from the catalog with totals and TB/hour; a job's
//	             cards, failures and files (a cascade: each card's card-free
//	             and safe-to-format times, its second run's destinations
//	             and TB/hour); each card's clips with their thumbnails (see
//	             Clips); its proxies counted as dit job show counts
//	             them (assembly.ProxyCount; the Running job view says
//	             it too once the job ended; "MHL folder" is off for a
//	             cloud copy); its report exported as PDF, HTML or CSV
//	             (reports/jobreport); its ASC MHL folders revealed. A
//	             card's folder in a dit array, which the engine names
//	             array:BLADE//PATH, is said in words (arraypath.go,
//	             raid/mountplace): its path below the array's mount
//	             point when mounted (MHL folder opens it there), else
//	             its path in the array and the array's name, MHL folder
//	             saying how to mount it. A run's failed files are
//	             counted with the summary's figure (Failed); its hash
//	             lists not written are listed beside them, not counted.
//	Arrays       the arrays known here, looked for each time the tab is
//	             shown (arraylist.go), one entry per array UUID: every
//	             array the catalog saw (catalog.ArraysSeen: by its jobs'
//	             copies' identities, their costs rows and speed tests;
//	             the blade folders it was at and the jobs that wrote to
//	             it), every array a job's destination folder is a blade
//	             of now (or the folder a blade of it was last seen at),
//	             and every array with a blade on a volume mounted now
//	             (at the volume's root or a folder right under it), each
//	             with its health, how many of its blades are here, the
//	             jobs that wrote to it (newest first) and whether it is
//	             mounted for other programs (raid/mountplace). An array
//	             none of whose blades is here (a shuttle gone to the
//	             lab) is listed after those here by its UUID's first
//	             digits (its label is not in the catalog), where it was
//	             seen and when, "no blade connected: connect a blade to
//	             open it", its Open disabled: not an error. An array is
//	             opened with every blade folder of it the list found (a
//	             blade that moved is found where it is now, not only by
//	             its superblock's hints). Open shows one below,
//	             as does a blade folder's path typed (or the folder
//	             dialog): a dit array's blades, their state and free space, and
//	             each blade's drive health as dit array status gives it
//	             (devices.HealthOfAll through Config.SMART, asked after
//	             the array is shown: ok with its figures, WARNING with
//	             the problems, unknown with why: smartctl missing, a USB
//	             bridge that does not answer); scrub (check, or repair)
//	             and rebuild of a blade onto an empty folder (typed, or
//	             chosen in the folder dialog), with progress.
//
// # Typed paths
//
// Fyne's folder dialog has no field to type a path into: beside each of
// its buttons (a card, a destination, an array's blade, the folder a
// blade is rebuilt onto) an entry takes a path typed or pasted (quotes,
// "~" and file:// URLs understood; Enter adds it), and the running
// view's Add card asks in a dialog that takes one too (pathfield.go).
// A path that is not there is said by what uses it, naming it.
//
// # Speed test
//
// Each card and destination of the Offload tab and the array of the
// Arrays tab has a Speed test action (speedtest.go): a dialog with the
// size (default: internal/speedtest's, past the memory and the media's
// caches), Start, the progress and Cancel (the test files are removed,
// nothing is recorded). It runs speedtest.Run as dit speedtest does: a
// card is only read (RunCard: nothing on it is written), a destination
// folder written and read back, a blade of a dit array tested blade by
// blade, then as the whole array. Each result shows its rates, how the
// cache was kept out, the cliff (where a cache ran out) when one was
// found, its curves drawn by reports/speedchart (Save chart... writes the
// PNG) and where it is kept: speedtest.Keep records it in the catalog
// under the volume's id, where the plan and the offloads read it in place
// of the table rates. A test is refused while a job runs (it would slow
// the job and measure less than the drive sustains).
//
// # Before the start
//
// The assembly's Prepare may have something to say before a job copies:
// Prepared.Warnings (a destination drive, or a blade of an array, that
// reports problems: asked through Config.SMART, the drive found among
// Config.Discover's volumes: App.driveHealth is the job's
// Hooks.DriveHealth; the CPU benchmark cache) and Prepared.Notes (measured
// rates used in place of the table's, measurements that look old). dit
// offload prints them; dit-gui shows them at the top of the Running job
// view ("Before the start:", each line a Warning: or a Note:) from the
// view's first render of the job, before its Run, and keeps them there
// after the job; the Offload view says them too. A resumed job whose
// proxies cannot be made (no ffmpeg) says so there, as dit offload
// --resume does; once it ended its proxies read "none made (the job
// asked for PRESET)" there and in History (assembly.ProxyCount, dit job
// show's words). A cloud destination's remote that reports no free space
// is a Note ("free space of REMOTE: unknown (the storage does not
// report it)"); one too small refuses the job, naming the need and the
// free space. A warning does not stop
// the job (the assembly's DrivesWarn).
//
// # Safe to format
//
// A card reads "Verified: safe to format" only when the engine's verdict
// (verdict.Safe), read back from the catalog, says so: its card_done
// event (State and Summary) or the job's summary (offload.LoadSummary);
// never a run's end alone. A card with a failed file reads "Failed: NOT
// safe to format" and lists each file with the destination and the
// reason. A card the engine runs again (card_retried) loses its earlier
// verdict until the next.
//
// In a cascade (Options.Then) a card goes: its first run's phases
// (Copying, Verifying, Writing hash lists), then "Card free - eject: NOT
// safe to format yet" once the engine's card_free event (or the summary's
// CardFree) says so, in the theme's primary colour, not the green of safe
// to format; it stays free while its second run copies, and after it,
// until the summary read once both runs ended says SafeToFormat. A
// summary read while the second run still runs is not the card's verdict.
// A second run that fails reads "Second run FAILED: NOT safe to format
// (keep the card)".
//
// # Colours
//
// The theme (theme.go) gives the state colours (safe, warning, failed),
// the primary blue (card free, links, the Start button) and the hints'
// grey per variant, each reading at 4.5:1 or more on its background;
// TestStateColoursContrastRendered measures them on pixels the test
// renderer drew. Golden images of the running view (copying, card free,
// safe, failed; light and dark) are in testdata/running-*.png; after a
// theme switch the view draws exactly the image of the new theme.
//
// # Auto-offload
//
// The switch runs an internal/watch Watcher over the machine's volumes
// (watch.System(); Config.Volumes replaces it: dit-gui --watch-dir, and
// the tests' watch.Dir over a temp folder) with the watched preset: the
// Offload tab's destinations, cascade, hashes, verify and hash lists, or a
// preset file (watch.LoadPreset: also layout, name, ignore, eject,
// volume_pattern, notify), and "Eject each card when it is free". The
// app is the watch's Runner: each card the watch offloads starts a job
// (or joins the running one) exactly as Start does, so it shows in the
// Running job view like any card. The log lists every volume seen and
// what was done: ignored (and why), skipped (offloaded before), offload,
// join, retry, resume, queued, removed, ejected, eject failed. While the
// switch is on, Start is off; it turns on only while no job runs;
// turning it off lets a running job finish. dit-gui --auto PRESET
// [--eject] turns it on at the start. The watched jobs are scheduled by a
// bus budget as dit watch's: the preset file's topology: (or, watching
// with the Offload tab's settings, the topology preset loaded there),
// each job its part of it (assembly.JobTopology), a card that joins the running
// job planned with its entry of the file ("A002 added"); a topology that
// cannot be read stops the watch and says why. A card offloaded and
// verified before on every watched destination is skipped; one verified
// on some of them is copied to the others only (internal/assembly, as dit
// offload and dit watch decide).
//
// # Eject
//
// A card's Eject button is enabled once the card is free: in a cascade,
// card_free (then the card-free row's "Card free - eject" button takes
// its place), otherwise its run ended verified (run_done, or the
// summary). After a confirmation it ejects through watch.Watcher.Eject:
// watch.SafeToEject refuses a destination of the job or of the watched
// preset, the Ejector (Config.Ejector; default watch.SystemEjector:
// udisksctl unmount and power-off on Linux, diskutil eject on macOS)
// ejects, and the result is recorded with the card in the catalog, shown
// on the card ("Ejected: ..." or "NOT ejected: why") and in the log. A
// watch with eject on ejects each card when it is free on its own, the
// same way.
//
// # Clips
//
// A job runs with a jobreport.Clipper (attached by internal/assembly;
// Job.WaitClips waits for it): it gets every engine event first
// (Clipper.OnEvent), and once a card is done it recognises the card's
// clips (internal/clips, from the catalog's file list and the sidecars of
// the first copy) into the catalog and makes a poster frame of each clip
// ffmpeg reads, from the copy, in the background; its AfterJob writes
// the reports (the clip sheet with them) after the clips. The running
// view waits for the clipper after a run_done (never on the UI
// goroutine), reads the card's clips from the catalog (Catalog.Clips) and
// shows on the card's panel its camera (clips.Summarise: that of most of
// its clips) and type, the clip count and their summed duration
// ("ARRI ALEXA 35 (ProRes): 7 clips, 9s"; "duration unknown" when no
// sidecar gives one). Nothing is shown before the card is done (the
// catalog after the copy is the one source).
//
// History lists each card's clips from jobreport.Build (Card.Clips; a job
// that has not finished: jobreport.CardClips, the catalog's clips,
// without thumbnails) in columns as the reports' clip list: Clip (a
// thumbnail 96 px wide, Clip.JPEG, read from the job's reports folder on
// a destination, or "no thumbnail"; the clip's name; its type, length as
// an editor reads it (HH:MM:SS:FF, Clip.Duration) or "length unknown",
// files and size, NOT verified, why it has no thumbnail), TC in, TC out
// (the timecode after the last frame, exclusive, Clip.TCEnd), FPS,
// Resolution and Codec; "unknown" (jobreport.Unknown) where nothing tells
// it, never a zero (at most 200 clips a card; the report's clip sheet has
// them all).
//
// # Telling the DIT
//
// A banner across the top of the window says when something needs the
// DIT: a card failed (or the job stopped), a card was removed while it
// was copied, an eject failed, a notification did not go out, the watch
// stopped. It stays until Dismiss, but what it says of a card's verdict
// follows the engine: the card's next failure replaces it, and a verdict
// that is not bad (a retry or a resume that made the card safe) removes
// it, as a job that ended done removes its own.
//
// Each job sends notifications at card free, safe to format, the job's
// end and any failure (internal/assembly's, the same as dit offload's):
// to the desktop (fyne.App.SendNotification), and to the webhooks and
// e-mail of the notify: section of the user's config file
// (notify.DefaultPath(); Config.NotifyConfig names another, or "none"),
// or of the watched preset when it has one. The job-done mail carries
// the PDF report. Fyne has no API for a sound, so a desktop notification
// makes only the sound the desktop gives it. A failing notifier never
// stops or slows a job: what did not go out is on the banner.
//
// # Files
//
// The Offload tab: offload.go (the view, its plan and Start),
// formlists.go (its cards and destinations), formcloud.go (cloud
// destinations, the engine's rule on them beside Start, and proxies), speedtest.go (the Speed
// test dialog), formsettings.go (hashes,
// verify, hash lists, presets, the form remembered), formadvanced.go
// (the folded "Job details": ASC MHL creator info, folder layout, on
// conflict, ignore patterns, hidden files, editorial lists, folder
// hashes, block size; each a Spec field, refused beside it in the form's
// words, remembered), formpace.go (the rest of the job details: read
// rate, write limits, checkpoints, drive health, rclone, ffmpeg at
// once), plan.go, mounted.go,
// pathfield.go (typed paths).
// A job: job.go (its settings, assembly, run and events), model.go (the
// running job's model), cardview.go (a card as the view shows it). The
// Running job tab: running.go (the view), cardpanel.go (a card's panel),
// eject.go, chart.go, destrows.go, auto.go (Auto-offload). The Arrays
// tab: arraylist.go (the arrays known here), arrayview.go (one array).
//
// # Threads
//
// Nothing that does I/O runs on the UI goroutine: scans, the plan, the
// job, the watch, ejects, notifications, catalog reads, reports and array
// operations run in goroutines and hand their results to the widgets
// through App.do (fyne.Do).
//
// # Pause
//
// Pause wraps the job's offload.Limiter (the planner's scheduler, when the
// job has a topology): reads from the cards, writes to the destinations
// and the read-back of copies wait while paused (a block already being
// read or written finishes first).
// Cancel cancels the job's context: temporary files are removed, nothing
// unverified is reported verified, and the job can be resumed from
// History.
package ui
