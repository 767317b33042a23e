package ui

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/dit-org/dit/internal/devices"
	"github.com/dit-org/dit/internal/units"
	"github.com/dit-org/dit/raid"
)

// memberStatus is one blade of an array.
type memberStatus struct {
	Role   int
	Parity bool
	State  string // active, missing, failed, rebuilding (missing also when not found now)
	Dir    string // where it is now ("" when not found)
	Hint   string // where it was last seen
	Free   uint64
	// Drive is the health its drive reports (devices.HealthOfAll; nil
	// until asked).
	Drive *devices.Health
}

func (m memberStatus) text() string {
	role := fmt.Sprintf("blade %d (data)", m.Role)
	if m.Parity {
		role = fmt.Sprintf("blade %d (parity)", m.Role)
	}
	if m.Dir == "" {
		return fmt.Sprintf("%s: %s, last seen at %s", role, m.State, m.Hint)
	}
	txt := fmt.Sprintf("%s: %s, %s free, %s", role, m.State, units.FormatBytes(int64(min(m.Free, 1<<62))), m.Dir)
	switch m.Drive.State() {
	case devices.DriveOK:
		txt += "; drive ok"
	case devices.DriveWarning:
		txt += "; drive WARNING: " + m.Drive.Reason()
	default:
		if m.Drive != nil {
			txt += "; drive health unknown"
		}
	}
	return txt
}

// arrayStatus is a dit array as the views show it.
type arrayStatus struct {
	Dir        string
	Label      string
	UUID       string
	Level      string
	K          int
	StripeUnit int64
	Members    []memberStatus
	Free       uint64 // logical bytes that still fit
	Files      int
	Rebuild    string
	// Health is the array's health as dit array status says it (members,
	// files without redundancy, the health record's damaged units); nil:
	// from the members only.
	Health *raid.Health
	// DrivesRead: the blades' drives were asked for their health.
	DrivesRead bool
}

// loadArrayStatus assembles the array of blade folder dir (more: other
// blade folders of it found here, for blades that moved since it was
// last opened) read-only and
// describes it (I/O: call off the UI goroutine).
func loadArrayStatus(dir string, more ...string) (*arrayStatus, error) {
	a, err := raid.Open([]string{dir}, raid.OpenOptions{Blades: more})
	if err != nil {
		return nil, err
	}
	defer a.Close()
	sb := a.Superblock()
	st := &arrayStatus{Dir: dir, Label: sb.ArrayLabel, UUID: sb.ArrayUUID, Level: sb.Level, K: sb.DataBlades,
		StripeUnit: sb.StripeUnit, Files: len(a.Files())}
	h := a.Health()
	st.Health = &h
	free := a.BladeFree()
	for _, m := range sb.Members {
		ms := memberStatus{Role: m.Role, Parity: m.Role >= sb.DataBlades, State: m.State, Dir: a.BladeDir(m.Role), Hint: m.PathHint}
		if ms.Dir == "" {
			ms.State = raid.MemberMissing
		}
		if m.Role < len(free) {
			ms.Free = free[m.Role]
		}
		st.Members = append(st.Members, ms)
	}
	if f, err := a.Free(); err == nil {
		st.Free = f
	}
	if sb.Rebuild != nil {
		st.Rebuild = fmt.Sprintf("blade %d was being rebuilt (%d files done): rebuild it again to finish", sb.Rebuild.Role, sb.Rebuild.FilesDone)
	}
	return st, nil
}

func (s *arrayStatus) levelText() string {
	switch raid.Level(s.Level) {
	case raid.RAID4:
		return fmt.Sprintf("RAID 4, %d blades", len(s.Members))
	case raid.RAID0:
		return fmt.Sprintf("RAID 0, %d blades", len(s.Members))
	}
	return s.Level
}

// missing lists the roles not active now.
func (s *arrayStatus) missing() []int {
	var out []int
	for _, m := range s.Members {
		if m.State != raid.MemberActive {
			out = append(out, m.Role)
		}
	}
	return out
}

// health says in words whether every blade is there and every file
// reads with its redundancy.
func (s *arrayStatus) health() string {
	miss := s.missing()
	damage := s.damage()
	if len(miss) == 0 {
		if damage == "" {
			return "healthy"
		}
		return damage
	}
	var names []string
	for _, r := range miss {
		names = append(names, fmt.Sprintf("blade %d %s", r, s.Members[r].State))
	}
	txt := "FAILED (" + strings.Join(names, ", ") + "): files cannot be read"
	if raid.Level(s.Level) == raid.RAID4 && len(miss) == 1 {
		txt = "DEGRADED (" + strings.Join(names, ", ") + "): every file is still readable; replace the blade"
	}
	if damage != "" && s.Health.DamagedUnits > 0 {
		txt += "\n" + damage
	}
	return txt
}

// damage says what the health says beyond the members: files that cannot
// be read or lack redundancy, and the damaged units a scrub or a read
// found ("" when nothing).
func (s *arrayStatus) damage() string {
	h := s.Health
	if h == nil || h.Healthy() {
		return ""
	}
	names := func(files []string) string {
		if len(files) > 3 {
			return strings.Join(files[:3], ", ") + fmt.Sprintf(" and %d more", len(files)-3)
		}
		return strings.Join(files, ", ")
	}
	units := ""
	if h.DamagedUnits > 0 {
		units = fmt.Sprintf("; %d damaged unit(s) found by a scrub or a read", h.DamagedUnits)
	}
	switch {
	case len(h.Lost) > 0:
		return fmt.Sprintf("FAILED: %s lost (%s): copy them again from the card or a backup", plural(len(h.Lost), "file"), names(h.Lost))
	case len(h.Unreadable) > 0:
		return fmt.Sprintf("%s: %s cannot be read (%s)%s: copy them again from the card or a backup",
			strings.ToUpper(h.State), plural(len(h.Unreadable), "file"), names(h.Unreadable), units)
	case len(h.Unprotected) > 0:
		return fmt.Sprintf("DEGRADED: %s without redundancy (%s)%s: every file is still readable; scrub and repair",
			plural(len(h.Unprotected), "file"), names(h.Unprotected), units)
	}
	return ""
}

// arrayView shows a dit array's blades and their free space, and runs a
// scrub or a rebuild with its progress.
type arrayView struct {
	a       *App
	content fyne.CanvasObject
	// list: the arrays known here (and the field that opens one by a
	// blade folder's path); newBlade: the folder a blade is rebuilt onto.
	list     *arrayList
	newBlade *pathField

	dir string
	// more are the other blade folders of the array open that the list
	// found here (blades that moved since it was last opened: their
	// superblocks' hints name where they were).
	more     []string
	st       *arrayStatus
	info     *widget.Label
	members  *fyne.Container
	drives   *fyne.Container
	progress *widget.ProgressBar
	opLabel  *widget.Label
	result   *widget.Label
	scrubBtn *widget.Button
	repairBt *widget.Button
	roleSel  *widget.Select
	rebuild  *widget.Button
	speedBtn *widget.Button
	busy     bool
	opName   string
	// ops counts the view's goroutines. App.Close does not wait for them
	// (a scrub may take hours and is safe to stop; a rebuild resumes
	// where it stopped); tests do.
	ops sync.WaitGroup
}

// goOp runs f in a goroutine counted by ops.
func (v *arrayView) goOp(f func()) {
	v.ops.Add(1)
	go func() {
		defer v.ops.Done()
		f()
	}()
}

func newArrayView(a *App) *arrayView {
	v := &arrayView{a: a}
	v.list = newArrayList(v)
	v.info = widget.NewLabel("Open an array from the list above, or by the path of one of its blade folders.")
	v.info.Wrapping = fyne.TextWrapWord
	v.members = container.NewVBox()
	v.drives = container.NewVBox()
	v.progress = widget.NewProgressBar()
	v.progress.Hide()
	v.opLabel = widget.NewLabel("")
	v.result = widget.NewLabel("")
	v.result.Wrapping = fyne.TextWrapWord
	v.list.open = a.newPathField("A blade folder's path: /Volumes/Blade1", "Open", "Choose folder...", "A blade folder of the array", v.openArray)
	v.list.open.use.SetIcon(theme.StorageIcon())
	v.scrubBtn = widget.NewButtonWithIcon("Scrub (check only)", theme.SearchIcon(), func() { v.scrub(false) })
	v.repairBt = widget.NewButtonWithIcon("Scrub and repair", theme.ViewRefreshIcon(), func() { v.scrub(true) })
	v.roleSel = widget.NewSelect(nil, nil)
	v.roleSel.PlaceHolder = "blade to rebuild"
	// Replace a blade: rebuild it onto an empty folder, typed or chosen.
	v.newBlade = a.newPathField("An empty folder for the new blade", "Rebuild onto it", "", "", func(dir string) {
		if role, ok := v.roleToRebuild(); ok {
			v.replace(role, dir)
		}
	})
	v.rebuild = widget.NewButtonWithIcon("Rebuild onto a new folder...", theme.StorageIcon(), func() {
		if role, ok := v.roleToRebuild(); ok {
			a.cfg.ChooseFolder(fmt.Sprintf("An empty folder for blade %d", role), func(dir string) { v.replace(role, dir) })
		}
	})
	v.speedBtn = a.speedButton(func() speedTarget {
		return arrayTarget(v.dir, v.st)
	})
	v.setEnabled()
	refresh := widget.NewButtonWithIcon("Look again", theme.ViewRefreshIcon(), v.list.reload)
	ops := container.NewHBox(v.scrubBtn, v.repairBt, widget.NewSeparator(), v.speedBtn)
	replace := container.NewBorder(nil, nil, container.NewHBox(widget.NewLabel("Replace"), v.roleSel), v.rebuild, v.newBlade.box)
	v.content = container.NewPadded(container.NewVScroll(container.NewVBox(
		container.NewHBox(heading("Arrays"), refresh), v.list.note, v.list.box, widget.NewSeparator(),
		heading("Array"), v.list.open.box, v.info, v.members, v.drives, widget.NewSeparator(),
		ops, replace, v.opLabel, v.progress, v.result)))
	return v
}

// roleToRebuild is the blade chosen to rebuild, or false (said in the
// result line) when none is.
func (v *arrayView) roleToRebuild() (int, bool) {
	role, err := v.selectedRole()
	if err != nil {
		v.result.SetText(err.Error())
		return 0, false
	}
	return role, true
}

func (v *arrayView) setEnabled() {
	for _, b := range []*widget.Button{v.scrubBtn, v.repairBt, v.rebuild, v.speedBtn, v.newBlade.use} {
		if v.st == nil || v.busy {
			b.Disable()
		} else {
			b.Enable()
		}
	}
}

// openArray shows the array of a blade folder (UI goroutine; read in the
// background).
func (v *arrayView) openArray(dir string) { v.openBlades(dir, nil) }

// openBlades shows the array of blade folder dir, more other blade
// folders of it (UI goroutine; read in the background).
func (v *arrayView) openBlades(dir string, more []string) {
	v.dir, v.more = filepath.Clean(dir), more
	v.info.SetText("Reading " + v.dir + "...")
	d := v.dir
	v.goOp(func() { v.load(d, more) })
}

// load reads the array of blade folder dir (and more) off the UI
// goroutine and shows it, unless another array was opened meanwhile.
func (v *arrayView) load(dir string, more []string) {
	st, err := loadArrayStatus(dir, more...)
	v.a.do(func() {
		if v.dir != dir {
			return
		}
		if err != nil {
			v.st = nil
			v.info.SetText(fmt.Sprintf("%s: %v", dir, err))
			v.info.Importance = widget.DangerImportance
			v.members.RemoveAll()
			v.drives.RemoveAll()
			v.setEnabled()
			return
		}
		v.render(st)
		v.goOp(func() { v.loadDrives(st) })
	})
}

// loadDrives asks the drives of st's blades for their health (off the UI
// goroutine: smartctl, bounded by devices.HealthTimeout) and shows it,
// unless another array was read meanwhile.
func (v *arrayView) loadDrives(st *arrayStatus) {
	ms := v.a.askDrives(st)
	v.a.do(func() {
		if v.st != st {
			return
		}
		st.Members, st.DrivesRead = ms, true
		v.renderDrives()
	})
}

// askDrives asks the drives of st's blades for their health (I/O: off
// the UI goroutine): a copy of st's members with their Drive set.
func (a *App) askDrives(st *arrayStatus) []memberStatus {
	var idx []int
	var folders []string
	for i, m := range st.Members {
		if m.Dir != "" {
			idx, folders = append(idx, i), append(folders, m.Dir)
		}
	}
	ctx := context.Background()
	vols, _ := a.cfg.Discover(ctx)
	hs := devices.HealthOfAll(ctx, vols, folders, a.cfg.SMART)
	ms := append([]memberStatus(nil), st.Members...)
	for j, h := range hs {
		ms[idx[j]].Drive = h
	}
	return ms
}

// driveText is a blade's drive health in words, and how it reads.
func driveText(m memberStatus, read bool) (string, widget.Importance) {
	head := fmt.Sprintf("Blade %d drive: ", m.Role)
	h := m.Drive
	switch {
	case m.Dir == "":
		return head + "unknown: the blade is not here", widget.MediumImportance
	case !read:
		return head + "asking it for its health (smartctl)...", widget.MediumImportance
	}
	switch h.State() {
	case devices.DriveOK:
		return head + "ok: " + h.Reason(), widget.SuccessImportance
	case devices.DriveWarning:
		return head + "WARNING: " + h.Reason() + ": copy what it holds elsewhere and replace it (rebuild the blade onto a new drive)", widget.WarningImportance
	}
	return head + "unknown: " + h.Reason(), widget.MediumImportance
}

// renderDrives shows each blade's drive health (UI goroutine).
func (v *arrayView) renderDrives() {
	v.drives.RemoveAll()
	if v.st == nil {
		return
	}
	for _, m := range v.st.Members {
		txt, imp := driveText(m, v.st.DrivesRead)
		l := widget.NewLabel(txt)
		l.Wrapping = fyne.TextWrapWord
		l.Importance = imp
		v.drives.Add(l)
	}
}

func (v *arrayView) render(st *arrayStatus) {
	v.st = st
	txt := fmt.Sprintf("%q, %s, stripe unit %s, %s, %s free\nHealth: %s",
		st.Label, st.levelText(), units.FormatBytes(st.StripeUnit), plural(st.Files, "file"),
		units.FormatBytes(int64(min(st.Free, 1<<62))), st.health())
	if st.Rebuild != "" {
		txt += "\n" + st.Rebuild
	}
	v.info.SetText(txt)
	v.info.Importance = widget.SuccessImportance
	if len(st.missing()) > 0 || (st.Health != nil && !st.Health.Healthy()) {
		v.info.Importance = widget.DangerImportance
	}
	v.info.Refresh()
	v.members.RemoveAll()
	grid := container.New(newRowsLayout(4))
	var roles []string
	for _, m := range st.Members {
		kind := "data"
		if m.Parity {
			kind = "parity"
		}
		state := widget.NewLabel(m.State)
		if m.State != raid.MemberActive {
			state.Importance = widget.DangerImportance
		} else {
			state.Importance = widget.SuccessImportance
		}
		where := m.Dir
		free := units.FormatBytes(int64(min(m.Free, 1<<62))) + " free"
		if where == "" {
			where, free = "last seen at "+m.Hint, "-"
		}
		wl := widget.NewLabel(where)
		wl.Truncation = fyne.TextTruncateEllipsis
		grid.Add(widget.NewLabelWithStyle(fmt.Sprintf("Blade %d (%s)", m.Role, kind), fyne.TextAlignLeading, fyne.TextStyle{Bold: true}))
		grid.Add(state)
		grid.Add(widget.NewLabel(free))
		grid.Add(wl)
		roles = append(roles, "blade "+strconv.Itoa(m.Role))
	}
	v.members.Add(grid)
	v.renderDrives()
	v.roleSel.Options = roles
	if miss := st.missing(); len(miss) > 0 {
		v.roleSel.SetSelected("blade " + strconv.Itoa(miss[0]))
	}
	v.roleSel.Refresh()
	v.setEnabled()
}

func (v *arrayView) selectedRole() (int, error) {
	if v.roleSel.Selected == "" {
		return 0, errors.New("choose the blade to rebuild")
	}
	return strconv.Atoi(strings.TrimPrefix(v.roleSel.Selected, "blade "))
}

// scrub reads every unit of every file and checks hashes and parity;
// with repair it rewrites what it can prove (UI goroutine; runs in the
// background with its progress).
func (v *arrayView) scrub(repair bool) {
	if v.st == nil || v.busy {
		return
	}
	dir, more := v.dir, v.more
	what := "Scrub"
	if repair {
		what = "Scrub and repair"
	}
	v.startOp(what + " of " + dir)
	v.goOp(func() {
		a, err := raid.Open([]string{dir}, raid.OpenOptions{ReadWrite: repair, AllowDegraded: true, Blades: more, Writer: "dit-gui " + v.a.cfg.Version})
		var rep *raid.ScrubReport
		if err == nil {
			rep, err = a.Scrub(repair, nil, v.progressFunc())
			if cerr := a.Close(); err == nil {
				err = cerr
			}
		}
		v.a.do(func() {
			v.endOp()
			if err != nil {
				v.result.SetText(what + " failed: " + err.Error())
				v.result.Importance = widget.DangerImportance
				v.result.Refresh()
				return
			}
			v.result.SetText(scrubText(what, rep))
			v.result.Importance = widget.SuccessImportance
			if !rep.Clean() {
				v.result.Importance = widget.DangerImportance
			}
			v.result.Refresh()
		})
		v.load(dir, more)
		v.a.do(v.list.reload) // its health in the list too
	})
}

// scrubText says what a scrub found.
func scrubText(what string, rep *raid.ScrubReport) string {
	if rep.Clean() {
		return fmt.Sprintf("%s finished: clean. %s, %s read, every unit and parity checked.", what, plural(rep.Files, "file"), units.FormatBytes(rep.Bytes))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s finished: %s found in %s, %d repaired.", what, plural(len(rep.Issues), "issue"), plural(rep.Files, "file"), rep.Repaired)
	for i, is := range rep.Issues {
		if i == 30 {
			fmt.Fprintf(&b, "\n... and %d more", len(rep.Issues)-30)
			break
		}
		fmt.Fprintf(&b, "\n%s: %s", is.Kind, is.Path)
		if is.Blade != "" {
			fmt.Fprintf(&b, " on %s", is.Blade)
		}
		if is.Repaired {
			b.WriteString(" (repaired)")
		}
	}
	if len(rep.Damaged) > 0 {
		fmt.Fprintf(&b, "\nDamaged, not repaired: %s", strings.Join(rep.Damaged, ", "))
	}
	return b.String()
}

// replace rebuilds a blade onto an empty folder (UI goroutine; runs in
// the background with its progress).
func (v *arrayView) replace(role int, newDir string) {
	if v.st == nil || v.busy {
		return
	}
	dir, more := v.dir, v.more
	what := fmt.Sprintf("Rebuild of blade %d onto %s", role, newDir)
	v.startOp(what)
	v.goOp(func() {
		a, err := raid.Open([]string{dir}, raid.OpenOptions{ReadWrite: true, AllowDegraded: true, Blades: more, Writer: "dit-gui " + v.a.cfg.Version})
		if err == nil {
			err = a.Replace(role, newDir, v.progressFunc())
			if cerr := a.Close(); err == nil {
				err = cerr
			}
		}
		v.a.do(func() {
			v.endOp()
			if err != nil {
				v.result.SetText(what + " failed: " + err.Error())
				v.result.Importance = widget.DangerImportance
			} else {
				v.result.SetText(what + " finished: the blade is active.")
				v.result.Importance = widget.SuccessImportance
			}
			v.result.Refresh()
		})
		v.load(dir, more)
		v.a.do(v.list.reload) // its health in the list too
	})
}

func (v *arrayView) startOp(what string) {
	v.busy = true
	v.opName = what
	v.setEnabled()
	v.opLabel.SetText(what + "...")
	v.result.SetText("")
	v.progress.SetValue(0)
	v.progress.Show()
}

func (v *arrayView) endOp() {
	v.busy = false
	v.setEnabled()
	v.opLabel.SetText("")
	v.progress.Hide()
}

// progressFunc reports files done to the progress bar.
func (v *arrayView) progressFunc() func(done, total int) {
	return func(done, total int) {
		if total <= 0 {
			return
		}
		f := float64(done) / float64(total)
		v.a.do(func() {
			v.progress.SetValue(f)
			v.opLabel.SetText(fmt.Sprintf("%s: %d of %d files", v.opName, done, total))
		})
	}
}
