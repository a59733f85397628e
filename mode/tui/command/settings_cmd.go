package command

import (
	"fmt"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/atomic-cli/atomic/mode/tui/keys"
	"github.com/atomic-cli/atomic/mode/tui/selector"
	"github.com/atomic-cli/atomic/mode/tui/theme"
	"github.com/atomic-cli/atomic/resource"
)

func init() {
	add(
		Command{Name: "settings", Description: "Open settings menu", Run: runSettings},
		Command{Name: "hotkeys", Description: "Show all keyboard shortcuts", Run: runHotkeys},
	)
}

// runSettings is /settings: the settings that act on the running session and screen. Changes
// apply at once and are saved in the global settings.json for the next run (saveSettings),
// except "Expand tool output", which is this screen's only.
func runSettings(h Host, _ string) tea.Cmd {
	s := h.Runtime().Session()
	bools := []string{"true", "false"}
	themeName := h.Theme().Name
	if themeName != "light" {
		themeName = "dark"
	}
	items := []selector.Setting{
		{ID: "autoCompact", Label: "Auto-compact", Values: bools, Value: strconv.FormatBool(s.AutoCompaction()), Description: "Compact the context automatically when it nears the window"},
		{ID: "autoRetry", Label: "Auto-retry", Values: bools, Value: strconv.FormatBool(s.AutoRetryEnabled()), Description: "Retry transient provider errors with backoff"},
		{ID: "steeringMode", Label: "Steering mode", Values: []string{"one-at-a-time", "all"}, Value: s.SteeringMode(), Description: "How many queued steering messages are delivered at once"},
		{ID: "followUpMode", Label: "Follow-up mode", Values: []string{"one-at-a-time", "all"}, Value: s.FollowUpMode(), Description: "How many queued follow-up messages are delivered at once"},
		{ID: "thinking", Label: "Thinking level", Values: s.AvailableThinkingLevels(), Value: s.ThinkingLevel(), Description: "Reasoning effort of the current model"},
		{ID: "theme", Label: "Theme", Values: []string{"dark", "light"}, Value: themeName},
		{ID: "toolsExpanded", Label: "Expand tool output", Values: bools, Value: strconv.FormatBool(h.ToolsExpanded())},
	}
	h.ShowDialog(selector.NewSettings(slotTheme(h), slotKeys(h), items, func(id, v string) (string, tea.Cmd, error) {
		on := v == "true"
		saved := func() { // the choice is live: keep it for the next run too
			if warn := saveSettings(h, settingKeys[id], settingValue(id, v)); warn != "" {
				h.Notify("warning", warn)
			}
		}
		switch id {
		case "autoCompact":
			s.SetAutoCompaction(on)
		case "autoRetry":
			s.SetAutoRetry(on)
		case "steeringMode":
			if err := s.SetSteeringMode(v); err != nil {
				return v, nil, err
			}
		case "followUpMode":
			if err := s.SetFollowUpMode(v); err != nil {
				return v, nil, err
			}
		case "thinking":
			// thinking_level_select handlers may take their time: off the UI goroutine.
			return v, func() tea.Msg {
				if err := s.SetThinkingLevel(v); err != nil {
					return notify("error", "Thinking level: "+err.Error())
				}
				return later(func(h Host) tea.Cmd { saved(); h.Reload(); return nil })
			}, nil
		case "theme":
			if v == "light" {
				h.SetTheme(theme.Light())
			} else {
				h.SetTheme(theme.Dark())
			}
		case "toolsExpanded":
			h.SetToolsExpanded(on)
			return v, nil, nil
		}
		saved()
		return v, nil, nil
	}, nil))
	return nil
}

// settingKeys are the settings.json keys of the /settings items that are saved.
var settingKeys = map[string]string{
	"autoCompact": "compaction.enabled", "autoRetry": "retry.enabled", "steeringMode": "steeringMode",
	"followUpMode": "followUpMode", "thinking": "defaultThinkingLevel", "theme": "theme",
}

// settingValue is the JSON value of a /settings item's choice (booleans for the switches).
func settingValue(id, v string) any {
	if id == "autoCompact" || id == "autoRetry" {
		return v == "true"
	}
	return v
}

// hotkeyGroups are the sections of /hotkeys (tui.md §2.1): the action ids each lists.
var hotkeyGroups = []struct {
	title string
	ids   []string
}{
	{"Navigation", []string{keys.CursorUp, keys.CursorDown, keys.CursorLeft, keys.CursorRight, keys.CursorWordLeft, keys.CursorWordRight,
		keys.CursorLineStart, keys.CursorLineEnd, keys.EditorPageUp, keys.EditorPageDown, keys.ViewTop, keys.ViewBottom}},
	{"Editing", []string{keys.Submit, keys.NewLine, keys.Tab, keys.DeleteCharBackward, keys.DeleteCharForward, keys.DeleteWordBackward,
		keys.DeleteWordForward, keys.DeleteToLineStart, keys.DeleteToLineEnd, keys.Yank, keys.YankPop, keys.Undo, keys.EditorExternal,
		keys.PasteImage}},
	{"Other", []string{keys.Interrupt, keys.Clear, keys.Exit, keys.Suspend, keys.ThinkingCycle, keys.ModelCycleForward,
		keys.ModelCycleBackward, keys.ModelSelect, keys.ToolsExpand, keys.ThinkingToggle, keys.MessageFollowUp, keys.MessageDequeue,
		keys.SessionNew, keys.SessionTree, keys.SessionFork, keys.SessionResume}},
}

// runHotkeys is /hotkeys: the effective keys of every action, by section, then the extensions'
// shortcuts.
func runHotkeys(h Host, _ string) tea.Cmd {
	km := h.Keys()
	desc := map[string]string{}
	for _, b := range keys.Defaults {
		desc[b.ID] = b.Description
	}
	var b strings.Builder
	for i, g := range hotkeyGroups {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(g.title + "\n")
		for _, id := range g.ids {
			k := km.Hint(id)
			if k == "" {
				continue
			}
			fmt.Fprintf(&b, "  %-22s %s\n", k, desc[id])
		}
	}
	if sc := h.Runtime().Session().Runner().Shortcuts(); len(sc) > 0 {
		b.WriteString("\nExtensions\n")
		for _, s := range sc {
			fmt.Fprintf(&b, "  %-22s %s\n", s.Key, s.Description)
		}
	}
	h.Notify("info", strings.TrimRight(b.String(), "\n"))
	return nil
}

// saveSettings writes the user's choice to the global settings.json so the next run starts with
// it, as pi and Atomic do for choices made in the interactive mode (defaultProvider/defaultModel,
// defaultThinkingLevel, theme, compaction.enabled, retry.enabled, steeringMode, followUpMode). A
// host without an agent dir saves nothing; a failure is a warning notice, the live change stays.
// It returns the notice to show, or "" when every key was saved.
func saveSettings(h Host, kv ...any) string {
	ad, ok := h.(agentDirHost)
	if !ok || ad.AgentDir() == "" {
		return ""
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if err := resource.SaveGlobalSetting(ad.AgentDir(), kv[i].(string), kv[i+1]); err != nil {
			return "Not saved for the next run: " + err.Error()
		}
	}
	return ""
}
