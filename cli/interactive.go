package cli

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/llm"
	printmode "github.com/atomic-cli/atomic/mode/print"
	"github.com/atomic-cli/atomic/mode/tui"
	"github.com/atomic-cli/atomic/resource"
	"github.com/atomic-cli/atomic/session"
)

// interactiveFront is the terminal UI (mode/tui), chosen for a terminal without -p or --mode:
// `atomic`, `atomic "first prompt"`, -c, -r, -e. The prompts of the command line are sent one
// after another once the screen is up.
type interactiveFront struct {
	screen *tui.UI
	stderr *screenStderr // atomic's stderr, kept off the screen while it is up
}

// routeStderr implements stderrRouter: while the screen is up, stderr lines (warnings, the
// extension host's output) are logged and shown as notifications instead of tearing the screen.
func (f *interactiveFront) routeStderr(stderr io.Writer) (io.Writer, func()) {
	f.stderr = &screenStderr{term: stderr}
	return f.stderr, f.stderr.detach
}

// stderrNotice turns one stderr line into a notification's text and level. Lines atomic writes
// already carry their level ("Warning: …", "Error: …"); the notification draws that prefix
// itself, so it is taken off here instead of showing twice. Other lines are warnings.
func stderrNotice(line string) (text, level string) {
	for _, l := range [...]struct{ prefix, level string }{{"Warning: ", "warning"}, {"Error: ", "error"}} {
		if rest, ok := strings.CutPrefix(line, l.prefix); ok {
			return rest, l.level
		}
	}
	return line, "warning"
}

// prompts returns the command line's prompts; none is fine (the user types them).
func (*interactiveFront) prompts(o *Options) ([]printmode.Prompt, error) { return o.prompts() }

// start prepares the screen, so extension UI calls made while the runtime starts (notify,
// setStatus, dialogs) are kept for the first frame.
func (f *interactiveFront) start(o *Options) {
	f.screen = tui.New(tui.Options{Version: version, AgentDir: o.agentDir(), In: o.Stdin, Out: o.Stdout})
	if f.stderr != nil {
		x := f.screen.ExtensionUI()
		f.stderr.attach(filepath.Join(o.agentDir(), "logs", "stderr.log"), func(line string) { x.Notify(stderrNotice(line)) })
	}
}

// showScreen paints the first frame before the runtime starts (loading extensions can take a
// while; the editor takes keys meanwhile). A terminal that cannot be driven is reported by run.
func (f *interactiveFront) showScreen(o *Options, cwd string, m *llm.Model) {
	f.settingsTheme(o, cwd)
	label := ""
	if m != nil {
		label = m.ID
	}
	_ = f.screen.Start(cwd, label)
}

// settingsTheme hands the settings' theme and the theme sources to the screen (its warnings
// were printed when run read the settings).
func (f *interactiveFront) settingsTheme(o *Options, cwd string) {
	trusted := o.projectTrusted(o.agentDir(), cwd, nil).trusted
	if s, _ := resource.LoadSettings(resource.SettingsOptions{AgentDir: o.agentDir(), Cwd: cwd, ProjectTrusted: trusted}); s.Theme != "" {
		f.screen.SetTheme(s.Theme)
	}
	f.screen.SetThemeSources(o.themePaths(o.agentDir(), cwd), o.NoThemes) // resources.go
}

func (*interactiveFront) mode() string { return "tui" }

// streamReadInterval: the screen paints at most 30 frames a second, so streams are read in
// batches of half a frame (tui.StreamReadInterval).
func (*interactiveFront) streamReadInterval() time.Duration { return tui.StreamReadInterval }

// ui is the screen's ctx.ui.
func (f *interactiveFront) ui() ext.UI { return f.screen.ExtensionUI() }

// extensionErrors shows extension errors in the transcript (stderr would tear the screen).
func (f *interactiveFront) extensionErrors(func(*ext.Error)) func(*ext.Error) {
	x := f.screen.ExtensionUI()
	return func(e *ext.Error) {
		x.Notify(fmt.Sprintf("Extension %q error: %s: %s", e.ExtensionPath, e.Event, e.Message), "error")
	}
}

// run serves the session in the terminal until the user quits.
func (f *interactiveFront) run(ctx context.Context, rt *session.Runtime, prompts []printmode.Prompt, o *Options) int {
	var texts []string
	for _, p := range prompts {
		texts = append(texts, p.Text)
	}
	var files, exts []string
	if !o.NoContextFiles {
		cwd := rt.Session().Store().Cwd()
		for _, c := range resource.LoadContextFiles(o.agentDir(), cwd, o.projectTrusted(o.agentDir(), cwd, nil).trusted) {
			files = append(files, c.Path)
		}
	}
	for _, e := range rt.Session().Runner().Extensions() {
		exts = append(exts, e.Path)
	}
	f.screen.SetStartup(texts, files, exts)
	f.settingsTheme(o, rt.Session().Store().Cwd())
	code := f.screen.Run(ctx, rt)
	if f.stderr != nil {
		f.stderr.detach()
	}
	return code
}
