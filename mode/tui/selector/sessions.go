package selector

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/atomic-cli/atomic/mode/tui/fuzzy"
	"github.com/atomic-cli/atomic/mode/tui/slot"
	"github.com/atomic-cli/atomic/store"
)

// Sort orders of the session picker (tui.md §10.1).
const (
	SortRecent = "Recent"
	SortFuzzy  = "Fuzzy"
)

// SessionsLoaded is the answer of the "all sessions" scan Tab asks for (run as a tea.Cmd).
type SessionsLoaded struct {
	Infos []store.SessionInfo
	Err   error
	owner *Sessions
}

// Sessions is the /resume picker (tui.md §10.1): sessions of the current folder (Tab: all),
// newest first, searchable (tokens fuzzy on id, name, message text and cwd; "quoted phrase"
// literal; re:<regex> case-insensitive), ctrl+s toggles Recent/Fuzzy order, ctrl+n named only,
// ctrl+d deletes after an inline confirm, ctrl+r renames the selected session in place (Enter saves,
// Escape cancels; once SetRename gave a way to save). Enter opens the selected session.
type Sessions struct {
	th       slot.Theme
	keys     slot.Keys
	local    []store.SessionInfo
	all      []store.SessionInfo
	loadAll  func() ([]store.SessionInfo, error)
	loading  bool
	allScope bool
	named    bool
	sortMode string
	current  string
	now      func() time.Time
	search   slot.Input
	shown    []store.SessionInfo
	list     slot.List
	confirm  string // path pending deletion
	errText  string
	onDelete func(path string) error
	onRename func(path, name string) error
	renaming string // path being renamed ("" when not renaming)
	// renameHint names the rename key in the hints even without SetRename (Atomic's host picker
	// showRenameHint).
	renameHint bool
	newName    slot.Input
	onDone     func(info *store.SessionInfo) tea.Cmd
	done       bool
}

// NewSessions builds the picker over the current folder's sessions (local, newest first).
// loadAll scans every session (called from a tea.Cmd when Tab first switches scope); current is
// the live session's file (accent); onDelete removes a file (its error is shown); onDone gets the
// pick, nil on cancel. now is the clock of the age column (nil: time.Now).
func NewSessions(th slot.Theme, keys slot.Keys, local []store.SessionInfo, loadAll func() ([]store.SessionInfo, error), current string, now func() time.Time, onDelete func(string) error, onDone func(*store.SessionInfo) tea.Cmd) *Sessions {
	if now == nil {
		now = time.Now
	}
	s := &Sessions{th: th, keys: keys, local: local, loadAll: loadAll, current: current, now: now, sortMode: SortRecent, onDelete: onDelete, onDone: onDone}
	s.list.Visible = 10
	s.refilter()
	return s
}

func (s *Sessions) source() []store.SessionInfo {
	if s.allScope {
		return s.all
	}
	return s.local
}

func (s *Sessions) refilter() {
	src := s.source()
	var out []store.SessionInfo
	q := strings.TrimSpace(s.search.Value())
	match := sessionMatcher(q)
	type scored struct {
		info  store.SessionInfo
		score float64
	}
	var sc []scored
	for _, in := range src {
		if s.named && in.Name == "" {
			continue
		}
		if score, ok := match(in); ok {
			sc = append(sc, scored{in, score})
		}
	}
	if s.sortMode == SortFuzzy && q != "" {
		sort.SliceStable(sc, func(i, j int) bool { return sc[i].score < sc[j].score })
	}
	for _, x := range sc {
		out = append(out, x.info)
	}
	s.shown = out
	s.list.SetLen(len(out))
	s.list.SetCursor(0)
}

// sessionMatcher compiles a picker query: re:<regex>, "quoted phrases" and fuzzy tokens over
// "id name text cwd". An invalid regex or unbalanced quotes fall back to plain tokens.
func sessionMatcher(q string) func(store.SessionInfo) (float64, bool) {
	hay := func(in store.SessionInfo) string {
		return in.ID + " " + in.Name + " " + in.Summary + " " + in.AllMessagesText + " " + in.Cwd
	}
	if q == "" {
		return func(store.SessionInfo) (float64, bool) { return 0, true }
	}
	if pat, ok := strings.CutPrefix(q, "re:"); ok {
		if re, err := regexp.Compile("(?i)" + pat); err == nil {
			return func(in store.SessionInfo) (float64, bool) { return 0, re.MatchString(hay(in)) }
		}
	}
	var phrases, tokens []string
	if strings.Count(q, `"`)%2 == 0 {
		parts := strings.Split(q, `"`)
		for i, p := range parts {
			if i%2 == 1 {
				if p = strings.TrimSpace(p); p != "" {
					phrases = append(phrases, strings.ToLower(p))
				}
			} else {
				tokens = append(tokens, strings.Fields(p)...)
			}
		}
	} else {
		tokens = strings.Fields(strings.ReplaceAll(q, `"`, " "))
	}
	return func(in store.SessionInfo) (float64, bool) {
		h := hay(in)
		lower := strings.ToLower(h)
		for _, p := range phrases {
			if !strings.Contains(lower, p) {
				return 0, false
			}
		}
		total := 0.0
		for _, tok := range tokens {
			// Whole words first: a token that occurs literally scores best.
			if strings.Contains(lower, strings.ToLower(tok)) {
				total -= 50
				continue
			}
			sc, ok := fuzzy.Match(tok, h)
			if !ok {
				return 0, false
			}
			total += sc
		}
		return total, true
	}
}

// ErrKeepRow is what an onDelete returns when deletion belongs to someone else (an extension's
// host-native picker, seed 004): the row stays, nothing is shown, and the owner answers later
// with SetSessions (row gone) or ShowError.
var ErrKeepRow = errors.New("selector: the row is kept until its owner answers")

// SetSessions replaces the rows (both scopes) and keeps the search, filters and, where the row
// is still there, the selected session.
func (s *Sessions) SetSessions(rows []store.SessionInfo) {
	var sel string
	if c := s.list.Cursor(); c < len(s.shown) {
		sel = s.shown[c].Path
	}
	s.local = append([]store.SessionInfo(nil), rows...)
	s.all = append([]store.SessionInfo(nil), rows...)
	if s.confirm != "" && !hasPath(rows, s.confirm) {
		s.confirm = ""
	}
	cur := s.list.Cursor()
	s.refilter()
	for i, in := range s.shown {
		if in.Path == sel {
			cur = i
			break
		}
	}
	s.list.SetCursor(min(cur, max(len(s.shown)-1, 0)))
}

// ShowError shows message under the list (cleared by the next search keystroke).
func (s *Sessions) ShowError(message string) { s.errText = message }

func hasPath(infos []store.SessionInfo, path string) bool {
	for _, in := range infos {
		if in.Path == path {
			return true
		}
	}
	return false
}

// SetRename enables renaming (app.session.rename): save writes the new display name of the
// session file at path ("" clears it) and returns the error to show.
func (s *Sessions) SetRename(save func(path, name string) error) { s.onRename = save }

// SetRenameHint shows the rename key in the hints whether or not the picker renames (Atomic's
// hostSessionPicker showRenameHint).
func (s *Sessions) SetRenameHint(show bool) { s.renameHint = show }

// Done implements slot.Dialog.
func (s *Sessions) Done() bool { return s.done }

// Cancel closes the picker without a choice.
func (s *Sessions) Cancel() { s.finish(nil) }

func (s *Sessions) finish(in *store.SessionInfo) tea.Cmd {
	if s.done {
		return nil
	}
	s.done = true
	if s.onDone != nil {
		return s.onDone(in)
	}
	return nil
}

// Update takes the answer of the all-sessions scan.
func (s *Sessions) Update(msg tea.Msg) tea.Cmd {
	if m, ok := msg.(SessionsLoaded); ok && m.owner == s {
		s.loading = false
		if m.Err != nil {
			s.errText = m.Err.Error()
		}
		s.all = m.Infos
		if s.allScope {
			s.refilter()
		}
	}
	return nil
}

// HandlePaste types into the search (or the new name while renaming).
func (s *Sessions) HandlePaste(text string) tea.Cmd {
	if s.renaming != "" {
		s.newName.Paste(text)
		return nil
	}
	s.search.Paste(text)
	s.refilter()
	return nil
}

// HandleKey implements slot.Dialog.
func (s *Sessions) HandleKey(k tea.KeyPressMsg) tea.Cmd {
	if s.done {
		return nil
	}
	if s.confirm != "" {
		switch {
		case s.keys.Is(k, slot.SelectConfirm):
			path := s.confirm
			s.confirm = ""
			if s.onDelete != nil {
				if err := s.onDelete(path); errors.Is(err, ErrKeepRow) {
					return nil
				} else if err != nil {
					s.errText = err.Error()
					return nil
				}
			}
			s.local = without(s.local, path)
			s.all = without(s.all, path)
			cur := s.list.Cursor()
			s.refilter()
			s.list.SetCursor(cur)
		case s.keys.Is(k, slot.SelectCancel):
			s.confirm = ""
		}
		return nil
	}
	if s.renaming != "" {
		switch {
		case s.keys.Is(k, slot.SelectConfirm):
			path, name := s.renaming, strings.TrimSpace(s.newName.Value())
			s.renaming = ""
			if err := s.onRename(path, name); err != nil {
				s.errText = err.Error()
				return nil
			}
			s.errText = ""
			for _, list := range [][]store.SessionInfo{s.local, s.all} {
				for i := range list {
					if list[i].Path == path {
						list[i].Name = name
					}
				}
			}
			cur := s.list.Cursor()
			s.refilter()
			s.list.SetCursor(cur)
		case s.keys.Is(k, slot.SelectCancel):
			s.renaming = ""
		default:
			s.newName.Update(k)
		}
		return nil
	}
	switch {
	case s.keys.Is(k, slot.SelectCancel):
		s.Cancel()
	case s.keys.Is(k, slot.SelectConfirm):
		if len(s.shown) > 0 {
			in := s.shown[s.list.Cursor()]
			return s.finish(&in)
		}
	case k.String() == "tab":
		s.allScope = !s.allScope
		s.refilter()
		if s.allScope && s.all == nil && !s.loading && s.loadAll != nil {
			s.loading = true
			load, owner := s.loadAll, s
			return func() tea.Msg {
				infos, err := load()
				return SessionsLoaded{Infos: infos, Err: err, owner: owner}
			}
		}
	case s.keys.Is(k, "app.session.toggleSort"):
		if s.sortMode == SortRecent {
			s.sortMode = SortFuzzy
		} else {
			s.sortMode = SortRecent
		}
		s.refilter()
	case s.keys.Is(k, "app.session.toggleNamedFilter"):
		s.named = !s.named
		s.refilter()
	case s.keys.Is(k, "app.session.rename") && s.onRename != nil:
		if len(s.shown) > 0 {
			in := s.shown[s.list.Cursor()]
			s.renaming = in.Path
			s.newName.SetValue(in.Name)
		}
	case s.keys.Is(k, "app.session.delete"):
		if len(s.shown) > 0 {
			p := s.shown[s.list.Cursor()].Path
			if p == s.current {
				s.errText = "Cannot delete the current session"
			} else {
				s.confirm = p
			}
		}
	case s.list.Move(k, s.keys):
	default:
		if s.search.Update(k) {
			s.errText = ""
			s.refilter()
		}
	}
	return nil
}

func without(infos []store.SessionInfo, path string) []store.SessionInfo {
	out := infos[:0:0]
	for _, in := range infos {
		if in.Path != path {
			out = append(out, in)
		}
	}
	return out
}

// Age formats the time since t the way the picker shows it: now, 5m, 3h, 2d, 1w, 4mo, 1y.
func Age(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "now"
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh", int(d/time.Hour))
	case d < 7*24*time.Hour:
		return fmt.Sprintf("%dd", int(d/(24*time.Hour)))
	case d < 30*24*time.Hour:
		return fmt.Sprintf("%dw", int(d/(7*24*time.Hour)))
	case d < 365*24*time.Hour:
		return fmt.Sprintf("%dmo", int(d/(30*24*time.Hour)))
	}
	return fmt.Sprintf("%dy", int(d/(365*24*time.Hour)))
}

// Render implements slot.Dialog.
func (s *Sessions) Render(width int) []string {
	th := s.th
	title := "Resume Session (Current Folder)"
	scope := th.Accent("◉ Current Folder") + th.Muted(" | ○ All")
	if s.allScope {
		title = "Resume Session (All)"
		scope = th.Muted("○ Current Folder | ") + th.Accent("◉ All")
	}
	if s.loading {
		scope = th.Muted("Loading…")
	}
	filter := "All"
	if s.named {
		filter = "Named"
	}
	right := scope + th.Muted("  Show: "+filter+"  Sort: "+s.sortMode)
	head := th.Accent(Bold(title))
	if gap := width - ansi.StringWidth(title) - ansi.StringWidth(right); gap >= 2 {
		head += strings.Repeat(" ", gap) + right
	}
	hints := []string{s.keys.Label("app.session.toggleSort"), "sort", s.keys.Label("app.session.toggleNamedFilter"), "named", s.keys.Label("app.session.delete"), "delete"}
	if s.onRename != nil || s.renameHint {
		hints = append(hints, s.keys.Label("app.session.rename"), "rename")
	}
	body := []string{head,
		slot.Hint(th, "tab", "scope", "re:<pattern>", "regex", `"phrase"`, "exact"),
		slot.Hint(th, hints...),
		"> " + s.search.View(th, max(width-2, 1), s.confirm == "" && s.renaming == "", ""), ""}
	now := s.now()
	from, to := s.list.Window()
	// The summary column exists only when a listed row has a summary (Atomic's picker).
	summaries := false
	for _, in := range s.shown {
		if strings.TrimSpace(in.Summary) != "" {
			summaries = true
			break
		}
	}
	for i := from; i < to; i++ {
		in := s.shown[i]
		text := in.Name
		style := th.Text
		if text == "" {
			text = in.FirstMessage
		}
		switch {
		case in.Path == s.confirm:
			style = th.Error
		case in.Path == s.current:
			style = th.Accent
		case in.MessageColor != "":
			color := in.MessageColor
			style = func(s string) string { return th.Token(color, s) }
		case in.Name != "":
			style = th.Warning
		}
		meta := fmt.Sprintf("%d %s", in.MessageCount, Age(now, in.Modified))
		if s.allScope && in.Cwd != "" {
			meta = in.Cwd + "  " + meta
		}
		cursor := "  "
		if i == s.list.Cursor() {
			cursor = th.Accent("› ")
		}
		room := width - 2 - ansi.StringWidth(meta) - 2
		col, sumCol := room, 0
		if summaries {
			// Atomic's split: 45% for the name or first message, a 2-cell gutter, the rest for
			// the summary; no summary column under 10 cells.
			col = max(10, room*45/100)
			sumCol = room - col - 2
		}
		text = fuzzy.Clean(text)
		if ansi.StringWidth(text) > col {
			text = ansi.Truncate(text, max(col, 1), "…")
		}
		left := style(text)
		leftW := ansi.StringWidth(text)
		if sumCol >= 10 {
			sum, sumStyle := fuzzy.Clean(strings.TrimSpace(in.Summary)), th.Dim
			if sum == "" {
				sum, sumStyle = "No summary available.", func(s string) string { return "\x1b[3m" + th.Muted(s) + "\x1b[23m" }
			}
			sum = ansi.Truncate(sum, sumCol, "…")
			gap := col - leftW + 2
			left += strings.Repeat(" ", gap) + sumStyle(sum)
			leftW += gap + ansi.StringWidth(sum)
		}
		pad := max(width-2-leftW-ansi.StringWidth(meta), 1)
		row := cursor + left + strings.Repeat(" ", pad) + th.Dim(meta)
		if i == s.list.Cursor() {
			row = th.Selected(row)
		}
		body = append(body, row)
	}
	if len(s.shown) == 0 {
		switch {
		case s.loading:
		case s.named:
			body = append(body, th.Muted("  No named sessions. Press "+s.keys.Label("app.session.toggleNamedFilter")+" to show all."))
		case !s.allScope && len(s.local) == 0:
			body = append(body, th.Muted("  No sessions in current folder. Press Tab to view all."))
		default:
			body = append(body, th.Muted("  No matching sessions"))
		}
	}
	if p := s.list.Position(); p != "" {
		body = append(body, th.Muted("  "+p))
	}
	if s.confirm != "" {
		body = append(body, "", th.Error("Delete session? ")+slot.Hint(th, s.keys.Label(slot.SelectConfirm), "confirm", s.keys.Label(slot.SelectCancel), "cancel"))
	}
	if s.renaming != "" {
		label := "Rename session: "
		body = append(body, "", th.Accent(label)+s.newName.View(th, max(width-ansi.StringWidth(label), 1), true, "name (empty clears it)"),
			slot.Hint(th, s.keys.Label(slot.SelectConfirm), "save", s.keys.Label(slot.SelectCancel), "cancel"))
	}
	if s.errText != "" {
		body = append(body, "", th.Error(s.errText))
	}
	return slot.Fit(slot.Frame(th, width, "", body, ""), width)
}

// Bold is slot.Bold.
func Bold(s string) string { return slot.Bold(s) }
