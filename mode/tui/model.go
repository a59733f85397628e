package tui

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/mode/tui/chat"
	"github.com/atomic-cli/atomic/mode/tui/clipimg"
	"github.com/atomic-cli/atomic/mode/tui/command"
	"github.com/atomic-cli/atomic/mode/tui/component"
	"github.com/atomic-cli/atomic/mode/tui/editor"
	"github.com/atomic-cli/atomic/mode/tui/keys"
	"github.com/atomic-cli/atomic/mode/tui/screen"
	"github.com/atomic-cli/atomic/mode/tui/theme"
	"github.com/atomic-cli/atomic/session"
)

// spinnerFrames and spinnerInterval are the working indicator (tui.md §1.4).
var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

const spinnerInterval = 80 * time.Millisecond

// doublePress is the window for a second Ctrl+C (quit) or Escape (tui.md §3.9).
const doublePress = 500 * time.Millisecond

// pendingItem is a queued steer or follow-up shown above the editor (tui.md §3.8).
type pendingItem struct {
	followUp bool
	text     string
}

// widget is an extension widget's lines (tui.md §7.3).
type widget struct {
	key   string
	lines []string
	comp  ext.Component // a component widget (custom.go); lines unused
	below bool
}

// model is the root Bubble Tea model. It owns the layout and the focus; the transcript, the
// editor and the dialogs own their state. Every field is owned by the Bubble Tea goroutine.
type model struct {
	ctx  context.Context
	rt   *session.Runtime
	sess *session.Session // the session the transcript shows; a different rt.Session() means it was replaced
	opts Options
	th   *theme.Theme
	km   *keys.Map
	cmds *command.Registry
	ext  *extUI

	chat    *chat.Transcript
	ed      *editor.Editor
	dialogs []component.Dialog

	width, height int

	// run state
	prompting     bool // a prompt goroutine of ours is running
	promptIsCmd   bool // that prompt runs an extension command (no working line of its own)
	agentRunning  bool // between agent_start and agent_end
	compacting    bool
	retry         string // retry status line, "" when none
	workingMsg    string // extension working message; "" = default
	workingHidden bool
	spinFrames    []string
	spinEvery     time.Duration
	spinFrame     int
	spinning      bool
	spinDue       time.Time   // when the spinner shows its next frame
	spinTimer     *time.Timer // paints the spinner when no other frame does (armSpinner)
	lastBusyPaint time.Time   // the last frame painted for anything but the spinner
	prompts       []string    // startup prompts still to send
	pending       []pendingItem
	bash          *chat.BashBlock
	bashCancel    context.CancelFunc
	lastCtrlC     time.Time
	// armedCtrlC is the component that declared handlesCtrlC and got the last key, a Ctrl+C:
	// the next Ctrl+C closes it (ctrlCToComponent).
	armedCtrlC *customDialog
	// hardwareCursor shows the terminal cursor where an extension component's focused input put
	// pi-tui's CURSOR_MARKER (ATOMIC_HARDWARE_CURSOR=1 or PI_HARDWARE_CURSOR=1, pi-tui's
	// showHardwareCursor); otherwise it is moved there hidden, for input methods.
	hardwareCursor bool
	lastEsc        time.Time
	quitting       bool
	title          string
	statuses       map[string]string
	widgets        []widget
	comps          compState // extension footer, header (custom.go)
	complete       *completion
	ac             acLoop   // extension autocomplete providers' requests in flight
	fileList       []string // @ completion candidates, listed once per cwd
	fileListDir    string

	images []string // image files pasted into the editor: attached to the prompt naming them

	// Before the runtime is attached (UI.Start): rt is nil; the footer names these.
	preCwd, preModel string
	// held are the keys and pastes typed before the runtime that wait for it (onKeyStarting);
	// completeStale says the completion list was made without it (attach makes it again).
	held          []tea.Msg
	completeStale bool

	// streaming state
	cur   *chat.AssistantBlock
	tools map[string]*chat.ToolBlock

	// footer facts refreshed on session events
	gitBranch   string
	footerCache *footerStats     // nil: recompute
	footerSess  *session.Session // the session footerCache was computed for

	// painting (tui.md §9.3): frames are painted after updates, at most one per frameInterval
	// unless the user typed; a later paint is scheduled when one is due.
	scr          *screen.Screen // nil until Run sets it up (model tests paint nothing)
	tty          *tty
	lastPaint    time.Time
	paintPending bool

	wg sync.WaitGroup // goroutines started by our commands that outlive Update
}

func newModel(ctx context.Context, rt *session.Runtime, th *theme.Theme, km *keys.Map, cmds *command.Registry, o Options, x *extUI) *model {
	home, _ := os.UserHomeDir()
	m := &model{
		ctx: ctx, rt: rt, opts: o, th: th, km: km, cmds: cmds, ext: x,
		width: 80, height: 24, statuses: map[string]string{}, tools: map[string]*chat.ToolBlock{},
		spinFrames: spinnerFrames, spinEvery: spinnerInterval,
		hardwareCursor: os.Getenv("ATOMIC_HARDWARE_CURSOR") == "1" || os.Getenv("PI_HARDWARE_CURSOR") == "1",
	}
	if o.Width > 0 {
		m.setSize(o.Width, o.Height)
	}
	m.chat = chat.New(chat.Env{Theme: th, MD: chat.NewMarkdown(th), Keys: km, Home: home})
	m.ed = editor.New(km)
	x.mirrorTheme(th)
	x.mirrorKeys(km)
	m.prompts = append([]string(nil), o.Prompts...)
	if rt != nil {
		m.rebuild()
	} else {
		m.chat.Append(&chat.LinesBlock{Lines: m.header()})
	}
	for _, w := range o.Warnings {
		m.notice("warning", w)
	}
	return m
}

// wait returns when the goroutines our commands started have ended.
func (m *model) wait() { m.wg.Wait() }

// Init starts the first prompt given on the command line, if any.
func (m *model) Init() tea.Cmd {
	if m.rt == nil {
		return nil // attach starts them
	}
	return tea.Batch(m.nextStartupPrompt(), m.ext.flushCmd())
}

// attach takes the runtime (UI.Run): the transcript shows the session, with the notices shown
// while starting kept after it; the startup prompts (the command line's, then any typed
// meanwhile) are sent one after another.
func (m *model) attach(a attachMsg) tea.Cmd {
	m.rt = a.rt
	m.opts.ContextFiles, m.opts.Extensions = a.contextFiles, a.extension
	if a.theme != "" && a.theme != m.opts.Theme {
		m.opts.Theme = a.theme
		th, err := m.opts.themes().Named(a.theme)
		m.SetTheme(th)
		if err != nil {
			defer m.notice("warning", err.Error())
		}
	}
	early := m.chat.Blocks()
	if len(early) > 0 {
		early = early[1:] // the header is built again
	}
	m.rebuild()
	for _, b := range early {
		m.chat.Append(b)
	}
	m.prompts = append(append([]string(nil), a.prompts...), m.prompts...)
	if m.quitting {
		return nil
	}
	var cmds []tea.Cmd
	if !m.prompting {
		cmds = append(cmds, m.nextStartupPrompt())
	}
	// What was typed meanwhile now acts as it would have once ready: the completion list is
	// made again with the extensions' commands and providers, then the held keys are replayed.
	if m.completeStale && m.keyDialog() == nil {
		m.refreshCompletion(false)
	}
	held := m.held
	m.held = nil
	for _, msg := range held {
		cmds = append(cmds, m.update(msg))
	}
	if len(held) > 0 {
		m.ext.setMirror(m.ed.Value())
	}
	return tea.Batch(cmds...)
}

func (m *model) nextStartupPrompt() tea.Cmd {
	if len(m.prompts) == 0 {
		return nil
	}
	p := m.prompts[0]
	m.prompts = m.prompts[1:]
	return m.submit(p)
}

// working reports whether a prompt, the agent, a compaction or a retry is under way (Escape
// aborts, Enter queues).
func (m *model) working() bool {
	return m.prompting || m.agentRunning || m.compacting || m.retry != ""
}

// showWorking reports whether the working line is shown: while working, except while only an
// extension command runs and no extension set a working message (its dialogs have the screen;
// pi shows its loader from agent_start, so a command that starts the agent shows it then).
func (m *model) showWorking() bool {
	if m.prompting && m.promptIsCmd && m.workingMsg == "" && !m.agentRunning && !m.compacting && m.retry == "" {
		return false
	}
	return m.working()
}

// Update handles one message.
func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.update(msg)
	if m.rt != nil {
		if s := m.rt.Session(); s != m.sess {
			m.rebuild() // the session was replaced (/new, /resume, /fork, reload)
		}
	}
	if _, ok := msg.(tea.KeyPressMsg); ok {
		m.ext.setMirror(m.ed.Value())
	}
	if m.shutdownDue() {
		cmd = tea.Batch(cmd, m.Quit())
	}
	m.ensureSpinner()
	return m, tea.Batch(cmd, m.schedulePaint(msg))
}

// frameSlack is how much sooner than frameInterval after the last frame an update still paints at
// once. Batches of streamed events come a frame apart, but each a little early or late; without
// the slack half of them would wait on a timer of their own for the last microseconds of the
// interval, a wakeup and a goroutine each. Frames stay at least 25 ms apart (tui.md §9.3: ≥16).
const frameSlack = frameInterval / 4

// paintMsg asks for a frame that was held back by the frame interval.
type paintMsg struct{}

// schedulePaint paints the screen after an update: at once for input (a typed key shows within
// the frame it was typed in) and when the last frame is older than frameInterval (less
// frameSlack), otherwise once the interval has passed. Bursts of updates coalesce into one frame.
func (m *model) schedulePaint(msg tea.Msg) tea.Cmd {
	if m.scr == nil || m.quitting {
		return nil
	}
	if _, ok := msg.(paintMsg); ok {
		m.paintPending = false
	}
	now := time.Now()
	since := now.Sub(m.lastPaint)
	switch msg.(type) {
	case tea.KeyPressMsg, tea.PasteMsg, tea.WindowSizeMsg, tea.MouseWheelMsg, paintMsg, spinMsg:
		since = frameInterval
	}
	if since >= frameInterval-frameSlack {
		if _, spin := msg.(spinMsg); !spin {
			m.lastBusyPaint = now
		}
		m.paint()
		m.lastPaint = now
		m.armSpinner(now)
		return nil
	}
	if m.paintPending {
		return nil
	}
	m.paintPending = true
	return tea.Tick(frameInterval-since, func(time.Time) tea.Msg { return paintMsg{} })
}

// paint writes the current frame's changes to the terminal, with the spinner's next frame when
// it is due.
func (m *model) paint() {
	if m.scr == nil {
		return
	}
	if now := time.Now(); m.spinning && !now.Before(m.spinDue) {
		m.spinFrame++
		m.spinDue = m.spinDue.Add(m.spinEvery)
		if !m.spinDue.After(now) {
			m.spinDue = now.Add(m.spinEvery)
		}
	}
	_, _ = m.scr.Paint(m.frame())
}

// startScreen takes over the terminal and paints the first frame.
func (m *model) startScreen() error {
	if err := m.scr.Start(); err != nil {
		return err
	}
	m.paint()
	m.lastPaint = time.Now()
	return nil
}

// releaseTerminal gives the terminal back (before an external program runs or a suspend).
func (m *model) releaseTerminal() {
	if m.scr == nil {
		return
	}
	_ = m.scr.Stop()
	m.tty.restore()
}

// restoreTerminal takes the terminal again after releaseTerminal and repaints everything.
func (m *model) restoreTerminal() {
	if m.scr == nil {
		return
	}
	_ = m.tty.makeRaw()
	if w, h, ok := m.tty.size(); ok {
		m.setSize(w, h)
		m.scr.Resize(w, h)
	}
	_ = m.startScreen()
}

// setSize records the terminal's size, for the screen and for the extension components
// (ComponentHandle.Size, an overlay's visible(width, height)).
func (m *model) setSize(w, h int) {
	m.width, m.height = w, h
	m.ext.cols.Store(int64(w))
	m.ext.rows.Store(int64(h))
}

func (m *model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		if msg.Width <= 0 || msg.Height <= 0 {
			return nil // Bubble Tea's own start-up size when it does not own the terminal
		}
		resized := msg.Width != m.width || msg.Height != m.height
		m.setSize(msg.Width, msg.Height)
		if resized {
			m.refreshOverlays()
		}
		if m.scr != nil {
			m.scr.Resize(msg.Width, msg.Height)
			// The terminal may have cut or reflowed what it showed even when the size ends
			// where it was (narrower and back between two reads): paint every row again.
			m.scr.Invalidate()
		}
		return nil
	case tea.ResumeMsg:
		m.restoreTerminal()
		return nil
	case paintMsg:
		return nil
	case attachMsg:
		return m.attach(msg)
	case eventsMsg:
		var cmds []tea.Cmd
		for _, e := range msg {
			cmds = append(cmds, m.onEvent(e))
		}
		return tea.Batch(cmds...)
	case spinMsg:
		return nil // schedulePaint paints at once; paint advances the spinner
	case promptDoneMsg:
		m.prompting, m.promptIsCmd = false, false
		if msg.err != nil && m.ctx.Err() == nil {
			m.notice("error", msg.err.Error())
		}
		if m.quitting {
			return nil
		}
		return m.nextStartupPrompt()
	case steerDoneMsg:
		if msg.err != nil {
			m.notice("error", msg.err.Error())
			m.dropPending(msg.text)
		}
		return nil
	case bashChunkMsg:
		if msg.b != nil {
			msg.b.Output += msg.text
			m.chat.Touch(msg.b)
		}
		return nil
	case bashDoneMsg:
		m.onBashDone(msg)
		return nil
	case editorDoneMsg:
		if msg.err == nil && msg.ok {
			m.ed.SetText(msg.text)
		} else if msg.err != nil {
			m.notice("error", "External editor: "+msg.err.Error())
		}
		return nil
	case shortcutDoneMsg:
		if msg.err != nil {
			m.notice("error", "Shortcut handler error: "+msg.err.Error())
		}
		return nil
	case command.Do:
		cmd := msg(m)
		m.popDone() // a dialog the message closed gives the keyboard back at once
		return cmd
	case extMsg:
		return msg(m)
	case tea.PasteMsg:
		if d := m.keyDialog(); d != nil {
			if p, ok := d.(component.Paster); ok {
				cmd := p.HandlePaste(msg.Content)
				m.popDone()
				return cmd
			}
			return nil
		}
		if m.rt == nil && len(m.held) > 0 {
			m.held = append(m.held, msg) // after held keys (onKeyStarting)
			return nil
		}
		if path := clipimg.PastedPath(msg.Content); path != "" {
			m.insertImagePath(path) // a dropped image file (tui.md §3.5)
			return nil
		}
		m.ed.Paste(msg.Content)
		m.refreshCompletion(false)
		return nil
	case clipImageMsg:
		switch {
		case errors.Is(msg.err, clipimg.ErrNoImage):
			m.notice("warning", "No image on the clipboard")
		case msg.err != nil:
			m.notice("error", "Paste image: "+msg.err.Error())
		default:
			m.insertImagePath(msg.path)
		}
		return nil
	case tea.KeyPressMsg:
		return m.onKey(msg)
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			m.chat.Scroll(3)
		case tea.MouseWheelDown:
			m.chat.Scroll(-3)
		}
		return nil
	}
	// Timer ticks and loads belong to one dialog each, which need not be the top one (an overlay
	// may float above it): every dialog sees the message and takes its own.
	var cmds []tea.Cmd
	for _, d := range append([]component.Dialog(nil), m.dialogs...) {
		if u, ok := d.(component.Updater); ok {
			cmds = append(cmds, u.Update(msg))
		}
	}
	if len(cmds) > 0 {
		m.popDone()
		return tea.Batch(cmds...)
	}
	return nil
}

// spinMsg asks for a frame because the spinner is due and no other frame showed it.
type spinMsg struct{}

// ensureSpinner starts or stops the spinner with the working state: no timer runs while nothing
// animates, so an idle screen writes nothing (tui.md §9.3).
func (m *model) ensureSpinner() {
	want := m.showWorking() && !m.workingHidden && len(m.spinFrames) > 1 && m.spinEvery > 0
	if want == m.spinning {
		return
	}
	m.spinning = want
	if !want {
		m.stopSpinner()
		return
	}
	now := time.Now()
	m.spinDue = now.Add(m.spinEvery)
	m.armSpinner(now)
}

// stopSpinner stops the spinner's timer; ensureSpinner starts it again when work is shown.
func (m *model) stopSpinner() {
	m.spinning = false
	if m.spinTimer != nil {
		m.spinTimer.Stop()
	}
}

// armSpinner sets the spinner's timer after a frame painted at now. The spinner advances on any
// frame painted once it is due (paint), so while a stream paints a frame every frameInterval its
// timer is given one frame of grace past the due time and never fires: a streamed answer's
// frames carry the spinner, with no wakeup of its own. Without other frames it fires when due.
func (m *model) armSpinner(now time.Time) {
	if !m.spinning || m.quitting || m.ext == nil {
		return
	}
	d := m.spinDue.Sub(now)
	if now.Sub(m.lastBusyPaint) < 2*frameInterval {
		d += frameInterval
	}
	if m.spinTimer == nil {
		x := m.ext
		m.spinTimer = time.AfterFunc(d, func() { x.send(spinMsg{}) })
		return
	}
	m.spinTimer.Reset(d)
}

// popDone removes finished dialogs from the top of the stack.
func (m *model) popDone() {
	for len(m.dialogs) > 0 && m.dialogs[len(m.dialogs)-1].Done() {
		m.dialogs = m.dialogs[:len(m.dialogs)-1]
	}
	// A dialog under the top may have finished (cancelled from outside).
	out := m.dialogs[:0]
	for _, d := range m.dialogs {
		if !d.Done() {
			out = append(out, d)
		}
	}
	m.dialogs = out
}

// notice adds a notice row; consecutive one-line info notices (statuses) collapse into one
// (tui.md §1.5). A block of several lines (/hotkeys, /session, /mcp) is not a status: it stays,
// and the next status does not replace it.
func (m *model) notice(level, text string) {
	if level == "info" && !strings.Contains(text, "\n") {
		if last, ok := m.chat.Last().(*chat.NoticeBlock); ok && last.Level == "info" && !strings.Contains(last.Text, "\n") {
			last.Text = text
			m.chat.Touch(last)
			return
		}
	}
	m.chat.Append(&chat.NoticeBlock{Level: level, Text: text})
}

// rebuild shows the live session from scratch: header, then the entries of its current branch.
func (m *model) rebuild() {
	s := m.rt.Session()
	m.sess = s
	m.chat.Clear()
	m.cur = nil
	m.tools = map[string]*chat.ToolBlock{}
	m.chat.Append(m.headerBlock())
	if m.comps.header != nil {
		if l := m.resourceListing(); len(l) > 0 {
			m.chat.Append(&chat.LinesBlock{Lines: l})
		}
	}
	st := s.Store()
	for _, e := range st.Branch(st.LeafID()) {
		m.addEntry(e)
	}
	m.gitBranch = gitBranch(st.Cwd())
	if m.ext != nil {
		m.ext.mu.Lock()
		m.ext.branchDir = st.Cwd()
		m.ext.mu.Unlock()
		m.ext.setBranch(m.gitBranch)
	}
}

// gitBranch reads the branch of the repository holding dir from .git/HEAD ("" when none or
// detached).
func gitBranch(dir string) string {
	for d := dir; d != ""; {
		b, err := os.ReadFile(filepath.Join(d, ".git", "HEAD"))
		if err == nil && len(b) < 4096 {
			s := strings.TrimSpace(string(b))
			if ref, ok := strings.CutPrefix(s, "ref: refs/heads/"); ok {
				return ref
			}
			return ""
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	return ""
}

// View draws the screen (tui.md §1.1, Atomic's fullscreen layout): the transcript fills what the
// docked bottom stack leaves; the stack is pending messages, the working line, widgets above the
// editor, the editor slot, widgets below the editor and the footer (pi's order).
//
// The screen package paints it (Bubble Tea runs without its renderer); View itself returns an
// empty view for Bubble Tea.
func (m *model) View() tea.View { return tea.View{} }

// frame builds the screen's lines, cursor and title.
func (m *model) frame() screen.Frame {
	w, h := m.width, m.height
	if w < 10 {
		w = 10
	}
	var dock []string
	dock = append(dock, m.pendingLines(w)...)
	if m.showWorking() && !m.workingHidden {
		dock = append(dock, m.workingLine(w))
	}
	above, below := m.widgetLines(w)
	dock = append(dock, above...)
	slotTop := len(dock)
	var slot []string
	curRow, curCol, curOK := 0, 0, false
	curHidden := false
	if d := m.slotDialog(); d != nil {
		slot = d.Render(w)
		if c, ok := d.(component.Cursor); ok {
			curRow, curCol, curOK = c.Cursor()
		}
		if _, ok := d.(*customDialog); ok {
			curHidden = !m.hardwareCursor
		}
	} else {
		m.ed.MaxRows = max(5, h*3/10)
		m.ed.Border = m.editorBorder()
		slot = m.ed.Render(m.th, w)
		curRow, curCol, curOK = m.ed.Cursor()
		slot = append(slot, m.completionLines(w)...)
	}
	foot := m.footerLines(w)
	if len(dock)+len(slot)+len(foot)+len(below) > h {
		// Too short for everything (a tiny terminal, a tall dialog): the editor slot comes first,
		// then the footer, then what stands above the slot nearest to it, then the widgets below.
		focus := -1
		if curOK {
			focus = curRow
		}
		if m.slotDialog() != nil {
			if r := selectedRow(slot, m.th); r >= 0 {
				focus = r // a list's selected row matters more than its search field
			}
		}
		var start int
		dock, slot, foot, below, start = fitDock(dock, slot, foot, below, h, focus)
		curRow -= start
		curOK = curOK && curRow >= 0 && curRow < len(slot)
		slotTop = len(dock)
	}
	dock = append(dock, slot...)
	dock = append(dock, below...) // between the editor and the footer, as pi's layout
	dock = append(dock, foot...)
	th := h - len(dock)
	// A reserving overlay (ReserveTranscriptRows) covers the bottom of the transcript: the
	// transcript ends above it, so its newest rows stay readable and scroll into view.
	covered := min(m.reservedRows(h, th), th)
	lines := m.chat.View(w, th-covered)
	if !m.chat.Following() && th-covered > 0 {
		hint := m.km.Hint(keys.ViewBottom)
		lines[th-covered-1] = m.th.Fg("muted", component.Truncate("── scrolled: "+hint+" to follow the end ──", w, ""))
	}
	for range covered {
		lines = append(lines, "")
	}
	// Transcript lines are clipped when their block renders; clip the dock here.
	for i, l := range dock {
		if component.Width(l) > w {
			dock[i] = component.Truncate(l, w, "")
		}
	}
	lines = append(lines, dock...)
	lines = m.drawOverlays(lines, w, h)
	m.syncFocus()
	f := screen.Frame{Lines: lines, Title: m.windowTitle()}
	if curOK && slotTop+curRow >= 0 {
		f.Cursor, f.CursorRow, f.CursorCol, f.CursorHidden = true, th+slotTop+curRow, curCol, curHidden
	}
	// An overlay with the keys places the cursor at its input's marker (pi-tui moves the
	// hardware cursor there, for input methods; shown only with showHardwareCursor).
	if d, ok := m.keyDialog().(*customDialog); ok && d.overlay {
		if r, c, ok := d.Cursor(); ok && m.overlayShown(d) {
			f.Cursor, f.CursorRow, f.CursorCol, f.CursorHidden = true, d.placedRow+r, d.placedCol+c, !m.hardwareCursor
		}
	}
	return f
}

// reservedRows is how many of the transcript's th rows (from the top of an h-row screen) the
// shown reserving overlays cover, by the height they last drew (tui.md §7.5).
func (m *model) reservedRows(h, th int) int {
	covered := 0
	for _, dl := range m.dialogs {
		d, ok := dl.(*customDialog)
		if !ok || !d.reserve || d.lastH <= 0 || !m.overlayShown(d) {
			continue
		}
		var mg ext.Margin
		if o, ok := m.overlayOpts(d, max(m.width, 10), h); ok && o != nil {
			mg = o.Margin
		}
		top := max(mg.Top, h-mg.Bottom-d.lastH)
		if top < th {
			covered = max(covered, th-max(top, 0))
		}
	}
	return covered
}

// fitDock shortens the docked stack to h rows (frame): the slot keeps up to h rows, a window
// holding its focus row (the cursor's or a list's selected row; -1: its top); the rows left go
// to the footer, then to the rows above the slot nearest to it, then to the widgets below. start
// is the first slot row kept.
func fitDock(above, slot, foot, below []string, h, focus int) (a, s, f, b []string, start int) {
	if len(slot) > h {
		if focus >= h {
			start = min(focus-h/2, len(slot)-h)
		}
		return nil, slot[start : start+h], nil, nil, start
	}
	left := h - len(slot)
	if len(foot) > left {
		foot = foot[:left]
	}
	left -= len(foot)
	if len(above) > left {
		above = above[len(above)-left:]
	}
	left -= len(above)
	if len(below) > left {
		below = below[:left]
	}
	return above, slot, foot, below, 0
}

// selectedRow finds the selected row of a dialog's lines, -1 when none: the built-in lists mark
// it with an accent "→ " or "› " or the selectedBg background (mode/tui/selector, mode/tui/slot).
func selectedRow(lines []string, th *theme.Theme) int {
	acc, sel := th.FgSeq("accent"), th.BgSeq("selectedBg")
	for i, l := range lines {
		if (acc != "" && (strings.Contains(l, acc+"→ ") || strings.Contains(l, acc+"› "))) || (sel != "" && strings.Contains(l, sel)) {
			return i
		}
	}
	return -1
}

func (m *model) editorBorder() string {
	if m.rt == nil {
		return "thinkingOff"
	}
	if strings.HasPrefix(strings.TrimLeft(m.ed.Text(), " "), "!") {
		return "bashMode"
	}
	return theme.ThinkingBorder(m.rt.Session().ThinkingLevel())
}

func (m *model) windowTitle() string {
	if m.title != "" {
		return m.title
	}
	if m.rt == nil {
		return "atomic - " + filepath.Base(m.preCwd)
	}
	base := filepath.Base(m.rt.Session().Store().Cwd())
	if m.footerCache == nil || m.footerSess != m.rt.Session() {
		return "atomic - " + base
	}
	if n := m.footerCache.name; n != "" {
		return "atomic - " + n + " - " + base
	}
	return "atomic - " + base
}

func (m *model) pendingLines(w int) []string {
	var out []string
	for _, p := range m.pending {
		label := "Steering: "
		if p.followUp {
			label = "Follow-up: "
		}
		text := strings.ReplaceAll(p.text, "\n", " ")
		out = append(out, m.th.Fg("dim", component.Truncate(label+text, w, "...")))
	}
	if len(out) > 0 {
		hint := m.km.Hint(keys.MessageDequeue)
		out = append(out, m.th.Fg("dim", component.Truncate("↳ "+hint+" to edit all queued messages", w, "...")))
	}
	return out
}

func (m *model) workingLine(w int) string {
	msg := m.workingMsg
	switch {
	case m.retry != "":
		msg = m.retry
	case m.compacting:
		msg = "Compacting context... (" + m.km.Hint(keys.Interrupt) + " to cancel)"
	case msg == "":
		msg = "Working... (" + m.km.Hint(keys.Interrupt) + " to interrupt)"
	}
	glyph := ""
	if len(m.spinFrames) > 0 {
		glyph = m.th.Fg("accent", m.spinFrames[m.spinFrame%len(m.spinFrames)]) + " "
	}
	return component.Truncate(glyph+m.th.Fg("muted", msg), w, "...")
}

func (m *model) widgetLines(w int) (above, below []string) {
	above = []string{""}
	for _, wd := range m.widgets {
		if wd.comp != nil {
			out := clipLines(wd.comp.Render(w), w)
			if wd.below {
				below = append(below, out...)
			} else {
				above = append(above, out...)
			}
			continue
		}
		lines := wd.lines
		if len(lines) > 10 {
			lines = append(lines[:10:10], m.th.Fg("muted", "... (widget truncated)"))
		}
		var out []string
		for _, l := range lines {
			out = append(out, component.Truncate(" "+l, w, ""))
		}
		if wd.below {
			below = append(below, out...)
		} else {
			above = append(above, out...)
		}
	}
	return above, below
}

// ---- command.Host ----

var _ command.Host = (*model)(nil)

func (m *model) Runtime() *session.Runtime   { return m.rt }
func (m *model) Theme() *theme.Theme         { return m.th }
func (m *model) Keys() *keys.Map             { return m.km }
func (m *model) Size() (int, int)            { return m.width, m.height }
func (m *model) Commands() *command.Registry { return m.cmds }
func (m *model) EditorText() string          { return m.ed.Value() }
func (m *model) SetEditorText(t string)      { m.ed.SetText(t) }
func (m *model) Notify(level, text string)   { m.notice(level, text) }
func (m *model) Reload()                     { m.rebuild() }

func (m *model) Submit(text string) tea.Cmd { return m.submit(text) }
func (m *model) ToolsExpanded() bool        { return m.chat.Env.Expanded }
func (m *model) ShowDialog(d component.Dialog) {
	m.complete = nil
	m.dialogs = append(m.dialogs, d)
}
func (m *model) SetToolsExpanded(on bool) {
	m.chat.Env.Expanded = on
	m.ext.mirrorExpanded(on)
	m.chat.Invalidate()
}
func (m *model) SetTheme(t *theme.Theme) {
	m.th = t
	m.ext.mirrorTheme(t)
	m.chat.Env.Theme = t
	m.chat.Env.MD = chat.NewMarkdown(t)
	m.chat.Invalidate()
	m.invalidateComponents()
}

// ReloadUI implements /reload's part of the screen (tui.md §2.1, §4.1): keybindings.json is read
// again (as at start, a file that cannot be used is a warning and the defaults apply), and a
// current theme read from a file is read again, so its edits show (one that no longer loads is
// a warning and the theme stays).
func (m *model) ReloadUI() {
	km, err := keys.Load(m.opts.AgentDir)
	if km != nil {
		m.km = km
		m.ed.SetKeys(km)
		m.chat.Env.Keys = km
		m.ext.mirrorKeys(km)
		m.chat.Invalidate()
	}
	if err != nil {
		m.notice("warning", err.Error())
	}
	if m.th.Path != "" {
		th, err := theme.Load(m.th.Path)
		if err != nil {
			m.notice("warning", err.Error())
		} else {
			m.SetTheme(th)
		}
	}
}

// Quit aborts any run and ends the program; the caller shuts the session down after the terminal
// is restored.
func (m *model) Quit() tea.Cmd {
	m.quitting = true
	m.stopSpinner()
	if m.rt != nil {
		m.rt.Session().Abort()
	}
	if m.bashCancel != nil {
		m.bashCancel()
	}
	return tea.Quit
}
