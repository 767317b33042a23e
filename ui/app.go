package ui

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/dit-org/dit/internal/catalog"
	"github.com/dit-org/dit/internal/cloud"
	"github.com/dit-org/dit/internal/devices"
	"github.com/dit-org/dit/internal/fsys"
	"github.com/dit-org/dit/internal/watch"
)

// Config connects the app to the engine and the machine. Only Catalog is
// required; the function fields replace, in tests, what needs a person
// (file dialogs) or the desktop (opening a folder).
type Config struct {
	// Catalog is the SQLite catalog every job is recorded in.
	Catalog *catalog.Catalog
	// Version is recorded with each job ("dit-gui VERSION").
	Version string
	// FS is the filesystem jobs read and write through (default: the OS;
	// tests inject faults here, like the engine's own tests).
	FS fsys.FS
	// Discover lists the machine's volumes for the plan and card
	// detection (default devices.Discover).
	Discover func(ctx context.Context) ([]devices.Volume, error)
	// ChooseFolder asks for a folder and calls done with its path, or not
	// at all when the person cancels (default: Fyne's folder dialog).
	ChooseFolder func(title string, done func(path string))
	// SaveFile asks where to save a file named name and calls done with it
	// opened for writing (default: Fyne's save dialog).
	SaveFile func(name string, done func(w io.WriteCloser, path string))
	// OpenFile asks for a file to read (default: Fyne's open dialog).
	OpenFile func(title string, done func(r io.ReadCloser, path string))
	// OpenURL shows a folder or file in the desktop's file manager
	// (default: the Fyne app's OpenURL).
	OpenURL func(u *url.URL) error
	// SMART runs smartctl for the drives' health (the Arrays tab's
	// blades, the destinations checked before a job; default: smartctl
	// itself; tests give the committed fixtures).
	SMART devices.Runner
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Volumes is what the Auto-offload switch watches (default
	// watch.System(): the machine's mounts; tests and demos: a watch.Dir,
	// a folder whose subfolders are volumes), every WatchInterval
	// (default 1 s).
	Volumes       watch.Source
	WatchInterval time.Duration
	// FreshEvery is how often the Offload form reads its destinations'
	// free space (and blades' health) again while it is shown (default
	// 15 s): a drive filled or emptied by other work reads as it is now.
	FreshEvery time.Duration
	// Ejector ejects cards (default watch.SystemEjector: udisksctl or
	// diskutil; tests inject a fake).
	Ejector watch.Ejector
	// NotifyConfig is the file whose notify: section the jobs'
	// notifications (webhook, e-mail) are sent with: "" the user's
	// config file (notify.DefaultPath, when it exists), "none" none.
	NotifyConfig string
	// Rclone reaches the cloud destinations (rclone:REMOTE:PATH; nil:
	// rclone on PATH with the user's own configuration).
	Rclone *cloud.Rclone
	// SendNotification shows a desktop notification (default: the Fyne
	// app's SendNotification).
	SendNotification func(*fyne.Notification)
}

// App is dit's desktop window: the Offload, Running job, History and
// Array views over one catalog. Build it with New, then ShowAndRun.
type App struct {
	fa  fyne.App
	win fyne.Window
	cfg Config

	// mu is held by every widget update made from a goroutine (see do).
	mu sync.Mutex
	// bg counts the goroutines that use the catalog (jobs, loaders), so
	// that Close can wait for them before the catalog is closed.
	bg sync.WaitGroup

	// renders coalesces the running view's renders (renderSoon).
	renders renderQueue

	jobMu   sync.Mutex
	job     *jobRun // the job being prepared or run
	closing bool
	// stopFresh ends the Offload form's periodic free-space reads (Close).
	stopFresh chan struct{}

	tabs      *container.AppTabs
	offload   *offloadView
	running   *runningView
	history   *historyView
	arrays    *arrayView
	auto      *autoView
	speed     *speedTest // the latest Speed test dialog
	banner    *banner
	themeMode string
	themeSel  *widget.Select
}

// New builds the window for a Fyne app: the real one in cmd/dit-gui, or
// fyne.io/fyne/v2/test's in tests.
func New(fa fyne.App, cfg Config) *App {
	if cfg.FS == nil {
		cfg.FS = fsys.OS{}
	}
	if cfg.Discover == nil {
		cfg.Discover = devices.Discover
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Ejector == nil {
		cfg.Ejector = watch.SystemEjector{}
	}
	if cfg.FreshEvery <= 0 {
		cfg.FreshEvery = 15 * time.Second
	}
	a := &App{fa: fa, cfg: cfg, stopFresh: make(chan struct{})}
	a.win = fa.NewWindow("dit")
	if cfg.ChooseFolder == nil {
		a.cfg.ChooseFolder = a.folderDialog
	}
	if cfg.SaveFile == nil {
		a.cfg.SaveFile = a.saveDialog
	}
	if cfg.OpenFile == nil {
		a.cfg.OpenFile = a.openDialog
	}
	if cfg.OpenURL == nil {
		a.cfg.OpenURL = fa.OpenURL
	}

	a.banner = newBanner(a)
	a.offload = newOffloadView(a)
	a.auto = newAutoView(a)
	a.running = newRunningView(a)
	a.history = newHistoryView(a)
	a.arrays = newArrayView(a)
	a.tabs = container.NewAppTabs(
		container.NewTabItemWithIcon("Offload", theme.ContentCopyIcon(), a.offload.content),
		container.NewTabItemWithIcon("Running job", theme.MediaPlayIcon(), a.running.content),
		container.NewTabItemWithIcon("History", theme.HistoryIcon(), a.history.content),
		container.NewTabItemWithIcon("Arrays", theme.StorageIcon(), a.arrays.content),
	)
	a.tabs.OnSelected = func(t *container.TabItem) {
		switch t.Content {
		case a.history.content:
			a.history.reload()
		case a.offload.content:
			a.offload.refreshDests() // the free space now, not when it was added
		case a.arrays.content:
			a.arrays.list.reload() // the arrays the jobs wrote to and those mounted now
		}
	}
	a.themeMode = fa.Preferences().StringWithFallback("theme", ThemeSystem)
	a.themeSel = widget.NewSelect([]string{ThemeSystem, ThemeLight, ThemeDark}, a.SetTheme)
	a.themeSel.SetSelected(a.themeMode)
	bar := container.NewHBox(widget.NewLabel("Theme"), a.themeSel,
		widget.NewLabel("Ctrl+Enter: start   Ctrl+P: pause / resume"))
	a.win.SetContent(container.NewBorder(a.banner.box, container.NewPadded(bar), nil, nil, a.tabs))
	// Folders dragged onto the window: cards and destinations of the form.
	a.win.SetOnDropped(func(_ fyne.Position, uris []fyne.URI) {
		var paths []string
		for _, u := range uris {
			if u.Scheme() == fileScheme {
				paths = append(paths, u.Path())
			}
		}
		a.tabs.Select(a.tabs.Items[0])
		a.offload.dropped(paths)
	})
	// Fits a 13-inch laptop (1280x800 less a menu bar and the title).
	a.win.Resize(fyne.NewSize(1280, 720))
	a.addShortcuts()
	a.win.SetCloseIntercept(a.confirmQuit)
	// The form as it was last started; under the UI lock, as the
	// destinations it adds are looked at in goroutines that update it.
	a.locked(a.offload.restore)
	a.history.reload()
	// Not one of bg's: it lives as long as the app; Close stops it.
	go a.keepFresh()
	return a
}

// confirmQuit asks before a running job is cancelled by quitting.
func (a *App) confirmQuit() {
	if !a.running.active() {
		a.win.Close()
		return
	}
	run := a.running.run
	dialog.ShowConfirm("Quit dit?", "A job is running. Quitting cancels it: verified copies stay,\nnothing unverified is reported verified, and the job can be resumed from History.",
		func(ok bool) {
			if !ok {
				return
			}
			run.cancel()
			go func() {
				<-run.done
				fyne.Do(a.win.Close)
			}()
		}, a.win)
}

// Window is the app's window.
func (a *App) Window() fyne.Window { return a.win }

// ShowAndRun shows the window and runs the app until it is closed.
func (a *App) ShowAndRun() { a.win.ShowAndRun() }

// SetTheme switches between ThemeSystem, ThemeLight and ThemeDark (kept in
// the app's preferences).
func (a *App) SetTheme(mode string) {
	if mode != ThemeLight && mode != ThemeDark {
		mode = ThemeSystem
	}
	a.themeMode = mode
	a.fa.Preferences().SetString("theme", mode)
	a.fa.Settings().SetTheme(NewTheme(mode))
	if a.themeSel != nil && a.themeSel.Selected != mode {
		a.themeSel.SetSelected(mode)
	}
	// Colours a view set itself (the big figures, the bars' tints) are
	// resolved again in the new theme: none keeps the old theme's.
	if a.running != nil {
		a.running.render()
	}
	// Every widget drawn again in the new theme: Fyne's GL driver kept
	// labels that do not change (the theme bar's) in the old theme's
	// colour when the theme was set at launch.
	if c := a.win.Content(); c != nil {
		c.Refresh()
	}
}

// Shortcuts: start the job and pause / resume it. ShortcutDefault is Ctrl
// on Linux and Windows and Cmd on macOS.
var (
	shortcutStart = &desktop.CustomShortcut{KeyName: fyne.KeyReturn, Modifier: fyne.KeyModifierShortcutDefault}
	shortcutPause = &desktop.CustomShortcut{KeyName: fyne.KeyP, Modifier: fyne.KeyModifierShortcutDefault}
)

func (a *App) addShortcuts() {
	c := a.win.Canvas()
	c.AddShortcut(shortcutStart, func(fyne.Shortcut) { a.offload.start() })
	c.AddShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyEnter, Modifier: fyne.KeyModifierShortcutDefault},
		func(fyne.Shortcut) { a.offload.start() })
	c.AddShortcut(shortcutPause, func(fyne.Shortcut) { a.running.togglePause() })
}

// do runs f on the UI goroutine (fyne.Do). Every widget change made from
// a goroutine (engine events, loaders) goes through here. The lock is
// never contended in the real driver, where fyne.Do already serialises
// on the main goroutine; with Fyne's test driver, which runs f on the
// calling goroutine, it keeps goroutines and the test (locked) from
// touching widgets at once. Code that runs on the UI goroutine (button
// handlers) never calls do.
func (a *App) do(f func()) {
	fyne.Do(func() {
		a.mu.Lock()
		defer a.mu.Unlock()
		f()
	})
}

// keepFresh reads the Offload form's destinations again every
// FreshEvery while the form is the tab shown, until Close.
func (a *App) keepFresh() {
	t := time.NewTicker(a.cfg.FreshEvery)
	defer t.Stop()
	for {
		select {
		case <-a.stopFresh:
			return
		case <-t.C:
			a.do(func() {
				a.jobMu.Lock()
				closing := a.closing
				a.jobMu.Unlock()
				if sel := a.tabs.Selected(); !closing && sel != nil && sel.Content == a.offload.content {
					a.offload.refreshDests()
				}
			})
		}
	}
}

// fileScheme is the URI scheme of a dropped local folder (file://).
const fileScheme = "file"

// goBG runs f in a goroutine that Close waits for.
func (a *App) goBG(f func()) {
	a.bg.Add(1)
	go func() {
		defer a.bg.Done()
		f()
	}()
}

// Close cancels a running job (it can be resumed later) and waits until
// it and every background read of the catalog have ended: call it before
// closing the catalog. It must not be called on the UI goroutine while
// the window runs.
func (a *App) Close() {
	a.jobMu.Lock()
	if !a.closing {
		close(a.stopFresh)
	}
	a.closing = true
	run := a.job
	a.jobMu.Unlock()
	a.locked(func() {
		if a.auto.cancel != nil {
			a.auto.cancel()
		}
		if a.speed != nil {
			a.speed.stop()
		}
	})
	if run != nil {
		run.cancel()
	}
	a.bg.Wait()
}

// track makes run the app's job; it reports false when the app is
// closing (the job must not start).
func (a *App) track(run *jobRun) bool {
	a.jobMu.Lock()
	defer a.jobMu.Unlock()
	a.job = run
	return !a.closing
}

// locked runs f holding the UI lock (tests).
func (a *App) locked(f func()) {
	a.mu.Lock()
	defer a.mu.Unlock()
	f()
}

// showError tells the person, in words, what went wrong.
func (a *App) showError(err error) {
	dialog.ShowError(err, a.win)
}

// selectTab brings a view to the front.
func (a *App) selectTab(content fyne.CanvasObject) {
	for _, t := range a.tabs.Items {
		if t.Content == content {
			a.tabs.Select(t)
		}
	}
}

func (a *App) folderDialog(title string, done func(string)) {
	d := dialog.NewFolderOpen(func(u fyne.ListableURI, err error) {
		if err != nil {
			a.showError(err)
			return
		}
		if u != nil {
			done(u.Path())
		}
	}, a.win)
	d.SetTitleText(title)
	startAt(d, volumesRoot()) // where cards and drives are mounted
	d.Resize(fyne.NewSize(900, 640))
	d.Show()
}

func (a *App) saveDialog(name string, done func(io.WriteCloser, string)) {
	d := dialog.NewFileSave(func(w fyne.URIWriteCloser, err error) {
		if err != nil {
			a.showError(err)
			return
		}
		if w != nil {
			done(w, w.URI().Path())
		}
	}, a.win)
	d.SetFileName(name)
	if home, err := os.UserHomeDir(); err == nil {
		if l, err := storage.ListerForURI(storage.NewFileURI(home)); err == nil {
			d.SetLocation(l)
		}
	}
	d.Resize(fyne.NewSize(900, 640))
	d.Show()
}

func (a *App) openDialog(title string, done func(io.ReadCloser, string)) {
	d := dialog.NewFileOpen(func(r fyne.URIReadCloser, err error) {
		if err != nil {
			a.showError(err)
			return
		}
		if r != nil {
			done(r, r.URI().Path())
		}
	}, a.win)
	d.SetTitleText(title)
	d.Resize(fyne.NewSize(900, 640))
	d.Show()
}

// reveal opens a folder in the desktop's file manager.
func (a *App) reveal(dir string) error {
	if _, err := os.Stat(dir); err != nil {
		return fmt.Errorf("cannot open %s: %w", dir, err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	return a.cfg.OpenURL(&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)})
}
