// Package keys is the interactive mode's keybinding table (tui.md §4): the namespaced action ids
// with their default keys, <agentDir>/keybindings.json (a value replaces all defaults of its
// action, [] unbinds, legacy flat ids are migrated), and matching of Bubble Tea key presses
// against the effective bindings.
//
// A key string is `[mod+]…key` (tui.md §4.2). Internally every key is held in one canonical form:
// the modifiers in the order ctrl, alt, shift, super, then the key name as Bubble Tea v2's
// Keystroke spells it (esc, enter, pgup, pgdown, …), so a press matches with one map lookup.
//
// keys imports Bubble Tea only. A Map is immutable after Load and safe for concurrent use.
package keys

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// Action ids (tui.md §4.3). The list is the order /hotkeys shows them in.
const (
	CursorUp           = "tui.editor.cursorUp"
	CursorDown         = "tui.editor.cursorDown"
	CursorLeft         = "tui.editor.cursorLeft"
	CursorRight        = "tui.editor.cursorRight"
	CursorWordLeft     = "tui.editor.cursorWordLeft"
	CursorWordRight    = "tui.editor.cursorWordRight"
	CursorLineStart    = "tui.editor.cursorLineStart"
	CursorLineEnd      = "tui.editor.cursorLineEnd"
	HistoryPrevious    = "tui.editor.historyPrevious"
	HistoryNext        = "tui.editor.historyNext"
	JumpForward        = "tui.editor.jumpForward"
	JumpBackward       = "tui.editor.jumpBackward"
	EditorPageUp       = "tui.editor.pageUp"
	EditorPageDown     = "tui.editor.pageDown"
	DeleteCharBackward = "tui.editor.deleteCharBackward"
	DeleteCharForward  = "tui.editor.deleteCharForward"
	DeleteWordBackward = "tui.editor.deleteWordBackward"
	DeleteWordForward  = "tui.editor.deleteWordForward"
	DeleteToLineStart  = "tui.editor.deleteToLineStart"
	DeleteToLineEnd    = "tui.editor.deleteToLineEnd"
	Yank               = "tui.editor.yank"
	YankPop            = "tui.editor.yankPop"
	Undo               = "tui.editor.undo"
	NewLine            = "tui.input.newLine"
	Submit             = "tui.input.submit"
	Tab                = "tui.input.tab"
	Copy               = "tui.input.copy"
	SelectUp           = "tui.select.up"
	SelectDown         = "tui.select.down"
	SelectPageUp       = "tui.select.pageUp"
	SelectPageDown     = "tui.select.pageDown"
	SelectConfirm      = "tui.select.confirm"
	SelectCancel       = "tui.select.cancel"

	ViewPageUp       = "tui.altScreen.pageUp"
	ViewPageDown     = "tui.altScreen.pageDown"
	ViewHalfPageUp   = "tui.altScreen.halfPageUp"
	ViewHalfPageDown = "tui.altScreen.halfPageDown"
	ViewLineUp       = "tui.altScreen.lineUp"
	ViewLineDown     = "tui.altScreen.lineDown"
	ViewTop          = "tui.altScreen.top"
	ViewBottom       = "tui.altScreen.bottom"

	Interrupt             = "app.interrupt"
	Clear                 = "app.clear"
	Exit                  = "app.exit"
	Suspend               = "app.suspend"
	ThinkingCycle         = "app.thinking.cycle"
	ModelCycleForward     = "app.model.cycleForward"
	ModelCycleBackward    = "app.model.cycleBackward"
	ModelSelect           = "app.model.select"
	ToolsExpand           = "app.tools.expand"
	ThinkingToggle        = "app.thinking.toggle"
	EditorExternal        = "app.editor.external"
	MessageFollowUp       = "app.message.followUp"
	MessageDequeue        = "app.message.dequeue"
	PasteImage            = "app.clipboard.pasteImage"
	SessionNew            = "app.session.new"
	SessionTree           = "app.session.tree"
	SessionFork           = "app.session.fork"
	SessionResume         = "app.session.resume"
	SessionTogglePath     = "app.session.togglePath"
	SessionToggleSort     = "app.session.toggleSort"
	SessionToggleNamed    = "app.session.toggleNamedFilter"
	SessionRename         = "app.session.rename"
	SessionDelete         = "app.session.delete"
	SessionDeleteNonInv   = "app.session.deleteNoninvasive"
	ModelsSave            = "app.models.save"
	ModelsEnableAll       = "app.models.enableAll"
	ModelsClearAll        = "app.models.clearAll"
	ModelsToggleProvider  = "app.models.toggleProvider"
	ModelsReorderUp       = "app.models.reorderUp"
	ModelsReorderDown     = "app.models.reorderDown"
	TreeFoldOrUp          = "app.tree.foldOrUp"
	TreeUnfoldOrDown      = "app.tree.unfoldOrDown"
	TreeEditLabel         = "app.tree.editLabel"
	TreeToggleLabelTime   = "app.tree.toggleLabelTimestamp"
	TreeFilterDefault     = "app.tree.filter.default"
	TreeFilterNoTools     = "app.tree.filter.noTools"
	TreeFilterUserOnly    = "app.tree.filter.userOnly"
	TreeFilterLabeledOnly = "app.tree.filter.labeledOnly"
	TreeFilterAll         = "app.tree.filter.all"
	TreeFilterCycleFwd    = "app.tree.filter.cycleForward"
	TreeFilterCycleBack   = "app.tree.filter.cycleBackward"
)

// Binding is one action with its description and default keys.
type Binding struct {
	ID          string
	Description string
	Defaults    []string
}

// Defaults is every action with its default keys (tui.md §4.3; Atomic's column, the fullscreen
// viewport keys included).
var Defaults = []Binding{
	{CursorUp, "Move cursor up", []string{"up"}},
	{CursorDown, "Move cursor down", []string{"down"}},
	{CursorLeft, "Move cursor left", []string{"left", "ctrl+b"}},
	{CursorRight, "Move cursor right", []string{"right", "ctrl+f"}},
	{CursorWordLeft, "Move cursor word left", []string{"alt+left", "ctrl+left", "alt+b"}},
	{CursorWordRight, "Move cursor word right", []string{"alt+right", "ctrl+right", "alt+f"}},
	{CursorLineStart, "Move to line start", []string{"home", "ctrl+a"}},
	{CursorLineEnd, "Move to line end", []string{"end", "ctrl+e"}},
	{HistoryPrevious, "Previous history entry", nil},
	{HistoryNext, "Next history entry", nil},
	{JumpForward, "Jump forward to character", []string{"ctrl+]"}},
	{JumpBackward, "Jump backward to character", []string{"ctrl+alt+]"}},
	{EditorPageUp, "Page up", []string{"pageUp"}},
	{EditorPageDown, "Page down", []string{"pageDown"}},
	{DeleteCharBackward, "Delete character backward", []string{"backspace"}},
	{DeleteCharForward, "Delete character forward", []string{"delete", "ctrl+d"}},
	{DeleteWordBackward, "Delete word backward", []string{"ctrl+w", "alt+backspace"}},
	{DeleteWordForward, "Delete word forward", []string{"alt+d", "alt+delete"}},
	{DeleteToLineStart, "Delete to line start", []string{"ctrl+u"}},
	{DeleteToLineEnd, "Delete to line end", []string{"ctrl+k"}},
	{Yank, "Paste the last deleted text", []string{"ctrl+y"}},
	{YankPop, "Cycle deleted text", []string{"alt+y"}},
	{Undo, "Undo", []string{"ctrl+-"}},
	{NewLine, "Insert a new line", []string{"shift+enter", "ctrl+j"}},
	{Submit, "Submit", []string{"enter"}},
	{Tab, "Complete", []string{"tab"}},
	{Copy, "Copy selection", []string{"ctrl+c"}},
	{SelectUp, "Selection up", []string{"up"}},
	{SelectDown, "Selection down", []string{"down"}},
	{SelectPageUp, "Selection page up", []string{"pageUp"}},
	{SelectPageDown, "Selection page down", []string{"pageDown"}},
	{SelectConfirm, "Confirm selection", []string{"enter"}},
	{SelectCancel, "Cancel selection", []string{"escape", "ctrl+c"}},
	{ViewPageUp, "Scroll transcript page up", []string{"pageUp"}},
	{ViewPageDown, "Scroll transcript page down", []string{"pageDown"}},
	{ViewHalfPageUp, "Scroll transcript half a page up", nil},
	{ViewHalfPageDown, "Scroll transcript half a page down", nil},
	{ViewLineUp, "Scroll transcript one line up", nil},
	{ViewLineDown, "Scroll transcript one line down", nil},
	{ViewTop, "Scroll to the top of the transcript", []string{"ctrl+home"}},
	{ViewBottom, "Scroll to the end of the transcript", []string{"ctrl+end"}},
	{Interrupt, "Interrupt", []string{"escape"}},
	{Clear, "Clear editor", []string{"ctrl+c"}},
	{Exit, "Exit (when the editor is empty)", []string{"ctrl+d"}},
	{Suspend, "Suspend", []string{"ctrl+z"}},
	{ThinkingCycle, "Cycle thinking level", []string{"shift+tab"}},
	{ModelCycleForward, "Cycle models forward", []string{"ctrl+p"}},
	{ModelCycleBackward, "Cycle models backward", []string{"shift+ctrl+p"}},
	{ModelSelect, "Select model", []string{"ctrl+l"}},
	{ToolsExpand, "Expand tools", []string{"ctrl+o"}},
	{ThinkingToggle, "Expand thinking", []string{"ctrl+t"}},
	{EditorExternal, "External editor", []string{"ctrl+g"}},
	{MessageFollowUp, "Queue a follow-up", []string{"alt+enter"}},
	{MessageDequeue, "Edit queued messages", []string{"alt+up"}},
	{PasteImage, "Paste image", []string{"ctrl+v"}},
	{SessionNew, "New session", nil},
	{SessionTree, "Session tree", nil},
	{SessionFork, "Fork session", nil},
	{SessionResume, "Resume session", nil},
	{SessionTogglePath, "Toggle session path", []string{"ctrl+p"}},
	{SessionToggleSort, "Toggle session sort", []string{"ctrl+s"}},
	{SessionToggleNamed, "Toggle named sessions", []string{"ctrl+n"}},
	{SessionRename, "Rename session", []string{"ctrl+r"}},
	{SessionDelete, "Delete session", []string{"ctrl+d"}},
	{SessionDeleteNonInv, "Delete session (empty query)", []string{"ctrl+backspace"}},
	{ModelsSave, "Save scoped models", []string{"ctrl+s"}},
	{ModelsEnableAll, "Enable all models", []string{"ctrl+a"}},
	{ModelsClearAll, "Clear all models", []string{"ctrl+x"}},
	{ModelsToggleProvider, "Toggle provider", []string{"ctrl+p"}},
	{ModelsReorderUp, "Move model up", []string{"alt+up"}},
	{ModelsReorderDown, "Move model down", []string{"alt+down"}},
	{TreeFoldOrUp, "Fold or go up", []string{"ctrl+left", "alt+left"}},
	{TreeUnfoldOrDown, "Unfold or go down", []string{"ctrl+right", "alt+right"}},
	{TreeEditLabel, "Edit label", []string{"shift+l"}},
	{TreeToggleLabelTime, "Toggle label timestamps", []string{"shift+t"}},
	{TreeFilterDefault, "Default filter", []string{"ctrl+d"}},
	{TreeFilterNoTools, "Hide tools", []string{"ctrl+t"}},
	{TreeFilterUserOnly, "User messages only", []string{"ctrl+u"}},
	{TreeFilterLabeledOnly, "Labeled entries only", []string{"ctrl+l"}},
	{TreeFilterAll, "All entries", []string{"ctrl+a"}},
	{TreeFilterCycleFwd, "Cycle filter forward", []string{"ctrl+o"}},
	{TreeFilterCycleBack, "Cycle filter backward", []string{"shift+ctrl+o"}},
}

// legacy maps pi's flat ids to the namespaced ones (tui.md §4.1).
var legacy = map[string]string{
	"interrupt": Interrupt, "clear": Clear, "exit": Exit, "suspend": Suspend,
	"cycleThinkingLevel": ThinkingCycle, "cycleModelForward": ModelCycleForward,
	"cycleModelBackward": ModelCycleBackward, "selectModel": ModelSelect, "expandTools": ToolsExpand,
	"toggleThinking": ThinkingToggle, "externalEditor": EditorExternal, "followUp": MessageFollowUp,
	"dequeue": MessageDequeue, "pasteImage": PasteImage, "newSession": SessionNew, "tree": SessionTree,
	"fork": SessionFork, "resume": SessionResume, "treeFoldOrUp": TreeFoldOrUp,
	"treeUnfoldOrDown": TreeUnfoldOrDown, "toggleSessionPath": SessionTogglePath,
	"toggleSessionSort": SessionToggleSort, "renameSession": SessionRename, "deleteSession": SessionDelete,
	"deleteSessionNoninvasive": SessionDeleteNonInv, "selectUp": SelectUp, "selectDown": SelectDown,
	"selectPageUp": SelectPageUp, "selectPageDown": SelectPageDown, "selectConfirm": SelectConfirm,
	"selectCancel": SelectCancel, "newLine": NewLine, "submit": Submit, "tab": Tab, "copy": Copy,
}

func init() {
	for _, b := range Defaults {
		if strings.HasPrefix(b.ID, "tui.editor.") {
			legacy[strings.TrimPrefix(b.ID, "tui.editor.")] = b.ID
		}
	}
}

// Map is the effective keybindings: action id → canonical keys, and the reverse index.
type Map struct {
	keys   map[string][]string // id -> canonical keys, in configured order
	byKey  map[string][]string // canonical key -> ids, in Defaults order
	labels map[string][]string // id -> keys as configured (for hints)
}

// Default returns the default bindings.
func Default() *Map {
	m, _ := build(nil)
	return m
}

// maxFile bounds a keybindings.json read.
const maxFile = 1 << 20

// Load reads <agentDir>/keybindings.json over the defaults. A missing file gives the defaults; an
// unreadable or invalid file is ignored as a whole and reported (tui.md §4.1); values that are
// neither a string nor an array of strings and unknown ids are dropped.
func Load(agentDir string) (*Map, error) {
	path := filepath.Join(agentDir, "keybindings.json")
	fi, err := os.Stat(path)
	if err != nil {
		if os.IsNotExist(err) {
			return Default(), nil
		}
		return Default(), fmt.Errorf("keybindings: read %s: %w", path, err)
	}
	if fi.Size() > maxFile {
		return Default(), fmt.Errorf("keybindings: read %s: larger than %d bytes", path, maxFile)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return Default(), fmt.Errorf("keybindings: read %s: %w", path, err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return Default(), fmt.Errorf("keybindings: parse %s: %w (using the defaults)", path, err)
	}
	user := map[string][]string{}
	// Namespaced ids win over their legacy spelling, whatever the order in the file.
	ids := make([]string, 0, len(raw))
	for id := range raw {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return !strings.Contains(ids[i], ".") && strings.Contains(ids[j], ".") })
	for _, id := range ids {
		v := raw[id]
		if n, ok := legacy[id]; ok && !strings.Contains(id, ".") {
			id = n
		}
		var one string
		var many []string
		switch {
		case json.Unmarshal(v, &one) == nil:
			user[id] = []string{one}
		case json.Unmarshal(v, &many) == nil:
			user[id] = many
		}
	}
	return build(user)
}

func build(user map[string][]string) (*Map, error) {
	m := &Map{keys: map[string][]string{}, byKey: map[string][]string{}, labels: map[string][]string{}}
	var bad []string
	for _, b := range Defaults {
		src := b.Defaults
		if u, ok := user[b.ID]; ok {
			src = u
		}
		for _, k := range src {
			c, ok := Canonical(k)
			if !ok {
				bad = append(bad, k)
				continue
			}
			m.keys[b.ID] = append(m.keys[b.ID], c)
			m.labels[b.ID] = append(m.labels[b.ID], Label(k))
			m.byKey[c] = append(m.byKey[c], b.ID)
		}
	}
	if len(bad) > 0 {
		return m, fmt.Errorf("keybindings: unknown key(s) %s ignored", strings.Join(bad, ", "))
	}
	return m, nil
}

// Matches reports whether the key press is bound to action id.
func (m *Map) Matches(k tea.KeyPressMsg, id string) bool {
	s := Press(k)
	for _, c := range m.keys[id] {
		if c == s {
			return true
		}
	}
	return false
}

// Actions returns the ids bound to the press, in Defaults order.
func (m *Map) Actions(k tea.KeyPressMsg) []string { return m.byKey[Press(k)] }

// Keys returns the canonical keys bound to id (nil when unbound).
func (m *Map) Keys(id string) []string { return m.keys[id] }

// Hint is the display form of id's keys joined by "/", "" when unbound (tui.md §4.6).
func (m *Map) Hint(id string) string { return strings.Join(m.labels[id], "/") }

// Press is the canonical form of a Bubble Tea key press.
func Press(k tea.KeyPressMsg) string {
	s := tea.Key(k).Keystroke()
	c, ok := Canonical(s)
	if !ok {
		return s
	}
	return c
}

var keyNames = map[string]string{
	"escape": "esc", "return": "enter", "pageup": "pgup", "pagedown": "pgdown", "del": "delete",
	"ins": "insert",
}

// Canonical normalises a key string (tui.md §4.2): lower case, modifiers ordered ctrl, alt,
// shift, super (meta counts as alt), the key named as Bubble Tea names it. ok is false for an
// empty key or an unknown modifier.
func Canonical(s string) (string, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return "", false
	}
	var key string
	mods := map[string]bool{}
	parts := strings.Split(s, "+")
	// "ctrl++" or "+": a literal plus.
	if strings.HasSuffix(s, "++") || s == "+" {
		key = "+"
		parts = strings.Split(strings.TrimSuffix(s, "++"), "+")
		if s == "+" {
			parts = nil
		}
	} else {
		key = parts[len(parts)-1]
		parts = parts[:len(parts)-1]
	}
	for _, p := range parts {
		switch p {
		case "ctrl", "alt", "shift", "super":
			mods[p] = true
		case "meta", "option":
			mods["alt"] = true
		case "":
		default:
			return "", false
		}
	}
	if key == "" {
		return "", false
	}
	if n, ok := keyNames[key]; ok {
		key = n
	}
	var b strings.Builder
	for _, mod := range []string{"ctrl", "alt", "shift", "super"} {
		if mods[mod] {
			b.WriteString(mod)
			b.WriteByte('+')
		}
	}
	b.WriteString(key)
	return b.String(), true
}

// Label is the display form of a configured key: lower case, escape → esc, return → enter
// (tui.md §4.6).
func Label(s string) string {
	s = strings.ToLower(s)
	s = strings.ReplaceAll(s, "escape", "esc")
	return strings.ReplaceAll(s, "return", "enter")
}

// Labels returns every bound action id with the display labels of its keys (Hint's parts), as a
// new map.
func (m *Map) Labels() map[string][]string {
	out := make(map[string][]string, len(m.labels))
	for id, l := range m.labels {
		out[id] = append([]string(nil), l...)
	}
	return out
}
