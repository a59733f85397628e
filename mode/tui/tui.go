package tui

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/mode/tui/command"
	"github.com/atomic-cli/atomic/mode/tui/keys"
	"github.com/atomic-cli/atomic/mode/tui/screen"
	"github.com/atomic-cli/atomic/mode/tui/theme"
	"github.com/atomic-cli/atomic/session"
)

// Options configure the interactive mode.
type Options struct {
	// Version is shown in the header.
	Version string
	// AgentDir is <agentDir>: keybindings.json, themes/, the prompt history.
	AgentDir string
	// Theme names the theme ("dark" when empty); unknown names fall back to dark with a warning.
	Theme string
	// ThemePaths are custom theme files or directories besides <AgentDir>/themes (project,
	// packages, settings, --theme, resources_discover); NoThemes (--no-themes) skips
	// <AgentDir>/themes.
	ThemePaths []string
	NoThemes   bool
	// Prompts are sent one after another once the screen is up (`atomic "first prompt"`).
	Prompts []string
	// ContextFiles and Extensions are listed in the header (tui.md §1.2).
	ContextFiles []string
	Extensions   []string
	// Warnings are shown as warnings in the transcript at start.
	Warnings []string
	// Commands is the slash-command registry; nil uses command.Builtins().
	Commands *command.Registry
	// In and Out are the terminal; nil uses the process's stdin and stdout.
	In  io.Reader
	Out io.Writer
	// Env is the environment (TERM, COLORTERM, NO_COLOR…); nil uses os.Environ().
	Env []string
	// Width and Height fix the initial size (tests); 0 asks the terminal.
	Width, Height int
}

// SetStartup sets what is known only once the runtime exists: the prompts to send once the
// screen is up, and the context files and extensions the header lists. Call it before Run.
func (u *UI) SetStartup(prompts, contextFiles, extensions []string) {
	u.opts.Prompts, u.opts.ContextFiles, u.opts.Extensions = prompts, contextFiles, extensions
}

// SetTheme names the theme to start with (the settings' "theme"); call it before Run.
func (u *UI) SetTheme(name string) { u.opts.Theme = name }

// SetThemeSources sets Options.ThemePaths and NoThemes; call it before Run.
func (u *UI) SetThemeSources(paths []string, noThemes bool) {
	u.opts.ThemePaths, u.opts.NoThemes = paths, noThemes
}

// themes is where the UI finds themes.
func (o Options) themes() theme.Sources {
	return theme.Sources{AgentDir: o.AgentDir, Paths: o.ThemePaths, NoDiscovery: o.NoThemes}
}

// ExtensionUI is ctx.ui for extensions in interactive mode: pass it as session.Options.UI.
func (u *UI) ExtensionUI() ext.UI { return u.ext }

// UI is the interactive front-end: make it with New, pass ExtensionUI() as session.Options.UI
// so extensions reach the screen, optionally Start it before the runtime exists, then Run it.
type UI struct {
	opts Options
	ext  *extUI
	prog *tea.Program

	// set by Start
	started  bool
	startErr error
	m        *model
	tt       *tty
	runCtx   context.Context
	cancel   context.CancelFunc
	progDone chan struct{} // closed when the Bubble Tea program has ended
	progErr  error
	cleanup  []func() // run in reverse order when Run returns
}

// New prepares the interactive mode. Extension UI calls made before Run starts are kept and
// applied when the runtime is attached; dialogs wait for it.
func New(opts Options) *UI {
	u := &UI{opts: opts}
	u.ext = newExtUI(u)
	return u
}

// Run shows the UI on the terminal (Start, unless it was called) and serves the session runtime
// until the user quits or ctx ends; it returns the process exit code (0, or 1 when the terminal
// could not be driven). It does not shut the runtime down (the caller does, so session_shutdown
// runs after the terminal is restored).
func (u *UI) Run(ctx context.Context, rt *session.Runtime) int {
	code, err := u.run(ctx, rt)
	if err != nil {
		fmt.Fprintf(os.Stderr, "Error: interactive mode: %v\n", err)
		return 1
	}
	return code
}

// Start takes over the terminal and paints the first frame before the session runtime exists
// (issue 11: first frame within 30 ms of exec; the editor takes keys while extensions load): the
// header, the editor, and a footer naming cwd and model. Until Run attaches the runtime, typed
// text is edited normally and a submitted prompt waits for the runtime; Ctrl+C twice or Ctrl+D
// quits. Calling it again does nothing. It returns an error when the terminal cannot be driven.
func (u *UI) Start(cwd, modelLabel string) error {
	if u.started {
		return u.startErr
	}
	u.started = true
	u.startErr = u.start(cwd, modelLabel)
	return u.startErr
}

func (u *UI) start(cwd, modelLabel string) error {
	o := u.opts
	if os.Getenv("GOMAXPROCS") == "" {
		// The interactive process waits on the network, the terminal and child processes; its
		// goroutines hand every streamed delta to one another. On one P those hand-offs need no
		// wake-up of another OS thread: a 2,000-delta stream costs about a quarter less CPU
		// (bench/tui-vs-pi.sh). A busy goroutine is still preempted within 10 ms, so typing
		// shows within a frame. GOMAXPROCS in the environment overrides this.
		prev := runtime.GOMAXPROCS(1)
		u.cleanup = append(u.cleanup, func() { runtime.GOMAXPROCS(prev) })
	}
	if path := os.Getenv("ATOMIC_TUI_CPUPROFILE"); path != "" {
		// Diagnostics: a CPU profile of the whole interactive run (bench/ uses it to find hot
		// paths while streaming).
		if f, err := os.Create(path); err == nil {
			if pprof.StartCPUProfile(f) == nil {
				u.cleanup = append(u.cleanup, func() { pprof.StopCPUProfile(); f.Close() })
			}
		}
	}
	if path := os.Getenv("ATOMIC_TUI_MEMPROFILE"); path != "" {
		// Diagnostics: the allocations of the whole interactive run, written at exit.
		u.cleanup = append(u.cleanup, func() {
			if f, err := os.Create(path); err == nil {
				_ = pprof.Lookup("allocs").WriteTo(f, 0)
				f.Close()
			}
		})
	}
	km, kerr := keys.Load(o.AgentDir)
	th, terr := o.themes().Named(o.Theme)
	cmds := o.Commands
	if cmds == nil {
		cmds = command.Builtins()
	}
	u.runCtx, u.cancel = context.WithCancel(context.Background())
	u.cleanup = append(u.cleanup, u.cancel)
	m := newModel(u.runCtx, nil, th, km, cmds, o, u.ext)
	m.preCwd, m.preModel = cwd, modelLabel
	u.m = m
	for _, err := range []error{kerr, terr} {
		if err != nil {
			m.notice("warning", err.Error())
		}
	}
	if o.AgentDir != "" {
		if err := m.ed.LoadHistory(filepath.Join(o.AgentDir, "prompt-history.jsonl")); err != nil {
			m.notice("warning", err.Error())
		}
	}
	// Bubble Tea reads and decodes the input and writes terminal requests (OSC 52 for /copy, once
	// a second: its frame ticker has nothing else to do); the screen package paints (only
	// changed lines, in synchronized updates), so the terminal's modes, raw mode and size are
	// ours to manage.
	tt, err := openTTY(o)
	if err != nil {
		return err
	}
	u.tt = tt
	u.cleanup = append(u.cleanup, tt.restore)
	m.tty = tt
	m.scr = screen.New(tt.out, tt.width, tt.height)
	m.setSize(tt.width, tt.height)
	if err := m.startScreen(); err != nil {
		return err
	}
	u.cleanup = append(u.cleanup, func() { _ = m.scr.Stop() })
	popts := []tea.ProgramOption{tea.WithContext(u.runCtx), tea.WithoutSignalHandler(), tea.WithoutRenderer(), tea.WithFPS(1), tea.WithInput(tt.in), tea.WithOutput(tt.rawOut)}
	if o.Env != nil {
		popts = append(popts, tea.WithEnvironment(o.Env))
	}
	p := tea.NewProgram(m, popts...)
	u.prog = p
	u.cleanup = append(u.cleanup, tt.watchResize(p.Send))
	u.progDone = make(chan struct{})
	go func() {
		defer close(u.progDone)
		_, u.progErr = p.Run()
	}()
	return nil
}

// attachMsg hands the runtime to the model, with what became known while it started.
type attachMsg struct {
	rt                               *session.Runtime
	prompts, contextFiles, extension []string
	theme                            string
}

func (u *UI) run(ctx context.Context, rt *session.Runtime) (int, error) {
	var exitText string
	defer func() {
		for i := len(u.cleanup) - 1; i >= 0; i-- {
			u.cleanup[i]()
		}
		u.cleanup = nil
		if exitText != "" && u.tt != nil {
			_, _ = io.WriteString(u.tt.out, exitText)
		}
	}()
	if err := u.Start("", ""); err != nil {
		return 1, err
	}
	stop := context.AfterFunc(ctx, u.cancel)
	defer stop()
	p, m := u.prog, u.m
	o := u.opts
	q := newQueue()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); q.pump(p.Send, done) }()
	// The runtime reaches the model before any of its events (p.Send is in order).
	p.Send(attachMsg{rt: rt, prompts: o.Prompts, contextFiles: o.ContextFiles, extension: o.Extensions, theme: o.Theme})
	unsubscribe := subscribe(rt, q)
	u.ext.attach(p)
	p.Send(extMsg(func(m *model) tea.Cmd { return m.ext.flushCmd() }))
	unShutdown := rt.OnShutdownRequest(u.ext.shutdownRequested)

	<-u.progDone
	failed := u.progErr != nil && u.runCtx.Err() == nil && ctx.Err() == nil
	unShutdown()
	unsubscribe()
	q.close()
	close(done)
	wg.Wait()
	u.ext.detach()
	u.cancel()
	m.wait()
	if failed {
		return 1, u.progErr
	}
	exitText = m.exitOutput()
	return 0, nil
}

// exitTranscriptLines bounds how much of the transcript exitOutput prints.
const exitTranscriptLines = 2000

// exitOutput is what stays on the terminal's main screen after the UI leaves its alternate
// screen (Atomic's fullscreenExitOutput "transcript", its default): the end of the transcript as
// it was shown (at most exitTranscriptLines lines), so the conversation stays in view and in the
// scrollback as pi leaves it, then how to resume the session when it has a file.
func (m *model) exitOutput() string {
	var b strings.Builder
	lines := m.chat.ViewAll(m.width, exitTranscriptLines)
	for _, l := range lines {
		b.WriteString(l)
		b.WriteString("\x1b[0m\n")
	}
	if m.rt != nil {
		if st := m.rt.Session().Store(); st.SessionFile() != "" {
			b.WriteString("\n" + m.th.Fg("dim", "Resume this session with: atomic -r "+st.SessionID()) + "\n")
		}
	}
	return b.String()
}
