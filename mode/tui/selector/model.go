package selector

import (
	"sort"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/mode/tui/fuzzy"
	"github.com/atomic-cli/atomic/mode/tui/slot"
)

// Models is the /model selector (tui.md §10.4): a search input (fuzzy on "id provider name"), a
// list of 10 rows that wraps around, "→ " and accent on the selected row, "[provider]" muted,
// " ✓" on the current model (sorted first, then by provider). With scoped models it opens in
// scoped mode and Tab switches between all and scoped.
type Models struct {
	th      slot.Theme
	keys    slot.Keys
	all     []*llm.Model
	scoped  []*llm.Model
	current *llm.Model
	scope   bool // showing the scoped list
	search  slot.Input
	shown   []*llm.Model
	list    slot.List
	done    bool
	onDone  func(m *llm.Model) tea.Cmd
}

// NewModels builds the selector over the usable models (all) and the scoped ones (may be nil);
// current is marked. filter pre-fills the search. onDone gets the chosen model, or nil on cancel.
func NewModels(th slot.Theme, keys slot.Keys, all, scoped []*llm.Model, current *llm.Model, filter string, onDone func(m *llm.Model) tea.Cmd) *Models {
	s := &Models{th: th, keys: keys, all: sortModels(all, current), scoped: sortModels(scoped, current), current: current, scope: len(scoped) > 0, onDone: onDone}
	s.list.Visible = 10
	s.search.SetValue(filter)
	s.refilter()
	return s
}

func same(a, b *llm.Model) bool {
	return a != nil && b != nil && a.Provider == b.Provider && a.ID == b.ID
}

func sortModels(ms []*llm.Model, current *llm.Model) []*llm.Model {
	out := append([]*llm.Model(nil), ms...)
	sort.SliceStable(out, func(i, j int) bool {
		ci, cj := same(out[i], current), same(out[j], current)
		if ci != cj {
			return ci
		}
		return out[i].Provider < out[j].Provider
	})
	return out
}

func (s *Models) source() []*llm.Model {
	if s.scope {
		return s.scoped
	}
	return s.all
}

func (s *Models) refilter() {
	s.shown = fuzzy.Filter(s.source(), s.search.Value(), func(m *llm.Model) string {
		return m.ID + " " + m.Provider + " " + m.Name
	})
	s.list.SetLen(len(s.shown))
	s.list.SetCursor(0)
}

// Done implements slot.Dialog.
func (s *Models) Done() bool { return s.done }

// Cancel closes the selector without a choice.
func (s *Models) Cancel() { s.finish(nil) }

func (s *Models) finish(m *llm.Model) tea.Cmd {
	if s.done {
		return nil
	}
	s.done = true
	if s.onDone != nil {
		return s.onDone(m)
	}
	return nil
}

// HandlePaste types into the search.
func (s *Models) HandlePaste(text string) tea.Cmd {
	s.search.Paste(text)
	s.refilter()
	return nil
}

// HandleKey implements slot.Dialog.
func (s *Models) HandleKey(k tea.KeyPressMsg) tea.Cmd {
	switch {
	case s.done:
	case s.keys.Is(k, slot.SelectCancel):
		s.Cancel()
	case s.keys.Is(k, slot.SelectConfirm):
		if len(s.shown) > 0 {
			return s.finish(s.shown[s.list.Cursor()])
		}
	case k.String() == "tab" && len(s.scoped) > 0:
		s.scope = !s.scope
		s.refilter()
	case s.list.Move(k, s.keys):
	default:
		if s.search.Update(k) {
			s.refilter()
		}
	}
	return nil
}

// Render implements slot.Dialog.
func (s *Models) Render(width int) []string {
	th := s.th
	var body []string
	if len(s.scoped) > 0 {
		all, scoped := "all", "scoped"
		if s.scope {
			scoped = th.Accent(scoped)
		} else {
			all = th.Accent(all)
		}
		body = append(body, th.Muted("Scope: ")+all+th.Muted(" | ")+scoped)
	} else {
		body = append(body, th.Warning("Only showing models with configured API keys (see README for details)"))
	}
	body = append(body, "", "> "+s.search.View(th, max(width-2, 1), true, ""), "")
	from, to := s.list.Window()
	for i := from; i < to; i++ {
		m := s.shown[i]
		row := "  " + m.ID
		if i == s.list.Cursor() {
			row = th.Accent("→ " + m.ID)
		}
		row += " " + th.Muted("["+m.Provider+"]")
		if same(m, s.current) {
			row += th.Success(" ✓")
		}
		body = append(body, row)
	}
	if len(s.shown) == 0 {
		body = append(body, th.Muted("  No matching models"))
	} else {
		if p := s.list.Position(); p != "" {
			body = append(body, th.Muted("  "+p))
		}
		m := s.shown[s.list.Cursor()]
		name := m.Name
		if name == "" {
			name = m.ID
		}
		body = append(body, "", th.Muted("  Model Name: "+name))
	}
	pairs := []string{"↑↓", "navigate", s.keys.Label(slot.SelectConfirm), "select", s.keys.Label(slot.SelectCancel), "cancel"}
	if len(s.scoped) > 0 {
		pairs = append(pairs, "tab", "scope (all/scoped)")
	}
	return slot.Fit(slot.Frame(th, width, "Select model", body, slot.Hint(th, pairs...)), width)
}

// ForkMessage is a user message /fork can start from.
type ForkMessage struct {
	EntryID, Text string
}

// Fork is the /fork selector (tui.md §10.3): the session's user messages, newest pre-selected;
// Enter picks one.
type Fork struct {
	th     slot.Theme
	keys   slot.Keys
	msgs   []ForkMessage
	list   slot.List
	done   bool
	onDone func(m *ForkMessage) tea.Cmd
}

// NewFork builds the selector over msgs (append order); onDone gets the pick, nil on cancel.
func NewFork(th slot.Theme, keys slot.Keys, msgs []ForkMessage, onDone func(m *ForkMessage) tea.Cmd) *Fork {
	f := &Fork{th: th, keys: keys, msgs: msgs, onDone: onDone}
	f.list.Visible = 10
	f.list.SetLen(len(msgs))
	f.list.SetCursor(len(msgs) - 1)
	return f
}

// Done implements slot.Dialog.
func (f *Fork) Done() bool { return f.done }

// Cancel closes the selector without a choice.
func (f *Fork) Cancel() { f.finish(nil) }

func (f *Fork) finish(m *ForkMessage) tea.Cmd {
	if f.done {
		return nil
	}
	f.done = true
	if f.onDone != nil {
		return f.onDone(m)
	}
	return nil
}

// HandleKey implements slot.Dialog.
func (f *Fork) HandleKey(k tea.KeyPressMsg) tea.Cmd {
	switch {
	case f.done:
	case f.keys.Is(k, slot.SelectCancel):
		f.Cancel()
	case f.keys.Is(k, slot.SelectConfirm):
		if len(f.msgs) > 0 {
			m := f.msgs[f.list.Cursor()]
			return f.finish(&m)
		}
	default:
		f.list.Move(k, f.keys)
	}
	return nil
}

// Render implements slot.Dialog.
func (f *Fork) Render(width int) []string {
	th := f.th
	var body []string
	from, to := f.list.Window()
	for i := from; i < to; i++ {
		text := fuzzy.Clean(strings.TrimSpace(f.msgs[i].Text))
		if i == f.list.Cursor() {
			body = append(body, th.Accent("→ "+text))
		} else {
			body = append(body, "  "+text)
		}
	}
	if p := f.list.Position(); p != "" {
		body = append(body, th.Muted("  "+p))
	}
	hint := slot.Hint(th, "↑↓", "navigate", f.keys.Label(slot.SelectConfirm), "fork", f.keys.Label(slot.SelectCancel), "cancel")
	return slot.Fit(slot.Frame(th, width, "Fork from message", body, hint), width)
}
