package tui

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
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

// UI is the interactive front-end before it runs: make it with New, pass UI() as
// session.Options.UI so extensions reach the screen, then call Run.
type UI struct {
	opts  Options
	ext   *extUI
	ready chan struct{} // closed once the program exists
	prog  *tea.Program
	once  sync.Once
}

// New prepares the interactive mode. Extension UI calls made before Run starts are kept and
// applied when the screen comes up; dialogs wait for it.
func New(opts Options) *UI {
	u := &UI{opts: opts, ready: make(chan struct{})}
	u.ext = newExtUI(u)
	return u
}

// Run shows the UI on the terminal and serves the session runtime until the user quits or ctx
// ends; it returns the process exit code (0, or 1 when the terminal could not be driven). It
// does not shut the runtime down (the caller does, so session_shutdown runs after the terminal is
// restored).
func (u *UI) Run(ctx context.Context, rt *session.Runtime) int {
	code, err := u.run(ctx, rt)
	if err != nil {
		fmt.Fprintf(os.Stderr, "Error: interactive mode: %v\n", err)
		return 1
	}
	return code
}

func (u *UI) run(ctx context.Context, rt *session.Runtime) (int, error) {
	o := u.opts
	if os.Getenv("GOMAXPROCS") == "" {
		// The interactive process waits on the network, the terminal and child processes; its
		// goroutines hand every streamed delta to one another. On one P those hand-offs need no
		// wake-up of another OS thread: a 2,000-delta stream costs about a quarter less CPU
		// (bench/tui-vs-pi.sh). A busy goroutine is still preempted within 10 ms, so typing
		// shows within a frame. GOMAXPROCS in the environment overrides this.
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	}
	km, kerr := keys.Load(o.AgentDir)
	th, terr := o.themes().Named(o.Theme)
	cmds := o.Commands
	if cmds == nil {
		cmds = command.Builtins()
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	m := newModel(runCtx, rt, th, km, cmds, o, u.ext)
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
	// a second: its frame ticker has nothing else to do); the screen package paints (only changed lines, in
	// synchronized updates), so the terminal's modes, raw mode and size are ours to manage.
	tt, err := openTTY(o)
	if err != nil {
		return 1, err
	}
	defer tt.restore()
	m.tty = tt
	m.scr = screen.New(tt.out, tt.width, tt.height)
	m.width, m.height = tt.width, tt.height
	if err := m.startScreen(); err != nil {
		return 1, err
	}
	defer func() { _ = m.scr.Stop() }()
	popts := []tea.ProgramOption{tea.WithContext(runCtx), tea.WithoutSignalHandler(), tea.WithoutRenderer(), tea.WithFPS(1), tea.WithInput(tt.in), tea.WithOutput(tt.rawOut)}
	if o.Env != nil {
		popts = append(popts, tea.WithEnvironment(o.Env))
	}
	if path := os.Getenv("ATOMIC_TUI_CPUPROFILE"); path != "" {
		// Diagnostics: a CPU profile of the whole interactive run (bench/ uses it to find hot
		// paths while streaming).
		if f, err := os.Create(path); err == nil {
			if pprof.StartCPUProfile(f) == nil {
				defer func() { pprof.StopCPUProfile(); f.Close() }()
			}
		}
	}
	if path := os.Getenv("ATOMIC_TUI_MEMPROFILE"); path != "" {
		// Diagnostics: the allocations of the whole interactive run, written at exit.
		defer func() {
			if f, err := os.Create(path); err == nil {
				_ = pprof.Lookup("allocs").WriteTo(f, 0)
				f.Close()
			}
		}()
	}
	p := tea.NewProgram(m, popts...)
	u.prog = p
	close(u.ready)

	q := newQueue()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); q.pump(p.Send, done) }()
	unsubscribe := subscribe(rt, q)
	u.ext.attach(p)
	unShutdown := rt.OnShutdownRequest(u.ext.shutdownRequested)
	stopResize := tt.watchResize(p.Send)
	defer stopResize()

	_, err = p.Run()
	unShutdown()
	unsubscribe()
	q.close()
	close(done)
	wg.Wait()
	u.ext.detach()
	cancel()
	m.wait()
	if err != nil && runCtx.Err() == nil {
		return 1, err
	}
	return 0, nil
}
