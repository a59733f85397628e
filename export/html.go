// Package export renders a session as one self-contained HTML page (`atomic --export`, RPC
// export_html; rpc-and-json.md §3.6, §9).
//
// The page is a single file: inline CSS, images as data: URIs, no scripts and no external
// assets; a Content-Security-Policy meta tag forbids everything else. It shows a header (session
// name and id, working directory, creation time, the models used, token and cost totals of the
// assistant messages on the branch) and then the entries of the current branch (root to leaf) in
// order: user messages, assistant text, thinking blocks collapsed in <details>, tool calls with
// their JSON arguments, tool results (errors marked), user shell runs (bashExecution), displayed
// custom messages (display:false ones are left out), compaction and branch summaries, and model,
// thinking-level, context-window and session-name changes as small notes. Labels are shown on the
// entries they label; extension state (custom entries), session summaries and unknown entry types
// are not shown.
//
// Text is not rendered as Markdown: everything that comes from the session is HTML-escaped and
// shown preformatted, line breaks kept.
//
// Output path. Without an explicit path the page is written to DefaultOutputPath: the relative
// file name "atomic-session-<base>.html" in the process working directory, where <base> is the
// session file name without ".jsonl" (pi writes "pi-session-<base>.html" the same way).
//
// export imports store and llm only.
package export

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/store"
)

// Errors of Session, worded as pi's.
var (
	// ErrInMemory: the session is not persisted (--no-session), so there is no file to name it.
	ErrInMemory = errors.New("Cannot export in-memory session to HTML")
	// ErrNothingYet: the session file has not been written yet (lazy first write, no assistant
	// message so far).
	ErrNothingYet = errors.New("Nothing to export yet - start a conversation first")
)

// filePrefix starts the default output file name.
const filePrefix = "atomic-session-"

// DefaultOutputPath is the file written when no output path is given: the relative name
// "atomic-session-<base>.html", <base> being the base name of sessionFile without ".jsonl". It
// resolves against the process working directory.
func DefaultOutputPath(sessionFile string) string {
	return filePrefix + strings.TrimSuffix(filepath.Base(sessionFile), ".jsonl") + ".html"
}

// FromFile is `atomic --export <inputPath> [outputPath]`: it loads the session file at inputPath
// and writes the page of its branch ending at the last entry to outputPath ("" means
// DefaultOutputPath(inputPath)). It returns the path written, as given (relative stays relative).
//
// The file is read with store.OpenReadOnly: a process writing it does not block the export, and
// a version 1 or 2 file is migrated in memory only (the file is left as it is).
// A missing file, a directory, an empty file and a file that is not a session are errors.
func FromFile(inputPath, outputPath string) (string, error) {
	fi, err := os.Stat(inputPath)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("File not found: %s", inputPath)
	}
	if err != nil {
		return "", err
	}
	if fi.IsDir() {
		return "", fmt.Errorf("Not a session file: %s is a directory", inputPath)
	}
	data, err := os.ReadFile(inputPath)
	if err != nil {
		return "", err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		// store.Open would start a fresh session with a new id for it.
		return "", fmt.Errorf("Session file is empty: %s", inputPath)
	}
	st, err := store.OpenReadOnly(inputPath)
	if err != nil {
		return "", err
	}
	if outputPath == "" {
		outputPath = DefaultOutputPath(inputPath)
	}
	return WriteFile(st, outputPath)
}

// Session is export_html: it writes the page of the live session s at its current leaf to
// outputPath ("" means DefaultOutputPath(s.SessionFile())) and returns the absolute path written,
// so a client that does not share the agent's working directory can find it. Like pi it refuses
// an in-memory session (ErrInMemory) and one whose file does not exist yet (ErrNothingYet).
func Session(s *store.Session, outputPath string) (string, error) {
	if !s.IsPersisted() || s.SessionFile() == "" {
		return "", ErrInMemory
	}
	if _, err := os.Stat(s.SessionFile()); err != nil {
		return "", ErrNothingYet
	}
	if outputPath == "" {
		outputPath = DefaultOutputPath(s.SessionFile())
	}
	path, err := WriteFile(s, outputPath)
	if err != nil {
		return "", err
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return path, nil
}

// WriteFile renders s (Render) and writes the page to path (mode 0644), returning path.
func WriteFile(s *store.Session, path string) (string, error) {
	if path == "" {
		return "", errors.New("export: no output path")
	}
	if err := os.WriteFile(path, Render(s), 0o644); err != nil {
		return "", fmt.Errorf("Cannot write %s: %w", path, err)
	}
	return path, nil
}

// Render returns the HTML page of the path from a root to the current leaf of s.
func Render(s *store.Session) []byte {
	branch := s.Branch("")
	r := &renderer{s: s}
	r.buf.Grow(8192)
	r.page(s.Header(), s.SessionName(), branch, len(s.Entries()))
	return r.buf.Bytes()
}

// renderer accumulates the page.
type renderer struct {
	s   *store.Session
	buf bytes.Buffer
}

// raw writes markup as is; every value from the session goes through text or attr instead.
func (r *renderer) raw(parts ...string) {
	for _, p := range parts {
		r.buf.WriteString(p)
	}
}

// text writes s HTML-escaped.
func (r *renderer) text(s string) { r.buf.WriteString(html.EscapeString(s)) }

// esc is html.EscapeString, for building markup from session values.
func esc(s string) string { return html.EscapeString(s) }

// totals are the header figures of a branch.
type totals struct {
	models                          []string // provider/model, first appearance first
	user, assistant, calls, results int
	usage                           llm.Usage
}

func (t *totals) addModel(provider, id string) {
	if provider == "" && id == "" {
		return
	}
	m := provider + "/" + id
	for _, x := range t.models {
		if x == m {
			return
		}
	}
	t.models = append(t.models, m)
}

func count(branch []*store.Entry) totals {
	var t totals
	for _, e := range branch {
		switch {
		case e.Type == store.TypeModelChange && !e.Opaque():
			t.addModel(e.Provider, e.ModelID)
		case e.Type == store.TypeMessage && e.Message != nil:
			m := e.Message
			switch m.Role {
			case llm.RoleUser:
				t.user++
			case llm.RoleAssistant:
				t.assistant++
				t.addModel(m.Provider, m.Model)
				u := m.Usage
				t.usage.Input += u.Input
				t.usage.Output += u.Output
				t.usage.CacheRead += u.CacheRead
				t.usage.CacheWrite += u.CacheWrite
				if u.TotalTokens != 0 {
					t.usage.TotalTokens += u.TotalTokens
				} else {
					t.usage.TotalTokens += u.Input + u.Output + u.CacheRead + u.CacheWrite
				}
				t.usage.Cost.Total += u.Cost.Total
				for _, c := range m.Content {
					if c.Type == llm.ContentToolCall {
						t.calls++
					}
				}
			case llm.RoleToolResult:
				t.results++
			}
		}
	}
	return t
}

func (r *renderer) page(h store.Header, name string, branch []*store.Entry, fileEntries int) {
	title := name
	if title == "" {
		title = "Session " + h.ID
	}
	r.raw(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="generator" content="atomic">
<title>`, esc(title), ` — atomic</title>
<style>`, css, `</style>
</head>
<body>
<header class="session">
<h1>`, esc(title), `</h1>
<dl>
`)
	t := count(branch)
	r.item("Session", `<code>`+esc(h.ID)+`</code>`)
	if name != "" {
		r.item("Name", esc(name))
	}
	r.item("Directory", `<code>`+esc(h.Cwd)+`</code>`)
	r.item("Created", timeHTML(h.Timestamp))
	if h.ParentSession != "" {
		r.item("Forked from", `<code>`+esc(h.ParentSession)+`</code>`)
	}
	if len(t.models) > 0 {
		ms := make([]string, len(t.models))
		for i, m := range t.models {
			ms[i] = `<code>` + esc(m) + `</code>`
		}
		r.item("Models", strings.Join(ms, ", "))
	}
	r.item("Messages", fmt.Sprintf("%d user, %d assistant, %d tool calls, %d tool results", t.user, t.assistant, t.calls, t.results))
	u := t.usage
	r.item("Tokens", fmt.Sprintf("%s total (input %s, output %s, cache read %s, cache write %s)",
		commas(u.TotalTokens), commas(u.Input), commas(u.Output), commas(u.CacheRead), commas(u.CacheWrite)))
	r.item("Cost", esc(dollars(u.Cost.Total)))
	r.item("Entries", fmt.Sprintf("%d on this branch, %d in the file", len(branch), fileEntries))
	r.raw("</dl>\n</header>\n<main>\n")
	if len(branch) == 0 {
		r.raw(`<p class="note">(no entries)</p>` + "\n")
	}
	for _, e := range branch {
		r.entry(e)
	}
	r.raw("</main>\n<footer>Exported by atomic</footer>\n</body>\n</html>\n")
}

// item writes one header row; value is markup.
func (r *renderer) item(term, value string) {
	r.raw("<dt>", esc(term), "</dt><dd>", value, "</dd>\n")
}

// entry writes one branch entry.
func (r *renderer) entry(e *store.Entry) {
	if e.Opaque() {
		switch e.Type {
		case store.TypeMessage, store.TypeModelChange, store.TypeThinkingLevelChange, store.TypeCompaction,
			store.TypeBranchSummary, store.TypeCustomMessage, store.TypeSessionInfo, store.TypeContextWindowChange:
			r.note(e, "unreadable "+e.Type+" entry "+e.ID)
		}
		return
	}
	switch e.Type {
	case store.TypeMessage:
		if e.Message != nil {
			r.message(e, e.Message)
		}
	case store.TypeCustomMessage:
		if e.Display {
			r.custom(e, e.CustomType, e.Content)
		}
	case store.TypeModelChange:
		r.note(e, "Model: "+e.Provider+"/"+e.ModelID)
	case store.TypeThinkingLevelChange:
		r.note(e, "Thinking level: "+e.ThinkingLevel)
	case store.TypeContextWindowChange:
		r.note(e, "Context window: "+commas(e.ContextWindow)+" tokens")
	case store.TypeSessionInfo:
		if e.Name == nil || strings.TrimSpace(*e.Name) == "" {
			r.note(e, "Session name cleared")
		} else {
			r.note(e, "Session name: "+strings.TrimSpace(*e.Name))
		}
	case store.TypeCompaction:
		r.open(e, "compaction", "Compaction", "tokens before: "+commas(e.TokensBefore))
		r.raw(`<details><summary>Summary of the earlier conversation</summary>`)
		r.pre("text", e.Summary)
		r.raw("</details>\n")
		r.close()
	case store.TypeBranchSummary:
		from := e.FromID
		if from == "" {
			from = "?"
		}
		r.open(e, "branch-summary", "Branch summary", "from "+from)
		r.pre("text", e.Summary)
		r.close()
	}
	// label (shown on its target), custom (extension state), session_summary: not shown.
}

// open starts an entry block of class kind with a heading; meta is escaped.
func (r *renderer) open(e *store.Entry, kind, heading, meta string) {
	r.raw(`<section class="entry `, kind, `" id="entry-`, esc(e.ID), `">`, "\n", `<div class="head"><span class="role">`, esc(heading), `</span>`)
	if meta != "" {
		r.raw(` <span class="meta">`, esc(meta), `</span>`)
	}
	if l := r.s.Label(e.ID); l != "" {
		r.raw(` <span class="label">`, esc(l), `</span>`)
	}
	r.raw(` `, timeHTML(e.Timestamp), "</div>\n")
}

func (r *renderer) close() { r.raw("</section>\n") }

// note writes a one-line note entry.
func (r *renderer) note(e *store.Entry, text string) {
	r.raw(`<p class="note" id="entry-`, esc(e.ID), `">`, esc(text))
	if l := r.s.Label(e.ID); l != "" {
		r.raw(` <span class="label">`, esc(l), `</span>`)
	}
	r.raw(` `, timeHTML(e.Timestamp), "</p>\n")
}

// pre writes text preformatted (escaped, line breaks kept).
func (r *renderer) pre(class, text string) {
	r.raw(`<pre class="`, class, `">`)
	r.text(text)
	r.raw("</pre>\n")
}

func (r *renderer) message(e *store.Entry, m *llm.Message) {
	switch m.Role {
	case llm.RoleUser:
		r.open(e, "user", "User", "")
		r.blocks(m.Content)
		r.close()
	case llm.RoleAssistant:
		r.assistant(e, m)
	case llm.RoleToolResult:
		kind, heading := "tool-result", "Tool result"
		if m.IsError {
			kind, heading = "tool-result error", "Tool error"
		}
		meta := m.ToolName
		if m.ToolCallID != "" {
			meta += " · " + m.ToolCallID
		}
		r.open(e, kind, heading, meta)
		r.blocks(m.Content)
		if m.Details != nil {
			if d := prettyJSON(m.Details); d != "" && d != "null" {
				r.raw(`<details><summary>details</summary>`)
				r.pre("json", d)
				r.raw("</details>\n")
			}
		}
		r.close()
	case llm.RoleBashExecution:
		r.bash(e, m)
	case llm.RoleCustom:
		if m.Display {
			r.custom(e, m.CustomType, m.Content)
		}
	case llm.RoleBranchSummary:
		r.open(e, "branch-summary", "Branch summary", "from "+m.FromID)
		r.pre("text", m.Summary)
		r.close()
	case llm.RoleCompactionSummary:
		r.open(e, "compaction", "Compaction", "tokens before: "+commas(m.TokensBefore))
		r.pre("text", m.Summary)
		r.close()
	default:
		r.open(e, "other", m.Role, "")
		r.blocks(m.Content)
		r.close()
	}
}

func (r *renderer) assistant(e *store.Entry, m *llm.Message) {
	meta := m.Provider + "/" + m.Model
	if m.Provider == "" && m.Model == "" {
		meta = ""
	}
	r.open(e, "assistant", "Assistant", meta)
	for _, c := range m.Content {
		switch c.Type {
		case llm.ContentText:
			r.pre("text", c.Text)
		case llm.ContentThinking:
			if c.Redacted {
				r.raw(`<details class="thinking"><summary>Thinking (redacted)</summary></details>` + "\n")
				continue
			}
			r.raw(`<details class="thinking"><summary>Thinking</summary>`)
			r.pre("text", c.Thinking)
			r.raw("</details>\n")
		case llm.ContentToolCall:
			r.raw(`<div class="tool-call"><div class="call-head">Tool call <span class="tool">`, esc(c.Name), `</span>`)
			if c.ID != "" {
				r.raw(` <span class="meta">`, esc(c.ID), `</span>`)
			}
			r.raw("</div>\n")
			args := any(c.Arguments)
			if c.Arguments == nil {
				args = map[string]any{}
			}
			r.pre("json", prettyJSON(args))
			r.raw("</div>\n")
		case llm.ContentImage:
			r.image(c)
		}
	}
	switch m.StopReason {
	case llm.StopError, llm.StopAborted:
		msg := m.ErrorMessage
		if msg == "" {
			msg = "Request " + string(m.StopReason)
		}
		r.raw(`<div class="stop error">`)
		r.text(msg)
		r.raw("</div>\n")
	case llm.StopLength:
		r.raw(`<div class="stop">Stopped at the output token limit</div>` + "\n")
	}
	u := m.Usage
	if u.Input != 0 || u.Output != 0 || u.CacheRead != 0 || u.CacheWrite != 0 || u.Cost.Total != 0 {
		r.raw(`<div class="usage">`, esc(fmt.Sprintf("input %s · output %s · cache read %s · cache write %s · %s",
			commas(u.Input), commas(u.Output), commas(u.CacheRead), commas(u.CacheWrite), dollars(u.Cost.Total))), "</div>\n")
	}
	r.close()
}

func (r *renderer) bash(e *store.Entry, m *llm.Message) {
	r.open(e, "bash", "Shell", "")
	r.pre("command", "$ "+m.Command)
	if m.Output != "" {
		r.pre("text", m.Output)
	} else {
		r.raw(`<div class="status">(no output)</div>` + "\n")
	}
	var status []string
	switch {
	case m.Cancelled:
		status = append(status, "cancelled")
	case m.ExitCode != nil:
		status = append(status, "exit code "+strconv.Itoa(*m.ExitCode))
	}
	if m.Truncated {
		s := "output truncated"
		if m.FullOutputPath != "" {
			s += "; full output: " + m.FullOutputPath
		}
		status = append(status, s)
	}
	if m.ExcludeFromContext {
		status = append(status, "not sent to the model")
	}
	if len(status) > 0 {
		class := "status"
		if m.Cancelled || (m.ExitCode != nil && *m.ExitCode != 0) {
			class = "status error"
		}
		r.raw(`<div class="`, class, `">`, esc(strings.Join(status, " · ")), "</div>\n")
	}
	r.close()
}

func (r *renderer) custom(e *store.Entry, customType string, content []llm.Content) {
	r.open(e, "custom", "Extension message", customType)
	r.blocks(content)
	r.close()
}

// blocks writes text and image blocks (and, for robustness, any other kind as text).
func (r *renderer) blocks(content []llm.Content) {
	for _, c := range content {
		switch c.Type {
		case llm.ContentText:
			r.pre("text", c.Text)
		case llm.ContentImage:
			r.image(c)
		case llm.ContentThinking:
			r.pre("text", c.Thinking)
		case llm.ContentToolCall:
			r.pre("json", c.Name+" "+prettyJSON(c.Arguments))
		}
	}
}

// imageTypes are the MIME types embedded as data: URIs.
var imageTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

// image embeds an image block as a data: URI when its type is a known image type and its data
// is plain base64; anything else becomes a placeholder.
func (r *renderer) image(c llm.Content) {
	if !imageTypes[c.MimeType] || !isBase64(c.Data) {
		r.raw(`<div class="status">[image `, esc(c.MimeType), ` not shown]</div>`, "\n")
		return
	}
	r.raw(`<img alt="image" src="data:`, c.MimeType, `;base64,`, c.Data, `">`, "\n")
}

func isBase64(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		b := s[i]
		if !('A' <= b && b <= 'Z' || 'a' <= b && b <= 'z' || '0' <= b && b <= '9' || b == '+' || b == '/' || b == '=') {
			return false
		}
	}
	return true
}

// prettyJSON indents v for display; raw JSON is indented as is. HTML characters are not escaped
// here (the caller escapes the whole text).
func prettyJSON(v any) string {
	var raw []byte
	switch x := v.(type) {
	case json.RawMessage:
		raw = x
	case []byte:
		raw = x
	}
	var out bytes.Buffer
	if raw != nil {
		if err := json.Indent(&out, raw, "", "  "); err != nil {
			return string(raw)
		}
		return out.String()
	}
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(out.String(), "\n")
}

// timeHTML is a <time> element for an ISO-8601 timestamp, shown in UTC; an unparsable value is
// shown as written.
func timeHTML(ts string) string {
	if ts == "" {
		return ""
	}
	shown := ts
	if t, err := time.Parse(time.RFC3339Nano, ts); err == nil {
		shown = t.UTC().Format("2006-01-02 15:04:05 UTC")
	}
	return `<time datetime="` + esc(ts) + `">` + esc(shown) + `</time>`
}

// commas writes n with thousands separators.
func commas(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// dollars formats a cost in US dollars.
func dollars(v float64) string { return fmt.Sprintf("$%.4f", v) }

const css = `
:root { color-scheme: light dark; --bg: #fafafa; --fg: #1d1d1f; --muted: #6b6b70; --card: #fff;
  --border: #dcdce0; --user: #eef4ff; --tool: #f4f4f6; --err: #b3261e; --errbg: #fdecea; --accent: #3b5bdb; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #17171a; --fg: #e6e6e9; --muted: #9a9aa2; --card: #202024; --border: #34343a;
    --user: #1f2a3d; --tool: #26262b; --err: #ff8a80; --errbg: #3a1f1f; --accent: #8fa8ff; }
}
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 960px; padding: 24px 16px 48px; background: var(--bg); color: var(--fg);
  font: 15px/1.5 -apple-system, BlinkMacSystemFont, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; }
h1 { font-size: 1.4em; margin: 0 0 12px; overflow-wrap: anywhere; }
header.session { background: var(--card); border: 1px solid var(--border); border-radius: 8px; padding: 16px; margin-bottom: 20px; }
header dl { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; margin: 0; }
header dt { color: var(--muted); }
header dd { margin: 0; overflow-wrap: anywhere; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace; font-size: 13px; }
pre { margin: 6px 0; white-space: pre-wrap; overflow-wrap: anywhere; }
.entry { background: var(--card); border: 1px solid var(--border); border-radius: 8px; padding: 10px 14px; margin: 12px 0; }
.entry.user { background: var(--user); }
.entry.tool-result, .entry.bash { background: var(--tool); }
.entry.error, .status.error, .stop.error { color: var(--err); }
.entry.error { background: var(--errbg); border-color: var(--err); }
.head { display: flex; flex-wrap: wrap; gap: 8px; align-items: baseline; font-size: 13px; color: var(--muted); }
.head .role { font-weight: 600; color: var(--fg); }
.head time, .note time { margin-left: auto; }
.label { background: var(--accent); color: var(--card); border-radius: 4px; padding: 0 6px; }
.tool-call { border-left: 3px solid var(--accent); padding-left: 10px; margin: 8px 0; }
.call-head { font-size: 13px; color: var(--muted); }
.tool { font-weight: 600; color: var(--fg); font-family: ui-monospace, Menlo, Consolas, monospace; }
.meta { font-family: ui-monospace, Menlo, Consolas, monospace; overflow-wrap: anywhere; }
details.thinking summary, details summary { cursor: pointer; color: var(--muted); font-size: 13px; }
details.thinking pre { color: var(--muted); font-style: italic; }
.usage, .status, .stop { font-size: 12px; color: var(--muted); margin-top: 4px; }
.note { display: flex; gap: 8px; font-size: 12px; color: var(--muted); margin: 6px 4px; }
img { max-width: 100%; border-radius: 4px; margin: 6px 0; }
footer { margin-top: 32px; font-size: 12px; color: var(--muted); text-align: center; }
`
