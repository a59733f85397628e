package tool

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
)

// The todo tool (tools.md §11.2) keeps todos as files, as Atomic does, so they outlive a session
// and are shared by every session in the project (resumed, forked or parallel): one
// "<8 hex>.md" per todo under TodoDir — a pretty-printed JSON object {id, title, tags, status,
// created_at, assigned_to_session?}, a blank line, then the markdown body — and an "<id>.lock"
// file while a call changes it. A session claims a todo by writing its id into
// assigned_to_session.

// TodoPathEnv names the environment variable that moves the todo directory (resolved against
// the working directory).
const TodoPathEnv = "ATOMIC_TODO_PATH"

// todoDirName is the todo directory below the working directory when TodoPathEnv is unset.
const todoDirName = ".atomic/todos"

// todoLockTTL is the age after which a todo's lock counts as stale and may be taken over.
const todoLockTTL = 30 * time.Minute

// maxTodoBytes bounds how much of one todo file is read.
const maxTodoBytes = 4 << 20

// TodoOptions configure the todo tool.
type TodoOptions struct {
	// Getenv reads TodoPathEnv; nil means os.Getenv.
	Getenv func(string) string
	// Now is the clock for created_at and lock ages; nil means time.Now.
	Now func() time.Time
}

// Todo is the todo tool.
type Todo struct {
	cwd    string
	getenv func(string) string
	now    func() time.Time
}

// NewTodo returns the todo tool for the session working directory cwd.
func NewTodo(cwd string, opts TodoOptions) *Todo {
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Todo{cwd: cwd, getenv: opts.Getenv, now: opts.Now}
}

// TodoFrontMatter is a todo's JSON header (Atomic's TodoFrontMatter).
type TodoFrontMatter struct {
	ID                string   `json:"id"`
	Title             string   `json:"title"`
	Tags              []string `json:"tags"`
	Status            string   `json:"status"`
	CreatedAt         string   `json:"created_at"`
	AssignedToSession string   `json:"assigned_to_session,omitempty"`
}

// TodoRecord is a todo with its body.
type TodoRecord struct {
	TodoFrontMatter
	Body string `json:"body"`
}

// TodoDetails is details of a todo result: for list and list-all the todos and the session id,
// for the other actions the todo acted on; Error names a failure (the text says it too).
type TodoDetails struct {
	Action           string            `json:"action"`
	Todos            []TodoFrontMatter `json:"todos,omitempty"`
	CurrentSessionID *string           `json:"currentSessionId,omitempty"`
	Todo             *TodoRecord       `json:"todo,omitempty"`
	Error            string            `json:"error,omitempty"`
}

// Dir is the directory the todos live in.
func (t *Todo) Dir() string {
	if p := strings.TrimSpace(t.getenv(TodoPathEnv)); p != "" {
		return ResolveToCwd(p, t.cwd)
	}
	return filepath.Join(t.cwd, filepath.FromSlash(todoDirName))
}

func (t *Todo) dirLabel() string {
	if p := strings.TrimSpace(t.getenv(TodoPathEnv)); p != "" {
		return ResolveToCwd(p, t.cwd)
	}
	return todoDirName
}

// Name implements Tool.
func (*Todo) Name() string { return "todo" }

// Label implements Labeler.
func (*Todo) Label() string { return "Todo" }

// Description implements Tool.
func (t *Todo) Description() string {
	return "Manage the project's todos, kept as files in " + t.dirLabel() +
		" (actions: list, list-all, get, create, update, append, delete, claim, release). The title is a " +
		"one-line summary and the body markdown notes (update replaces the body, append adds to it). Ids " +
		"look like TODO-<hex>; the bare hex works too. Claim a todo before you work on it so other " +
		"sessions leave it alone, and close it (status closed or done) when finished."
}

var todoSchema = json.RawMessage(`{"type":"object","required":["action"],"properties":{` +
	`"action":{"type":"string","enum":["list","list-all","get","create","update","append","delete","claim","release"]},` +
	`"id":{"type":"string","description":"Todo id: TODO-<hex> or the bare hex"},` +
	`"title":{"type":"string","description":"One-line summary shown in lists"},` +
	`"status":{"type":"string","description":"Status, e.g. open, in-progress, closed, done"},` +
	`"tags":{"type":"array","items":{"type":"string","description":"A tag"}},` +
	`"body":{"type":"string","description":"Markdown notes; update replaces them, append adds to them"},` +
	`"force":{"type":"boolean","description":"Take over (claim) or release a todo another session holds"}}}`)

// Parameters implements Tool.
func (*Todo) Parameters() json.RawMessage { return todoSchema }

// PromptSnippet implements Prompter.
func (*Todo) PromptSnippet() string {
	return "Track work as project todos (list, create, claim, update, close)"
}

// PromptGuidelines implements Prompter.
func (*Todo) PromptGuidelines() []string {
	return []string{"When a task has several distinct steps, record them with the todo tool first and keep their status current as you work."}
}

type todoParams struct {
	Action string    `json:"action"`
	ID     string    `json:"id"`
	Title  *string   `json:"title"`
	Status *string   `json:"status"`
	Tags   *[]string `json:"tags"`
	Body   *string   `json:"body"`
	Force  bool      `json:"force"`
}

// todoFailure is an action's failure: reported to the model as a result, not a tool error.
type todoFailure struct{ text, detail string }

func (f *todoFailure) Error() string { return f.text }

func failure(text string) *todoFailure { return &todoFailure{text: text, detail: text} }

var todoIDRe = regexp.MustCompile(`^[a-fA-F0-9]{8}$`)

// normalizeTodoID turns "TODO-abcd1234", "#abcd1234" or "abcd1234" into "abcd1234".
func normalizeTodoID(id string) (string, error) {
	s := strings.TrimPrefix(strings.TrimSpace(id), "#")
	if len(s) >= 5 && strings.EqualFold(s[:5], "TODO-") {
		s = s[5:]
	}
	if !todoIDRe.MatchString(s) {
		return "", failure("Invalid todo id. Expected TODO-<hex>.")
	}
	return strings.ToLower(s), nil
}

func displayTodoID(id string) string {
	s := strings.TrimPrefix(strings.TrimSpace(id), "#")
	if len(s) >= 5 && strings.EqualFold(s[:5], "TODO-") {
		s = s[5:]
	}
	return "TODO-" + s
}

func todoClosed(status string) bool {
	s := strings.ToLower(status)
	return s == "closed" || s == "done"
}

// Execute implements Tool. Failures of an action (missing id or title, unknown todo, a lock held
// by another call, a claim held by another session) are results whose text says what went wrong
// and whose details carry error; errors are for file system failures and aborts.
func (t *Todo) Execute(ctx context.Context, call Call, _ func(Result)) (Result, error) {
	p, err := decodeArgs[todoParams]("todo", call.Args)
	if err != nil {
		return Result{}, err
	}
	if err := checkAborted(ctx); err != nil {
		return Result{}, err
	}
	env := EnvFrom(ctx)
	var sessionID, sessionFile string
	var dialogs Dialogs
	if env != nil {
		sessionID, sessionFile, dialogs = env.SessionID(), env.SessionFile(), env.Dialogs()
	}
	dir := t.Dir()
	switch p.Action {
	case "list", "list-all":
		todos, err := listTodos(dir)
		if err != nil {
			return Result{}, err
		}
		if p.Action == "list" {
			var kept []TodoFrontMatter
			for _, td := range todos {
				if !todoClosed(td.Status) {
					kept = append(kept, td)
				}
			}
			todos = kept
		}
		if todos == nil {
			todos = []TodoFrontMatter{}
		}
		return TextResult(todoListText(todos), TodoDetails{Action: p.Action, Todos: todos, CurrentSessionID: &sessionID}), nil
	case "get", "create", "update", "append", "delete", "claim", "release":
	default:
		return Result{}, fmt.Errorf("todo: unknown action %q", p.Action)
	}
	rec, err := t.act(ctx, dir, p, sessionID, sessionFile, dialogs)
	var f *todoFailure
	if errors.As(err, &f) {
		return TextResult(f.text, TodoDetails{Action: p.Action, Error: f.detail}), nil
	}
	if err != nil {
		return Result{}, err
	}
	return TextResult(todoRecordText(rec), TodoDetails{Action: p.Action, Todo: rec}), nil
}

// act runs one record action.
func (t *Todo) act(ctx context.Context, dir string, p todoParams, sessionID, sessionFile string, dialogs Dialogs) (*TodoRecord, error) {
	if p.Action == "create" {
		if p.Title == nil || *p.Title == "" {
			return nil, &todoFailure{text: "Error: title required", detail: "title required"}
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("todo: create %s: %w", dir, err)
		}
		id, err := newTodoID(dir)
		if err != nil {
			return nil, err
		}
		rec := &TodoRecord{TodoFrontMatter: TodoFrontMatter{ID: id, Title: *p.Title, Tags: []string{}, Status: "open",
			CreatedAt: isoTime(t.now())}}
		if p.Tags != nil {
			rec.Tags = *p.Tags
		}
		if p.Status != nil {
			rec.Status = *p.Status
		}
		if p.Body != nil {
			rec.Body = *p.Body
		}
		err = t.withLock(ctx, dir, id, sessionFile, dialogs, func() error { return writeTodo(dir, rec) })
		return rec, err
	}
	if p.ID == "" {
		return nil, &todoFailure{text: "Error: id required", detail: "id required"}
	}
	id, err := normalizeTodoID(p.ID)
	if err != nil {
		return nil, err
	}
	notFound := &todoFailure{text: "Todo " + displayTodoID(p.ID) + " not found", detail: "not found"}
	file := filepath.Join(dir, id+".md")
	if _, err := os.Stat(file); err != nil {
		return nil, notFound
	}
	if p.Action == "get" {
		rec, err := readTodo(file, id)
		if err != nil {
			return nil, notFound
		}
		return rec, nil
	}
	var rec *TodoRecord
	err = t.withLock(ctx, dir, id, sessionFile, dialogs, func() error {
		var err error
		if rec, err = readTodo(file, id); err != nil {
			return notFound
		}
		shown := displayTodoID(p.ID)
		switch p.Action {
		case "update":
			rec.ID = id
			if p.Title != nil {
				rec.Title = *p.Title
			}
			if p.Status != nil {
				rec.Status = *p.Status
			}
			if p.Tags != nil {
				rec.Tags = *p.Tags
			}
			if p.Body != nil {
				rec.Body = *p.Body
			}
			if rec.CreatedAt == "" {
				rec.CreatedAt = isoTime(t.now())
			}
			if todoClosed(rec.Status) {
				rec.AssignedToSession = ""
			}
			return writeTodo(dir, rec)
		case "append":
			if p.Body == nil || strings.TrimSpace(*p.Body) == "" {
				return nil
			}
			spacer := ""
			if strings.TrimSpace(rec.Body) != "" {
				spacer = "\n\n"
			}
			rec.Body = strings.TrimRight(rec.Body, " \t\r\n") + spacer + strings.TrimSpace(*p.Body) + "\n"
			return writeTodo(dir, rec)
		case "delete":
			if err := os.Remove(file); err != nil {
				return fmt.Errorf("todo: delete %s: %w", file, err)
			}
			return nil
		case "claim":
			if todoClosed(rec.Status) {
				return failure("Todo " + shown + " is closed")
			}
			if a := rec.AssignedToSession; a != "" && a != sessionID && !p.Force {
				return failure("Todo " + shown + " is already assigned to session " + a + ". Use force to override.")
			}
			if rec.AssignedToSession != sessionID {
				rec.AssignedToSession = sessionID
				return writeTodo(dir, rec)
			}
			return nil
		default: // release
			a := rec.AssignedToSession
			if a == "" {
				return nil
			}
			if a != sessionID && !p.Force {
				return failure("Todo " + shown + " is assigned to session " + a + ". Use force to release.")
			}
			rec.AssignedToSession = ""
			return writeTodo(dir, rec)
		}
	})
	return rec, err
}

// todoLock is the content of an "<id>.lock" file.
type todoLock struct {
	ID        string  `json:"id"`
	PID       int     `json:"pid"`
	Session   *string `json:"session"`
	CreatedAt string  `json:"created_at"`
}

// withLock runs fn holding the todo's lock file. A lock younger than todoLockTTL fails the
// action; an older one is taken over after the user confirms (without a UI the action fails).
func (t *Todo) withLock(ctx context.Context, dir, id, sessionFile string, dialogs Dialogs, fn func() error) error {
	lock := filepath.Join(dir, id+".lock")
	shown := "TODO-" + id
	for attempt := 0; attempt < 2; attempt++ {
		f, err := os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			var session *string
			if sessionFile != "" {
				session = &sessionFile
			}
			data, _ := json.MarshalIndent(todoLock{ID: id, PID: os.Getpid(), Session: session, CreatedAt: isoTime(t.now())}, "", "  ")
			_, werr := f.Write(data)
			cerr := f.Close()
			if werr != nil || cerr != nil {
				os.Remove(lock)
				return fmt.Errorf("todo: write lock %s: %w", lock, errors.Join(werr, cerr))
			}
			defer os.Remove(lock)
			return fn()
		}
		if !errors.Is(err, fs.ErrExist) {
			return failure("Failed to acquire lock: " + err.Error())
		}
		age := todoLockTTL + time.Second
		if fi, err := os.Stat(lock); err == nil {
			age = t.now().Sub(fi.ModTime())
		}
		if age <= todoLockTTL {
			owner := ""
			if data, err := readRegular(lock, 64<<10); err == nil {
				var l todoLock
				if json.Unmarshal(data, &l) == nil && l.Session != nil && *l.Session != "" {
					owner = " (session " + *l.Session + ")"
				}
			}
			return failure("Todo " + shown + " is locked" + owner + ". Try again later.")
		}
		if dialogs == nil {
			return failure("Todo " + shown + " lock is stale; rerun in interactive mode to steal it.")
		}
		if !dialogs.Confirm(ctx, "Todo locked", "Todo "+shown+" appears locked. Steal the lock?") {
			return failure("Todo " + shown + " remains locked.")
		}
		os.Remove(lock)
	}
	return failure("Failed to acquire lock for todo " + shown + ".")
}

// newTodoID returns a fresh random id with no file yet.
func newTodoID(dir string) (string, error) {
	for range 10 {
		var b [4]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", fmt.Errorf("todo: new id: %w", err)
		}
		id := hex.EncodeToString(b[:])
		if _, err := os.Stat(filepath.Join(dir, id+".md")); errors.Is(err, fs.ErrNotExist) {
			return id, nil
		}
	}
	return "", errors.New("Failed to generate unique todo id")
}

func isoTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// marshalTodoJSON is JSON pretty-printed with two spaces and without HTML escaping, as
// JavaScript's JSON.stringify(v, null, 2) writes it.
func marshalTodoJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}

// writeTodo writes rec's file: the JSON header, and the body after a blank line.
func writeTodo(dir string, rec *TodoRecord) error {
	fm := rec.TodoFrontMatter
	if fm.Tags == nil {
		fm.Tags = []string{}
	}
	out := marshalTodoJSON(fm) + "\n"
	if body := strings.TrimRight(strings.TrimLeft(rec.Body, "\n"), " \t\r\n"); body != "" {
		out += "\n" + body + "\n"
	}
	file := filepath.Join(dir, fm.ID+".md")
	if err := os.WriteFile(file, []byte(out), 0o644); err != nil {
		return fmt.Errorf("todo: write %s: %w", file, err)
	}
	return nil
}

// parseTodo splits a todo file into its header (defaults where fields are missing or invalid)
// and body.
func parseTodo(data []byte, id string) *TodoRecord {
	rec := &TodoRecord{TodoFrontMatter: TodoFrontMatter{ID: id, Tags: []string{}, Status: "open"}}
	body := data
	if bytes.HasPrefix(data, []byte("{")) {
		dec := json.NewDecoder(bytes.NewReader(data))
		var raw map[string]any
		if dec.Decode(&raw) == nil {
			body = bytes.TrimLeft(data[dec.InputOffset():], "\r\n")
			if s, ok := raw["title"].(string); ok {
				rec.Title = s
			}
			if s, ok := raw["status"].(string); ok && s != "" {
				rec.Status = s
			}
			if s, ok := raw["created_at"].(string); ok {
				rec.CreatedAt = s
			}
			if s, ok := raw["assigned_to_session"].(string); ok && strings.TrimSpace(s) != "" {
				rec.AssignedToSession = s
			}
			if tags, ok := raw["tags"].([]any); ok {
				for _, tg := range tags {
					if s, ok := tg.(string); ok {
						rec.Tags = append(rec.Tags, s)
					}
				}
			}
		}
	}
	rec.Body = string(body)
	return rec
}

func readTodo(file, id string) (*TodoRecord, error) {
	data, err := readRegular(file, maxTodoBytes)
	if err != nil {
		return nil, err
	}
	return parseTodo(data, id), nil
}

// listTodos reads every todo's header, sorted: open before closed, claimed before unclaimed
// among the open ones, then by creation time. A missing directory has none.
func listTodos(dir string) ([]TodoFrontMatter, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("todo: list %s: %w", dir, err)
	}
	var out []TodoFrontMatter
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".md")
		if !ok {
			continue
		}
		rec, err := readTodo(filepath.Join(dir, e.Name()), id)
		if err != nil {
			continue // an unreadable todo is left out
		}
		out = append(out, rec.TodoFrontMatter)
	}
	rank := func(td TodoFrontMatter) int {
		switch {
		case todoClosed(td.Status):
			return 2
		case td.AssignedToSession != "":
			return 0
		}
		return 1
	}
	sort.SliceStable(out, func(i, j int) bool {
		if ri, rj := rank(out[i]), rank(out[j]); ri != rj {
			return ri < rj
		}
		return out[i].CreatedAt < out[j].CreatedAt
	})
	return out, nil
}

// todoRecordText is a todo as the model sees it: its JSON with the TODO- id.
func todoRecordText(rec *TodoRecord) string {
	shown := *rec
	shown.ID = "TODO-" + rec.ID
	if shown.Tags == nil {
		shown.Tags = []string{}
	}
	return marshalTodoJSON(shown)
}

// todoListText is a list as the model sees it: {assigned, open, closed} with TODO- ids.
func todoListText(todos []TodoFrontMatter) string {
	groups := struct {
		Assigned []TodoFrontMatter `json:"assigned"`
		Open     []TodoFrontMatter `json:"open"`
		Closed   []TodoFrontMatter `json:"closed"`
	}{[]TodoFrontMatter{}, []TodoFrontMatter{}, []TodoFrontMatter{}}
	for _, td := range todos {
		td.ID = "TODO-" + td.ID
		switch {
		case todoClosed(td.Status):
			groups.Closed = append(groups.Closed, td)
		case td.AssignedToSession != "":
			groups.Assigned = append(groups.Assigned, td)
		default:
			groups.Open = append(groups.Open, td)
		}
	}
	return marshalTodoJSON(groups)
}
