package selector

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/mode/tui/fuzzy"
	"github.com/atomic-cli/atomic/mode/tui/slot"
	"github.com/atomic-cli/atomic/store"
)

// Tree filter modes (tui.md §10.2), in ctrl+o cycle order.
const (
	FilterDefault  = "default"  // hides label, custom and session-info entries
	FilterNoTools  = "no-tools" // default, without tool results
	FilterUserOnly = "user-only"
	FilterLabeled  = "labeled-only"
	FilterAll      = "all"
)

var filterCycle = []string{FilterDefault, FilterNoTools, FilterUserOnly, FilterLabeled, FilterAll}

// Tree is the /tree navigator (tui.md §10.2): the session's entries depth-first, children oldest
// first; indentation grows only where the conversation branches (├─ / └─); "• " marks entries on
// the active path and "← active" the current leaf; labels show as [label]. Typing filters by
// text, ctrl+d/t/u/l/a pick a filter mode and ctrl+o cycles them. Enter picks an entry.
//
// Folding: an entry that starts a branch (one of several children) and has entries under it
// shows ⊟, or ⊞ when folded (its subtree hidden). app.tree.foldOrUp (ctrl+← / alt+←) folds the
// selected branch start, or, when it cannot, jumps up to the previous branch start;
// app.tree.unfoldOrDown (ctrl+→ / alt+→) unfolds it, or jumps down to the next branch start.
// A search or filter change unfolds everything.
type Tree struct {
	th      slot.Theme
	keys    slot.Keys
	roots   []*store.TreeNode
	leaf    string
	active  map[string]bool
	filter  string
	search  slot.Input
	rows    []treeRow
	list    slot.List
	height  int
	done    bool
	onDone  func(e *store.Entry) tea.Cmd
	entries int
	folded  map[string]bool // entry ids of folded branch starts
	// OnEditLabel, when set, is called with the selected entry and its label on shift+l
	// (app.tree.editLabel); the owner asks for the new label and calls SetLabel.
	OnEditLabel func(e *store.Entry, label string) tea.Cmd
}

// SetLabel shows label ("" clears it) on entry id, as the session now records it.
func (t *Tree) SetLabel(id, label string) {
	var walk func(ns []*store.TreeNode)
	walk = func(ns []*store.TreeNode) {
		for _, n := range ns {
			if n.Entry.ID == id {
				n.Label = label
			}
			walk(n.Children)
		}
	}
	walk(t.roots)
	sel := t.selectedID()
	t.rebuild()
	t.reselect(sel)
}

type treeRow struct {
	node     *store.TreeNode
	prefix   string
	foldable bool // a branch start with entries under it
}

// NewTree builds the navigator over roots (store.Session.Tree) with leaf the current leaf id;
// rows is the terminal height (the list takes max(5, rows/2) lines). onDone gets the chosen
// entry, nil on cancel.
func NewTree(th slot.Theme, keys slot.Keys, roots []*store.TreeNode, leaf string, rows int, onDone func(e *store.Entry) tea.Cmd) *Tree {
	t := &Tree{th: th, keys: keys, roots: roots, leaf: leaf, active: map[string]bool{}, folded: map[string]bool{}, filter: FilterDefault, onDone: onDone}
	t.height = max(5, rows/2)
	t.list.Visible = t.height
	byID := map[string]*store.TreeNode{}
	var walk func(ns []*store.TreeNode)
	walk = func(ns []*store.TreeNode) {
		for _, n := range ns {
			byID[n.Entry.ID] = n
			t.entries++
			walk(n.Children)
		}
	}
	walk(roots)
	for id := leaf; id != ""; {
		n := byID[id]
		if n == nil || t.active[id] {
			break
		}
		t.active[id] = true
		id = n.Entry.Parent()
	}
	t.rebuild()
	for i, r := range t.rows {
		if r.node.Entry.ID == leaf {
			t.list.SetCursor(i)
		}
	}
	return t
}

// Len is the number of entries in the session (0: "No entries in session").
func (t *Tree) Len() int { return t.entries }

func (t *Tree) visible(n *store.TreeNode) bool {
	e := n.Entry
	q := strings.TrimSpace(t.search.Value())
	if q != "" {
		text := strings.ToLower(entryText(e, n.Label))
		for _, tok := range strings.Fields(strings.ToLower(q)) {
			if !strings.Contains(text, tok) {
				return false
			}
		}
	}
	switch t.filter {
	case FilterAll:
		return true
	case FilterUserOnly:
		return e.Type == store.TypeMessage && e.Role() == llm.RoleUser
	case FilterLabeled:
		return n.Label != ""
	}
	switch e.Type {
	case store.TypeLabel, store.TypeCustom, store.TypeSessionInfo, store.TypeContextWindowChange:
		return false
	}
	if t.filter == FilterNoTools && e.Type == store.TypeMessage && e.Role() == llm.RoleToolResult {
		return false
	}
	return true
}

// rebuild flattens the tree under the filter: hidden entries lift their children into their
// place; indentation grows where more than one visible branch leaves a node.
func (t *Tree) rebuild() {
	t.rows = t.rows[:0]
	var walk func(ns []*store.TreeNode, indent string, branching bool)
	walk = func(ns []*store.TreeNode, indent string, branching bool) {
		// Collect the visible heads of each child subtree first, so connectors know the last one.
		for i, n := range ns {
			last := i == len(ns)-1
			prefix, childIndent := indent, indent
			if branching {
				if last {
					prefix, childIndent = indent+"└─ ", indent+"   "
				} else {
					prefix, childIndent = indent+"├─ ", indent+"│  "
				}
			}
			if t.visible(n) {
				foldable := branching && len(n.Children) > 0
				t.rows = append(t.rows, treeRow{node: n, prefix: prefix, foldable: foldable})
				if foldable && t.folded[n.Entry.ID] {
					continue
				}
				walk(n.Children, childIndent, len(n.Children) > 1)
			} else {
				walk(n.Children, indent, branching && len(n.Children) > 1)
			}
		}
	}
	walk(t.roots, "", len(t.roots) > 1)
	t.list.SetLen(len(t.rows))
}

// Done implements slot.Dialog.
func (t *Tree) Done() bool { return t.done }

// Cancel closes the navigator without a choice.
func (t *Tree) Cancel() { t.finish(nil) }

func (t *Tree) finish(e *store.Entry) tea.Cmd {
	if t.done {
		return nil
	}
	t.done = true
	if t.onDone != nil {
		return t.onDone(e)
	}
	return nil
}

func (t *Tree) setFilter(f string) {
	id := t.selectedID()
	t.filter = f
	clear(t.folded)
	t.rebuild()
	t.reselect(id)
}

func (t *Tree) selectedID() string {
	if len(t.rows) == 0 {
		return ""
	}
	return t.rows[t.list.Cursor()].node.Entry.ID
}

func (t *Tree) reselect(id string) {
	for i, r := range t.rows {
		if r.node.Entry.ID == id {
			t.list.SetCursor(i)
			return
		}
	}
	t.list.SetCursor(len(t.rows) - 1)
}

// HandlePaste types into the search.
func (t *Tree) HandlePaste(text string) tea.Cmd {
	id := t.selectedID()
	t.search.Paste(text)
	clear(t.folded)
	t.rebuild()
	t.reselect(id)
	return nil
}

// HandleKey implements slot.Dialog.
func (t *Tree) HandleKey(k tea.KeyPressMsg) tea.Cmd {
	switch {
	case t.done:
	case t.keys.Is(k, slot.SelectCancel):
		t.Cancel()
	case t.keys.Is(k, slot.SelectConfirm):
		if len(t.rows) > 0 {
			return t.finish(t.rows[t.list.Cursor()].node.Entry)
		}
	case t.OnEditLabel != nil && (t.keys.Is(k, "app.tree.editLabel") || k.Text == "L"):
		// A terminal without the kitty protocol reports shift+l as the text "L".
		if len(t.rows) > 0 {
			n := t.rows[t.list.Cursor()].node
			return t.OnEditLabel(n.Entry, n.Label)
		}
	case t.keys.Is(k, "app.tree.filter.default"):
		t.setFilter(FilterDefault)
	case t.keys.Is(k, "app.tree.filter.noTools"):
		t.setFilter(FilterNoTools)
	case t.keys.Is(k, "app.tree.filter.userOnly"):
		t.setFilter(FilterUserOnly)
	case t.keys.Is(k, "app.tree.filter.labeledOnly"):
		t.setFilter(FilterLabeled)
	case t.keys.Is(k, "app.tree.filter.all"):
		t.setFilter(FilterAll)
	case t.keys.Is(k, "app.tree.filter.cycleForward"), t.keys.Is(k, "app.tree.filter.cycleBackward"):
		step := 1
		if t.keys.Is(k, "app.tree.filter.cycleBackward") {
			step = len(filterCycle) - 1
		}
		for i, f := range filterCycle {
			if f == t.filter {
				t.setFilter(filterCycle[(i+step)%len(filterCycle)])
				break
			}
		}
	case t.keys.Is(k, "app.tree.foldOrUp"):
		t.foldOrJump(true)
	case t.keys.Is(k, "app.tree.unfoldOrDown"):
		t.foldOrJump(false)
	case k.String() == "left" || k.String() == "right":
		page := tea.KeyPressMsg{Code: tea.KeyPgUp}
		if k.String() == "right" {
			page = tea.KeyPressMsg{Code: tea.KeyPgDown}
		}
		t.list.Move(page, slot.DefaultKeys())
	case t.list.Move(k, t.keys):
	default:
		id := t.selectedID()
		if t.search.Update(k) {
			clear(t.folded)
			t.rebuild()
			t.reselect(id)
		}
	}
	return nil
}

// foldOrJump folds (up) or unfolds (down) the selected branch start; when the selection is not
// one, or is already in that state, the selection jumps to the previous (up) or next (down)
// branch start.
func (t *Tree) foldOrJump(up bool) {
	if len(t.rows) == 0 {
		return
	}
	cur := t.list.Cursor()
	r := t.rows[cur]
	if r.foldable && t.folded[r.node.Entry.ID] != up {
		id := r.node.Entry.ID
		if up {
			t.folded[id] = true
		} else {
			delete(t.folded, id)
		}
		t.rebuild()
		t.reselect(id)
		return
	}
	step := 1
	if up {
		step = -1
	}
	for i := cur + step; i >= 0 && i < len(t.rows); i += step {
		if t.rows[i].foldable {
			t.list.SetCursor(i)
			return
		}
	}
}

// Render implements slot.Dialog: the window keeps the selection near its middle.
func (t *Tree) Render(width int) []string {
	th := t.th
	var body []string
	n := len(t.rows)
	from := max(0, min(t.list.Cursor()-t.height/2, n-t.height))
	to := min(from+t.height, n)
	for i := from; i < to; i++ {
		r := t.rows[i]
		e := r.node.Entry
		line := th.Dim(r.prefix)
		if r.foldable {
			if t.folded[e.ID] {
				line += th.Accent("⊞ ")
			} else {
				line += th.Dim("⊟ ")
			}
		}
		if t.active[e.ID] {
			line += th.Accent("• ")
		} else {
			line += "  "
		}
		if r.node.Label != "" {
			line += th.Warning("["+r.node.Label+"]") + " "
		}
		line += t.styledText(e)
		if e.ID == t.leaf {
			line += th.Accent(" ← active")
		}
		if i == t.list.Cursor() {
			line = th.Selected(line)
		}
		body = append(body, line)
	}
	if n == 0 {
		body = append(body, th.Muted("  No matching entries"))
	}
	body = append(body, "", th.Muted(fmt.Sprintf("Filter: %s  (%d/%d)", t.filter, min(t.list.Cursor()+1, n), n)),
		th.Muted("Type to search: ")+t.search.Value())
	fold, unfold := t.keys.Label("app.tree.foldOrUp"), t.keys.Label("app.tree.unfoldOrDown")
	if mod, ok := strings.CutSuffix(fold, "left"); ok && unfold == mod+"right" {
		fold = mod + "←→"
	} else {
		fold += "/" + unfold
	}
	hint := slot.Hint(th, "↑↓", "move", "←→", "page", fold, "fold", t.keys.Label(slot.SelectConfirm), "select", t.keys.Label(slot.SelectCancel), "cancel",
		t.keys.Label("app.tree.filter.cycleForward"), "filter")
	return slot.Fit(slot.Frame(th, width, "Session tree", body, hint), width)
}

func (t *Tree) styledText(e *store.Entry) string {
	th := t.th
	text := entryText(e, "")
	pre, rest, found := strings.Cut(text, ": ")
	switch {
	case e.Type == store.TypeMessage && e.Role() == llm.RoleUser && found:
		return th.Accent(pre+":") + " " + rest
	case e.Type == store.TypeMessage && e.Role() == llm.RoleAssistant && found:
		return th.Success(pre+":") + " " + rest
	case e.Type == store.TypeMessage && e.Role() == llm.RoleToolResult:
		return th.Muted(text)
	case e.Type == store.TypeCompaction:
		return th.Token("borderAccent", text)
	case e.Type == store.TypeBranchSummary:
		return th.Warning(text)
	case e.Type == store.TypeSessionSummary:
		return th.Dim(text)
	}
	return text
}

// entryText is an entry's one-line description (tui.md §10.2).
func entryText(e *store.Entry, label string) string {
	one := func(s string) string { return fuzzy.Clean(strings.Join(strings.Fields(s), " ")) }
	var s string
	switch e.Type {
	case store.TypeMessage:
		m := e.Message
		if m == nil {
			return "[message]"
		}
		switch m.Role {
		case llm.RoleUser:
			s = "user: " + one(llm.TextOf(m.Content, " "))
		case llm.RoleAssistant:
			text := one(llm.TextOf(m.Content, " "))
			switch {
			case m.StopReason == llm.StopAborted && text == "":
				text = "(aborted)"
			case m.ErrorMessage != "" && text == "":
				text = one(m.ErrorMessage)
			case text == "":
				var calls []string
				for _, c := range m.Content {
					if c.Type == llm.ContentToolCall {
						calls = append(calls, c.Name)
					}
				}
				if len(calls) > 0 {
					text = "[" + strings.Join(calls, ", ") + "]"
				} else {
					text = "(no content)"
				}
			}
			s = "assistant: " + text
		case llm.RoleToolResult:
			s = "[" + m.ToolName + "] " + one(llm.TextOf(m.Content, " "))
		case llm.RoleBashExecution:
			s = "[bash]: " + one(m.Command)
		case llm.RoleCustom:
			s = "[" + m.CustomType + "]: " + one(llm.TextOf(m.Content, " "))
		default:
			s = "[" + m.Role + "]"
		}
	case store.TypeCustomMessage:
		s = "[" + e.CustomType + "]: " + one(llm.TextOf(e.Content, " "))
	case store.TypeCompaction:
		s = fmt.Sprintf("[compaction: %dk tokens]", (e.TokensBefore+500)/1000)
	case store.TypeBranchSummary:
		s = "[branch summary]: " + one(e.Summary)
	case store.TypeModelChange:
		s = "[model: " + e.ModelID + "]"
	case store.TypeThinkingLevelChange:
		s = "[thinking: " + e.ThinkingLevel + "]"
	case store.TypeCustom:
		s = "[custom: " + e.CustomType + "]"
	case store.TypeLabel:
		name := "(cleared)"
		if e.Label != nil {
			name = *e.Label
		}
		s = "[label: " + name + "]"
	case store.TypeSessionInfo:
		name := ""
		if e.Name != nil {
			name = *e.Name
		}
		s = "[title: " + name + "]"
	case store.TypeSessionSummary:
		s = "[session summary]: " + one(e.Summary)
	default:
		s = "[" + e.Type + "]"
	}
	if label != "" {
		s = label + " " + s
	}
	return s
}
