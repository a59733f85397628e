package slot

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// inline is the Bubble Tea model of RunInline: one dialog, quit when it is done.
type inline struct {
	d     Dialog
	init  tea.Cmd
	width int
}

func (m *inline) Init() tea.Cmd { return m.init }

func (m *inline) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	switch k := msg.(type) {
	case tea.WindowSizeMsg:
		m.width = k.Width
	case tea.KeyPressMsg:
		cmd = m.d.HandleKey(k)
	case tea.PasteMsg:
		if p, ok := m.d.(interface{ HandlePaste(string) tea.Cmd }); ok {
			cmd = p.HandlePaste(k.Content)
		}
	default:
		if u, ok := m.d.(interface{ Update(tea.Msg) tea.Cmd }); ok {
			cmd = u.Update(msg)
		}
	}
	if m.d.Done() {
		return m, tea.Batch(cmd, tea.Quit)
	}
	return m, cmd
}

func (m *inline) View() tea.View {
	if m.d.Done() {
		return tea.NewView("")
	}
	w := m.width
	if w <= 0 {
		w = 80
	}
	return tea.NewView(strings.Join(m.d.Render(w), "\n"))
}

// RunInline shows d alone in the terminal (inline, not on the alternate screen) until it is
// done, ctx ends (the dialog is cancelled) or the terminal fails. It serves dialogs needed
// before the interactive screen exists: the project-trust prompt and the project_trust
// handlers' ctx.ui. init is d's first command (its countdown), may be nil. in and out nil use
// the process's terminal; env nil the process environment.
func RunInline(ctx context.Context, in io.Reader, out io.Writer, env []string, d Dialog, init tea.Cmd) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if ctx.Err() != nil {
		cancelDialog(d)
		return nil
	}
	opts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithoutSignalHandler()}
	if in != nil {
		opts = append(opts, tea.WithInput(in))
	}
	if out != nil {
		opts = append(opts, tea.WithOutput(out))
	}
	if env != nil {
		opts = append(opts, tea.WithEnvironment(env))
	}
	_, err := tea.NewProgram(&inline{d: d, init: init}, opts...).Run()
	if !d.Done() {
		cancelDialog(d)
	}
	if err != nil && !errors.Is(err, tea.ErrProgramKilled) && ctx.Err() == nil {
		return fmt.Errorf("dialog: run in the terminal: %w", err)
	}
	return nil
}

func cancelDialog(d Dialog) {
	if c, ok := d.(interface{ Cancel() }); ok {
		c.Cancel()
	}
}
