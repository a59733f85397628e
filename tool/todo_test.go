package tool

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeEnv is a tool.Env with a fixed session and recorded dialogs.
type fakeEnv struct {
	id, file string
	dialogs  Dialogs
}

func (e fakeEnv) SessionID() string   { return e.id }
func (e fakeEnv) SessionFile() string { return e.file }
func (e fakeEnv) Dialogs() Dialogs    { return e.dialogs }

func runIn(t *testing.T, env Env, tl Tool, args map[string]any) Result {
	t.Helper()
	ctx := context.Background()
	if env != nil {
		ctx = WithEnv(ctx, env)
	}
	r, err := tl.Execute(ctx, Call{ID: "c", Name: tl.Name(), Args: args}, func(Result) {})
	if err != nil {
		t.Fatalf("%s(%v): %v", tl.Name(), args, err)
	}
	return r
}

func TestTodoLifecycle(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 1, 2, 3, 4, 5, 6e6, time.UTC)
	td := NewTodo(dir, TodoOptions{Getenv: func(string) string { return "" }, Now: func() time.Time { return now }})
	a := fakeEnv{id: "sess-a", file: "/s/a.jsonl"}
	b := fakeEnv{id: "sess-b", file: "/s/b.jsonl"}

	r := runIn(t, a, td, map[string]any{"action": "create", "title": "Write docs <now>", "tags": []any{"docs"}, "body": "first note"})
	d := r.Details.(TodoDetails)
	if d.Action != "create" || d.Todo == nil || len(d.Todo.ID) != 8 || d.Todo.Status != "open" || d.Todo.CreatedAt != "2026-01-02T03:04:05.006Z" {
		t.Fatalf("create details %+v", d)
	}
	id := d.Todo.ID
	var shown map[string]any
	if err := json.Unmarshal([]byte(text(r)), &shown); err != nil || shown["id"] != "TODO-"+id || shown["title"] != "Write docs <now>" {
		t.Fatalf("create text %s (%v)", text(r), err)
	}
	file := filepath.Join(dir, ".atomic", "todos", id+".md")
	want := "{\n  \"id\": \"" + id + "\",\n  \"title\": \"Write docs <now>\",\n  \"tags\": [\n    \"docs\"\n  ],\n  \"status\": \"open\",\n  \"created_at\": \"2026-01-02T03:04:05.006Z\"\n}\n\nfirst note\n"
	if got := readFile(t, file); got != want {
		t.Fatalf("file\n%q\nwant\n%q", got, want)
	}
	if _, err := os.Stat(filepath.Join(dir, ".atomic", "todos", id+".lock")); !os.IsNotExist(err) {
		t.Errorf("lock left behind: %v", err)
	}

	// Claims name the session; another session needs force.
	if d := runIn(t, a, td, map[string]any{"action": "claim", "id": "TODO-" + strings.ToUpper(id)}).Details.(TodoDetails); d.Todo == nil || d.Todo.AssignedToSession != "sess-a" {
		t.Fatalf("claim %+v", d)
	}
	r = runIn(t, b, td, map[string]any{"action": "claim", "id": id})
	if d := r.Details.(TodoDetails); d.Error == "" || !strings.Contains(text(r), "already assigned to session sess-a. Use force to override.") {
		t.Fatalf("foreign claim: %s %+v", text(r), d)
	}
	if d := runIn(t, b, td, map[string]any{"action": "claim", "id": id, "force": true}).Details.(TodoDetails); d.Todo.AssignedToSession != "sess-b" {
		t.Fatalf("forced claim %+v", d)
	}
	r = runIn(t, a, td, map[string]any{"action": "release", "id": id})
	if !strings.Contains(text(r), "is assigned to session sess-b. Use force to release.") {
		t.Fatalf("foreign release: %s", text(r))
	}

	// append and update change the body; closing clears the claim.
	r = runIn(t, b, td, map[string]any{"action": "append", "id": id, "body": "  second note  "})
	if d := r.Details.(TodoDetails); d.Todo.Body != "first note\n\nsecond note\n" {
		t.Fatalf("append body %q", d.Todo.Body)
	}
	r = runIn(t, b, td, map[string]any{"action": "update", "id": id, "status": "done"})
	if d := r.Details.(TodoDetails); d.Todo.Status != "done" || d.Todo.AssignedToSession != "" {
		t.Fatalf("update %+v", d.Todo)
	}
	if r := runIn(t, a, td, map[string]any{"action": "claim", "id": id}); !strings.Contains(text(r), "is closed") {
		t.Fatalf("claim of a closed todo: %s", text(r))
	}

	// list hides closed todos, list-all shows them; both name the session.
	second := runIn(t, a, td, map[string]any{"action": "create", "title": "Second"}).Details.(TodoDetails).Todo.ID
	r = runIn(t, a, td, map[string]any{"action": "list"})
	d = r.Details.(TodoDetails)
	if len(d.Todos) != 1 || d.Todos[0].ID != second || d.CurrentSessionID == nil || *d.CurrentSessionID != "sess-a" {
		t.Fatalf("list %+v", d)
	}
	var groups map[string][]map[string]any
	if err := json.Unmarshal([]byte(text(r)), &groups); err != nil || len(groups["open"]) != 1 || groups["open"][0]["id"] != "TODO-"+second {
		t.Fatalf("list text %s", text(r))
	}
	if d := runIn(t, a, td, map[string]any{"action": "list-all"}).Details.(TodoDetails); len(d.Todos) != 2 || d.Todos[1].ID != id {
		t.Fatalf("list-all %+v", d.Todos)
	}
	if d := runIn(t, a, td, map[string]any{"action": "get", "id": id}).Details.(TodoDetails); d.Todo.Body != "first note\n\nsecond note\n" {
		t.Fatalf("get %+v", d.Todo)
	}
	runIn(t, a, td, map[string]any{"action": "delete", "id": id})
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Fatalf("delete left %s", file)
	}
	if r := runIn(t, a, td, map[string]any{"action": "get", "id": id}); text(r) != "Todo TODO-"+id+" not found" || r.Details.(TodoDetails).Error != "not found" {
		t.Fatalf("get deleted: %s", text(r))
	}
}

func TestTodoFailures(t *testing.T) {
	dir := t.TempDir()
	td := NewTodo(dir, TodoOptions{Getenv: func(k string) string {
		if k == TodoPathEnv {
			return "custom/todos"
		}
		return ""
	}})
	if td.Dir() != filepath.Join(dir, "custom", "todos") || !strings.Contains(td.Description(), filepath.Join(dir, "custom", "todos")) {
		t.Fatalf("dir %s", td.Dir())
	}
	for _, c := range []struct {
		args       map[string]any
		text, code string
	}{
		{map[string]any{"action": "create"}, "Error: title required", "title required"},
		{map[string]any{"action": "update"}, "Error: id required", "id required"},
		{map[string]any{"action": "get", "id": "nothex"}, "Invalid todo id. Expected TODO-<hex>.", "Invalid todo id. Expected TODO-<hex>."},
		{map[string]any{"action": "claim", "id": "TODO-0000abcd"}, "Todo TODO-0000abcd not found", "not found"},
	} {
		r := runIn(t, nil, td, c.args)
		if text(r) != c.text || r.Details.(TodoDetails).Error != c.code || r.IsError {
			t.Errorf("%v: %q %+v", c.args, text(r), r.Details)
		}
	}
}

// confirmDialogs answers Confirm with ok and records the question.
type confirmDialogs struct {
	ok    bool
	asked []string
}

func (c *confirmDialogs) Select(context.Context, string, []string) (string, bool) { return "", false }
func (c *confirmDialogs) Input(context.Context, string, string) (string, bool)    { return "", false }
func (c *confirmDialogs) Confirm(_ context.Context, title, msg string) bool {
	c.asked = append(c.asked, title+": "+msg)
	return c.ok
}

func TestTodoLocks(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	td := NewTodo(dir, TodoOptions{Getenv: func(string) string { return "" }, Now: func() time.Time { return now }})
	id := runIn(t, nil, td, map[string]any{"action": "create", "title": "x"}).Details.(TodoDetails).Todo.ID
	lock := filepath.Join(td.Dir(), id+".lock")
	writeFiles(t, td.Dir(), map[string]string{id + ".lock": `{"id":"` + id + `","pid":1,"session":"/other.jsonl","created_at":"x"}`})
	if r := runIn(t, nil, td, map[string]any{"action": "update", "id": id, "title": "y"}); text(r) != "Todo TODO-"+id+" is locked (session /other.jsonl). Try again later." {
		t.Fatalf("fresh lock: %s", text(r))
	}
	old := now.Add(-time.Hour)
	if err := os.Chtimes(lock, old, old); err != nil {
		t.Fatal(err)
	}
	if r := runIn(t, nil, td, map[string]any{"action": "update", "id": id, "title": "y"}); !strings.Contains(text(r), "lock is stale; rerun in interactive mode") {
		t.Fatalf("stale lock without UI: %s", text(r))
	}
	no := &confirmDialogs{}
	if r := runIn(t, fakeEnv{dialogs: no}, td, map[string]any{"action": "update", "id": id, "title": "y"}); !strings.Contains(text(r), "remains locked") || len(no.asked) != 1 {
		t.Fatalf("declined steal: %s %v", text(r), no.asked)
	}
	yes := &confirmDialogs{ok: true}
	if r := runIn(t, fakeEnv{dialogs: yes}, td, map[string]any{"action": "update", "id": id, "title": "y"}); r.Details.(TodoDetails).Todo == nil || r.Details.(TodoDetails).Todo.Title != "y" {
		t.Fatalf("stolen lock: %s", text(r))
	}
	if _, err := os.Stat(lock); !os.IsNotExist(err) {
		t.Fatalf("lock kept after the update: %v", err)
	}
}
