package slot

import (
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"
)

// countdown is the timeout display of a timed dialog (tui.md §7.2): the title shows the whole
// seconds left, rounded up, decremented by a tick each second; at 0 the dialog cancels.
type countdown struct {
	id   int64
	left int // seconds; 0: untimed
}

// tickMsg is one second of a countdown; id tells concurrent dialogs' ticks apart.
type tickMsg struct{ id int64 }

var tickIDs atomic.Int64

func newCountdown(timeout time.Duration) countdown {
	if timeout <= 0 {
		return countdown{}
	}
	return countdown{id: tickIDs.Add(1), left: int((timeout + time.Second - 1) / time.Second)}
}

// start is the first tick command, nil for an untimed dialog.
func (c countdown) start() tea.Cmd {
	if c.left == 0 {
		return nil
	}
	id := c.id
	return tea.Tick(time.Second, func(time.Time) tea.Msg { return tickMsg{id} })
}

// step consumes msg if it is this countdown's tick: expired is true at 0, else next re-arms.
func (c *countdown) step(msg any) (mine, expired bool, next tea.Cmd) {
	t, ok := msg.(tickMsg)
	if !ok || c.left == 0 || t.id != c.id {
		return false, false, nil
	}
	c.left--
	if c.left <= 0 {
		return true, true, nil
	}
	return true, false, c.start()
}

func (c countdown) title(title string) string {
	if c.left == 0 {
		return title
	}
	return fmt.Sprintf("%s (%ds)", title, c.left)
}

// Select is ctx.ui.select / confirm (tui.md §7.2): a list of options, "→ " and accent on the
// selected one; up/down or k/j move, enter picks, esc/ctrl+c cancel, a timeout cancels.
type Select struct {
	th      Theme
	keys    Keys
	title   string
	options []string
	list    List
	cd      countdown
	done    bool
	onDone  func(choice int, ok bool) tea.Cmd
}

// NewSelect builds a select dialog; timeout > 0 shows the countdown. onDone receives the index
// of the chosen option, or ok false on cancel or timeout; it is called once, on the UI goroutine.
func NewSelect(th Theme, keys Keys, title string, options []string, timeout time.Duration, onDone func(choice int, ok bool) tea.Cmd) *Select {
	s := &Select{th: th, keys: keys, title: title, options: options, cd: newCountdown(timeout), onDone: onDone}
	s.list.Visible = max(len(options), 1)
	s.list.SetLen(len(options))
	return s
}

// Init returns the countdown's first tick (nil when untimed).
func (s *Select) Init() tea.Cmd { return s.cd.start() }

// Done implements Dialog.
func (s *Select) Done() bool { return s.done }

// Cancel closes the dialog with no choice (abort, ctx end); a no-op once done.
func (s *Select) Cancel() { s.finish(0, false) }

func (s *Select) finish(i int, ok bool) tea.Cmd {
	if s.done {
		return nil
	}
	s.done = true
	if s.onDone != nil {
		return s.onDone(i, ok)
	}
	return nil
}

// Update takes the countdown's ticks.
func (s *Select) Update(msg tea.Msg) tea.Cmd {
	if mine, expired, next := s.cd.step(msg); mine && !s.done {
		if expired {
			s.Cancel()
		}
		return next
	}
	return nil
}

// HandleKey implements Dialog: up/down (also k/j), page keys, enter, esc/ctrl+c.
func (s *Select) HandleKey(k tea.KeyPressMsg) tea.Cmd {
	if s.done {
		return nil
	}
	switch {
	case k.String() == "k":
		s.list.cursor = (s.list.cursor - 1 + s.list.n) % max(s.list.n, 1)
	case k.String() == "j":
		s.list.cursor = (s.list.cursor + 1) % max(s.list.n, 1)
	case s.list.Move(k, s.keys):
	case s.keys.Is(k, SelectConfirm) || k.String() == "ctrl+j":
		if len(s.options) > 0 {
			return s.finish(s.list.Cursor(), true)
		}
	case s.keys.Is(k, SelectCancel):
		return s.finish(0, false)
	}
	return nil
}

// Render implements Dialog.
func (s *Select) Render(width int) []string {
	var body []string
	for i, o := range s.options {
		o = strings.ReplaceAll(o, "\n", " ")
		if i == s.list.Cursor() {
			body = append(body, s.th.Accent("→ "+o))
		} else {
			body = append(body, "  "+s.th.Text(o))
		}
	}
	hint := Hint(s.th, "↑↓", "navigate", s.keys.Label(SelectConfirm), "select", s.keys.Label(SelectCancel), "cancel")
	return Fit(Frame(s.th, width, s.cd.title(s.title), body, hint), width)
}

// NewConfirm builds ctx.ui.confirm: Yes / No under "title\nmessage"; onDone gets true only for Yes.
func NewConfirm(th Theme, keys Keys, title, message string, timeout time.Duration, onDone func(yes bool) tea.Cmd) *Select {
	t := title
	if message != "" {
		t += "\n" + message
	}
	return NewSelect(th, keys, t, []string{"Yes", "No"}, timeout, func(i int, ok bool) tea.Cmd {
		if onDone != nil {
			return onDone(ok && i == 0)
		}
		return nil
	})
}

// Prompt is ctx.ui.input: one line of text under a title; enter submits, esc/ctrl+c or a timeout
// cancel. The placeholder shows while the input is empty (pi ignores it; tui.md §7.1 Rec).
type Prompt struct {
	th          Theme
	keys        Keys
	title       string
	placeholder string
	in          Input
	cd          countdown
	done        bool
	masked      bool
	onDone      func(text string, ok bool) tea.Cmd
}

// SetMasked shows every character of the input as '*' (a secret such as an API key); the
// value is unchanged.
func (p *Prompt) SetMasked(on bool) { p.masked = on }

// NewPrompt builds an input dialog; onDone is called once with the text, or ok false.
func NewPrompt(th Theme, keys Keys, title, placeholder string, timeout time.Duration, onDone func(text string, ok bool) tea.Cmd) *Prompt {
	return &Prompt{th: th, keys: keys, title: title, placeholder: placeholder, cd: newCountdown(timeout), onDone: onDone}
}

// Init returns the countdown's first tick.
func (p *Prompt) Init() tea.Cmd { return p.cd.start() }

// Done implements Dialog.
func (p *Prompt) Done() bool { return p.done }

// SetValue prefills the input.
func (p *Prompt) SetValue(s string) { p.in.SetValue(s) }

// Cancel closes the dialog without text; a no-op once done.
func (p *Prompt) Cancel() { p.finish("", false) }

func (p *Prompt) finish(text string, ok bool) tea.Cmd {
	if p.done {
		return nil
	}
	p.done = true
	if p.onDone != nil {
		return p.onDone(text, ok)
	}
	return nil
}

// Update takes the countdown's ticks.
func (p *Prompt) Update(msg tea.Msg) tea.Cmd {
	if mine, expired, next := p.cd.step(msg); mine && !p.done {
		if expired {
			p.Cancel()
		}
		return next
	}
	return nil
}

// HandlePaste inserts the paste's first line.
func (p *Prompt) HandlePaste(text string) tea.Cmd {
	p.in.Paste(text)
	return nil
}

// HandleKey implements Dialog.
func (p *Prompt) HandleKey(k tea.KeyPressMsg) tea.Cmd {
	if p.done {
		return nil
	}
	switch {
	case p.keys.Is(k, SelectConfirm):
		return p.finish(p.in.Value(), true)
	case p.keys.Is(k, SelectCancel):
		return p.finish("", false)
	default:
		p.in.Update(k)
	}
	return nil
}

// Render implements Dialog.
func (p *Prompt) Render(width int) []string {
	in := p.in
	if p.masked {
		in = Input{text: []rune(strings.Repeat("*", len(p.in.text))), cursor: p.in.cursor}
	}
	body := []string{in.View(p.th, width, true, p.placeholder)}
	hint := Hint(p.th, p.keys.Label(SelectConfirm), "submit", p.keys.Label(SelectCancel), "cancel")
	return Fit(Frame(p.th, width, p.cd.title(p.title), body, hint), width)
}
