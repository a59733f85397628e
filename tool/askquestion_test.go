package tool

import (
	"context"
	"strings"
	"testing"
)

// scriptDialogs answers dialogs from a script of replies ("" with ok=false dismisses) and
// records what it was shown.
type scriptDialogs struct {
	replies []string
	shown   []string
}

func (s *scriptDialogs) reply() (string, bool) {
	if len(s.replies) == 0 {
		return "", false
	}
	r := s.replies[0]
	s.replies = s.replies[1:]
	return r, r != "<dismiss>"
}

func (s *scriptDialogs) Select(_ context.Context, title string, options []string) (string, bool) {
	s.shown = append(s.shown, "select "+title+" | "+strings.Join(options, " | "))
	return s.reply()
}

func (s *scriptDialogs) Input(_ context.Context, title, _ string) (string, bool) {
	s.shown = append(s.shown, "input "+title)
	return s.reply()
}

func (s *scriptDialogs) Confirm(context.Context, string, string) bool { return false }

var askArgs = map[string]any{"questions": []any{
	map[string]any{"question": "Which database?", "header": "DB", "options": []any{
		map[string]any{"label": "Postgres", "description": "relational"},
		map[string]any{"label": "SQLite", "description": "embedded", "preview": "file.db"},
	}},
	map[string]any{"question": "Which features?", "header": "Features", "multiSelect": true, "options": []any{
		map[string]any{"label": "Auth", "description": ""},
		map[string]any{"label": "Search", "description": ""},
		map[string]any{"label": "Export", "description": ""},
	}},
}}

func TestAskUserQuestionAnswers(t *testing.T) {
	d := &scriptDialogs{replies: []string{"SQLite — embedded", "[ ] Auth", "[ ] Export", "[x] Auth", "[ ] Auth", askDoneRow}}
	r := runIn(t, fakeEnv{dialogs: d}, NewAskUserQuestion(), askArgs)
	want := `User has answered your questions: "Which database?"="SQLite". selected preview: file.db. "Which features?"="Auth, Export". You can now continue with the user's answers in mind.`
	if text(r) != want || r.Terminate || r.IsError {
		t.Fatalf("got %q\nwant %q", text(r), want)
	}
	det := r.Details.(AskDetails)
	if det.Cancelled || len(det.Answers) != 2 || det.Answers[0].Kind != "option" || *det.Answers[0].Answer != "SQLite" ||
		det.Answers[1].Kind != "multi" || det.Answers[1].Answer != nil || strings.Join(det.Answers[1].Selected, ",") != "Auth,Export" {
		t.Fatalf("details %+v", det)
	}
	// The question with a preview has no free-text row; the multi-select one shows its state.
	if d.shown[0] != "select [DB] Which database? | Postgres — relational | SQLite — embedded | Chat about this" ||
		!strings.Contains(d.shown[3], "[x] Auth | [ ] Search | [x] Export | "+askDoneRow) {
		t.Fatalf("dialogs %q", d.shown)
	}
}

func TestAskUserQuestionCustomChatDecline(t *testing.T) {
	one := map[string]any{"questions": []any{map[string]any{"question": "Name?", "header": "Name", "options": []any{
		map[string]any{"label": "A", "description": "a"}, map[string]any{"label": "B", "description": "b"}}}}}
	d := &scriptDialogs{replies: []string{askTypeRow, "Zed"}}
	r := runIn(t, fakeEnv{dialogs: d}, NewAskUserQuestion(), one)
	if text(r) != `User has answered your questions: "Name?"="Zed". You can now continue with the user's answers in mind.` ||
		r.Details.(AskDetails).Answers[0].Kind != "custom" || d.shown[1] != "input Name?" {
		t.Fatalf("custom: %q %q", text(r), d.shown)
	}
	r = runIn(t, fakeEnv{dialogs: &scriptDialogs{replies: []string{askChatRow}}}, NewAskUserQuestion(), one)
	if !r.Terminate || !strings.HasPrefix(text(r), "User wants to chat about this before choosing.") || r.Details.(AskDetails).Answers[0].Kind != "chat" {
		t.Fatalf("chat: %q %v", text(r), r.Terminate)
	}
	r = runIn(t, fakeEnv{dialogs: &scriptDialogs{replies: []string{"<dismiss>"}}}, NewAskUserQuestion(), one)
	if text(r) != "User declined to answer questions" || !r.Details.(AskDetails).Cancelled {
		t.Fatalf("declined: %q", text(r))
	}
}

func TestAskUserQuestionRefusals(t *testing.T) {
	r := runIn(t, nil, NewAskUserQuestion(), askArgs)
	if d := r.Details.(AskDetails); d.Error != "no_ui" || !d.Cancelled || !strings.Contains(text(r), "UI not available") {
		t.Fatalf("no UI: %q %+v", text(r), d)
	}
	env := fakeEnv{dialogs: &scriptDialogs{}}
	for code, q := range map[string]map[string]any{
		"reserved_label":         {"question": "Q?", "header": "H", "options": []any{map[string]any{"label": "Other", "description": ""}, map[string]any{"label": "B", "description": ""}}},
		"duplicate_option_label": {"question": "Q?", "header": "H", "options": []any{map[string]any{"label": "B", "description": ""}, map[string]any{"label": "B", "description": ""}}},
	} {
		r := runIn(t, env, NewAskUserQuestion(), map[string]any{"questions": []any{q}})
		if d := r.Details.(AskDetails); d.Error != code || !strings.HasPrefix(text(r), "Error: ") {
			t.Errorf("%s: %q %+v", code, text(r), d)
		}
	}
}
