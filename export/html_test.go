package export

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/store"
)

// fixtureDir holds sessions recorded from pi 0.73.1.
const fixtureDir = "../testdata/pi-0.73.1"

// copyFixture copies fixture <name>/session.jsonl into a temporary directory.
func copyFixture(t *testing.T, name string) (path string, data []byte) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(fixtureDir, name, "session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(t.TempDir(), name+".jsonl")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, data
}

// fixtureFacts are what a fixture file says, read independently of store.
type fixtureFacts struct {
	id, cwd    string
	texts      []string // user and assistant text blocks and tool result texts, in file order
	toolNames  []string
	totalToken int64
	assistants int
}

func readFacts(t *testing.T, data []byte) fixtureFacts {
	t.Helper()
	var f fixtureFacts
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var line struct {
			Type, ID, Cwd string
			Message       *struct {
				Role    string
				Content []struct{ Type, Text, Name string }
				Usage   struct{ TotalTokens int64 }
			}
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		if line.Type == "session" {
			f.id, f.cwd = line.ID, line.Cwd
		}
		if m := line.Message; m != nil {
			if m.Role == "assistant" {
				f.assistants++
				f.totalToken += m.Usage.TotalTokens
			}
			for _, c := range m.Content {
				switch c.Type {
				case "text":
					f.texts = append(f.texts, c.Text)
				case "toolCall":
					f.toolNames = append(f.toolNames, c.Name)
				}
			}
		}
	}
	return f
}

// indexInOrder fails unless every needle occurs in page after the previous one.
func indexInOrder(t *testing.T, page string, needles ...string) {
	t.Helper()
	at := 0
	for _, n := range needles {
		i := strings.Index(page[at:], n)
		if i < 0 {
			t.Fatalf("%q missing (or out of order) after offset %d", n, at)
		}
		at += i + len(n)
	}
}

// TestFixtures exports every recorded pi session and checks the page against the file.
func TestFixtures(t *testing.T) {
	for _, name := range []string{"print", "json", "rpc", "ext", "ext-json", "stream"} {
		t.Run(name, func(t *testing.T) {
			in, data := copyFixture(t, name)
			out := filepath.Join(t.TempDir(), "out.html")
			got, err := FromFile(in, out)
			if err != nil {
				t.Fatal(err)
			}
			if got != out {
				t.Fatalf("path %q, want %q", got, out)
			}
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			page := string(b)
			after, _ := os.ReadFile(in)
			if !bytes.Equal(after, data) {
				t.Fatal("exporting a version 3 file changed it")
			}
			f := readFacts(t, data)

			if !strings.HasPrefix(page, "<!DOCTYPE html>\n") || !strings.HasSuffix(page, "</html>\n") {
				t.Fatal("not a whole HTML document")
			}
			for _, forbidden := range []string{"<script", "<link", "http://", "https://", "src=\"//"} {
				if strings.Contains(strings.ToLower(page), forbidden) {
					t.Errorf("page contains %q: not self-contained", forbidden)
				}
			}
			if !strings.Contains(page, "<style>") {
				t.Error("no inline CSS")
			}
			indexInOrder(t, page, "<title>Session "+f.id, "<code>"+f.id+"</code>", "<code>"+f.cwd+"</code>",
				`<time datetime="2026-11-29T`, "<code>fakellm/fake-model</code>")
			wantTokens := "<dt>Tokens</dt><dd>" + commas(f.totalToken) + " total"
			if !strings.Contains(page, wantTokens) {
				t.Errorf("page lacks %q", wantTokens)
			}
			if !strings.Contains(page, "<dt>Cost</dt><dd>$0.0000</dd>") {
				t.Error("cost total missing")
			}
			if !strings.Contains(page, "Thinking level: off") || !strings.Contains(page, "Model: fakellm/fake-model") {
				t.Error("model and thinking level notes missing")
			}
			// Every text (user, assistant, tool output) appears escaped, in file order, with its
			// line breaks.
			var esced []string
			for _, s := range f.texts {
				esced = append(esced, `<pre class="text">`+esc(s)+"</pre>")
			}
			indexInOrder(t, page, esced...)
			for _, n := range f.toolNames {
				if !strings.Contains(page, `Tool call <span class="tool">`+esc(n)+"</span>") {
					t.Errorf("tool call %s missing", n)
				}
			}
			if got := strings.Count(page, `<section class="entry assistant"`); got != f.assistants {
				t.Errorf("%d assistant sections, want %d", got, f.assistants)
			}
			// A copy exported again renders byte for byte the same (deterministic output).
			st, err := store.Open(in, "")
			if err != nil {
				t.Fatal(err)
			}
			if again := Render(st); !bytes.Equal(again, b) {
				t.Error("Render is not deterministic")
			}
		})
	}
}

// TestFixtureDetails checks the specific rendering of the bash-ls and extension-tool scenarios.
func TestFixtureDetails(t *testing.T) {
	in, _ := copyFixture(t, "print")
	st, err := store.Open(in, "")
	if err != nil {
		t.Fatal(err)
	}
	page := string(Render(st))
	indexInOrder(t, page,
		`<section class="entry user" id="entry-263e279b">`, `<pre class="text">List the files here</pre>`,
		`<section class="entry assistant" id="entry-5d72dc93">`, `fakellm/fake-model`,
		`<pre class="text">I&#39;ll list the files.</pre>`,
		`Tool call <span class="tool">bash</span> <span class="meta">call_0_0</span>`,
		`<pre class="json">{`+"\n"+`  &#34;command&#34;: &#34;ls&#34;`+"\n}</pre>",
		`input 1,396 · output 17`,
		`<section class="entry tool-result" id="entry-8c57458a">`, `bash · call_0_0`,
		"<pre class=\"text\">a.txt\nb.txt\n</pre>",
		`The directory listing is above. Done.`)
	if !strings.Contains(page, "<dt>Messages</dt><dd>1 user, 2 assistant, 1 tool calls, 1 tool results</dd>") {
		t.Error("message counts")
	}
	if !strings.Contains(page, "<dt>Tokens</dt><dd>2,878 total (input 2,851, output 27, cache read 0, cache write 0)</dd>") {
		t.Error("token totals")
	}

	in, _ = copyFixture(t, "ext")
	st, err = store.Open(in, "")
	if err != nil {
		t.Fatal(err)
	}
	page = string(Render(st))
	indexInOrder(t, page,
		`Tool call <span class="tool">anchor_echo</span>`, `&#34;text&#34;: &#34;hello from fakellm&#34;`,
		`Tool call <span class="tool">bash</span>`, `&#34;command&#34;: &#34;echo hi&#34;`,
		`echo: hello from fakellm`, `<details><summary>details</summary><pre class="json">{`+"\n"+`  &#34;length&#34;: 18`)
}

// TestDefaultOutputPath: without an output path the page lands in the working directory as
// atomic-session-<base>.html, and the returned path is that relative name.
func TestDefaultOutputPath(t *testing.T) {
	in, _ := copyFixture(t, "json")
	if got, want := DefaultOutputPath("/x/y/2026-01-01_abc.jsonl"), "atomic-session-2026-01-01_abc.html"; got != want {
		t.Fatalf("DefaultOutputPath %q, want %q", got, want)
	}
	dir := t.TempDir()
	t.Chdir(dir)
	got, err := FromFile(in, "")
	if err != nil {
		t.Fatal(err)
	}
	if got != "atomic-session-json.html" {
		t.Fatalf("path %q", got)
	}
	if _, err := os.Stat(filepath.Join(dir, got)); err != nil {
		t.Fatal(err)
	}
}

func TestFromFileErrors(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.html")
	empty := filepath.Join(dir, "empty.jsonl")
	os.WriteFile(empty, []byte("\n \n"), 0o644)
	junk := filepath.Join(dir, "junk.jsonl")
	os.WriteFile(junk, []byte(`{"type":"message","id":"x"}`+"\n"), 0o644)
	newer := filepath.Join(dir, "newer.jsonl")
	os.WriteFile(newer, []byte(`{"type":"session","version":99,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}`+"\n"), 0o644)
	for _, c := range []struct{ in, want string }{
		{filepath.Join(dir, "missing.jsonl"), "File not found: " + filepath.Join(dir, "missing.jsonl")},
		{dir, "is a directory"},
		{empty, "Session file is empty"},
		{junk, "not a valid"},
		{newer, "99"},
	} {
		_, err := FromFile(c.in, out)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("FromFile(%s): %v; want an error containing %q", c.in, err, c.want)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("an output file was written for a failed export")
	}
	// An output directory that does not exist: an error naming the path.
	in, _ := copyFixture(t, "print")
	if _, err := FromFile(in, filepath.Join(dir, "no", "such", "dir.html")); err == nil || !strings.Contains(err.Error(), "Cannot write") {
		t.Errorf("unwritable output: %v", err)
	}
}

const payload = `<script>alert("x")</script>`

// escapedPayload is payload as html.EscapeString writes it.
const escapedPayload = `&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;`

func must(t *testing.T) func(string, error) string {
	return func(id string, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
}

// hostileSession builds a persisted session where every user-controlled string carries payload,
// with one of every entry kind the page shows, an abandoned branch and hidden content.
func hostileSession(t *testing.T) *store.Session {
	t.Helper()
	dir := t.TempDir()
	st, err := store.Create(dir+`/"><img src=x onerror=alert(1)>`+payload, filepath.Join(dir, "sessions"), store.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ok := must(t)
	ok(st.AppendModelChange("prov"+payload, "model"+payload))
	ok(st.AppendThinkingLevelChange("high" + payload))
	user := ok(st.AppendMessage(llm.Message{Role: llm.RoleUser, Content: []llm.Content{
		llm.Text("user says " + payload + "\nsecond line"),
		llm.Image("iVBORw0KGgo=", "image/png"),
		llm.Image(`x" onerror="alert(1)`, "image/png"),
		llm.Image("AAAA", `image/svg+xml"><script>`),
	}, Timestamp: 1}))
	ok(st.AppendLabelChange(user, "label"+payload))
	code := 2
	ok(st.AppendMessage(llm.Message{Role: llm.RoleAssistant, Provider: "prov" + payload, Model: "model" + payload,
		Content: []llm.Content{
			{Type: llm.ContentThinking, Thinking: "thinks " + payload},
			{Type: llm.ContentThinking, Redacted: true, ThinkingSignature: "opaque" + payload},
			llm.Text("assistant says " + payload),
			{Type: llm.ContentToolCall, ID: "call" + payload, Name: "tool" + payload, Arguments: map[string]any{"arg": payload}},
		},
		Usage:      llm.Usage{Input: 1000, Output: 234, TotalTokens: 1234, Cost: llm.Cost{Total: 0.0125}},
		StopReason: llm.StopToolUse, Timestamp: 2}))
	ok(st.AppendMessage(llm.Message{Role: llm.RoleToolResult, ToolCallID: "call" + payload, ToolName: "tool" + payload,
		Content: []llm.Content{llm.Text("result " + payload)}, IsError: true, Details: map[string]any{"d": payload}, Timestamp: 3}))
	ok(st.AppendMessage(llm.Message{Role: llm.RoleBashExecution, Command: "echo " + payload, Output: "out " + payload,
		ExitCode: &code, Truncated: true, FullOutputPath: "/tmp/" + payload, Timestamp: 4}))
	ok(st.AppendCustomMessageEntry(store.CustomMessage{CustomType: "shown" + payload, Content: []llm.Content{llm.Text("custom " + payload)}, Display: true}))
	ok(st.AppendCustomMessageEntry(store.CustomMessage{CustomType: "hidden-type", Content: []llm.Content{llm.Text("HIDDEN-CONTENT")}, Display: false}))
	ok(st.AppendMessage(llm.Message{Role: llm.RoleCustom, CustomType: "hidden-role", Content: []llm.Content{llm.Text("HIDDEN-ROLE")}, Display: false, Timestamp: 5}))
	ok(st.AppendCustomEntry("state", map[string]any{"secret": "EXTENSION-STATE"}))
	ok(st.AppendSessionInfo("name " + payload))
	ok(st.AppendCompaction("compacted "+payload, user, 5000, nil, false))
	ok(st.AppendMessage(llm.Message{Role: llm.RoleAssistant, Provider: "other", Model: "m2", Content: []llm.Content{llm.Text("ABANDONED")},
		Usage: llm.Usage{Input: 1, Output: 1, TotalTokens: 2}, StopReason: llm.StopStop, Timestamp: 6}))
	// Branch back: the abandoned answer is not on the exported path.
	last := st.Branch("")
	ok(st.BranchWithSummary(last[len(last)-2].ID, "branch summary "+payload, nil, false))
	ok(st.AppendMessage(llm.Message{Role: llm.RoleAssistant, Provider: "prov" + payload, Model: "model" + payload,
		Content: []llm.Content{llm.Text("final")}, StopReason: llm.StopAborted, ErrorMessage: "aborted " + payload,
		Usage: llm.Usage{Input: 10, Output: 5, CacheRead: 100, TotalTokens: 115, Cost: llm.Cost{Total: 0.0001}}, Timestamp: 7}))
	return st
}

// TestEscaping: every user-controlled string is escaped; nothing can open a tag or an attribute.
func TestEscaping(t *testing.T) {
	st := hostileSession(t)
	page := string(Render(st))
	lower := strings.ToLower(page)
	if strings.Contains(lower, "<script") || strings.Contains(lower, "<img src=x") || strings.Contains(lower, "onerror=\"alert") {
		t.Fatalf("unescaped payload in page:\n%s", page)
	}
	// Outside the fixed markup every '<' starts one of our tags.
	tags := regexp.MustCompile(`<(/?)([a-zA-Z0-9!]+)`)
	allowed := map[string]bool{"!DOCTYPE": true, "html": true, "head": true, "meta": true, "title": true, "style": true,
		"body": true, "header": true, "h1": true, "dl": true, "dt": true, "dd": true, "code": true, "main": true,
		"section": true, "div": true, "span": true, "time": true, "pre": true, "details": true, "summary": true,
		"p": true, "img": true, "footer": true}
	for _, m := range tags.FindAllStringSubmatch(page, -1) {
		if !allowed[m[2]] {
			t.Errorf("unexpected tag <%s%s>", m[1], m[2])
		}
	}
	for _, want := range []string{
		"<title>name " + escapedPayload + " — atomic</title>",
		"<h1>name " + escapedPayload + "</h1>",
		"&#34;&gt;&lt;img src=x onerror=alert(1)&gt;" + escapedPayload + "</code>", // cwd
		"<code>prov" + escapedPayload + "/model" + escapedPayload + "</code>",
		"Thinking level: high" + escapedPayload,
		"user says " + escapedPayload + "\nsecond line</pre>",
		`<span class="label">label` + escapedPayload + "</span>",
		`<details class="thinking"><summary>Thinking</summary><pre class="text">thinks ` + escapedPayload,
		`<details class="thinking"><summary>Thinking (redacted)</summary></details>`,
		"assistant says " + escapedPayload,
		`Tool call <span class="tool">tool` + escapedPayload + `</span> <span class="meta">call` + escapedPayload,
		`&#34;arg&#34;: &#34;&lt;script&gt;alert(\&#34;x\&#34;)&lt;/script&gt;&#34;`,
		`<section class="entry tool-result error"`, `<span class="role">Tool error</span>`, "result " + escapedPayload,
		`&#34;d&#34;: &#34;&lt;script&gt;`,
		"$ echo " + escapedPayload, "out " + escapedPayload,
		`<div class="status error">exit code 2 · output truncated; full output: /tmp/` + escapedPayload,
		"shown" + escapedPayload, "custom " + escapedPayload,
		"Session name: name " + escapedPayload,
		"tokens before: 5,000", "compacted " + escapedPayload,
		"branch summary " + escapedPayload,
		`<div class="stop error">aborted ` + escapedPayload,
		`<img alt="image" src="data:image/png;base64,iVBORw0KGgo=">`,
		`[image image/svg+xml&#34;&gt;&lt;script&gt; not shown]`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Count(page, "<img ") != 1 {
		t.Errorf("want exactly the one valid image embedded; page:\n%s", page)
	}
	for _, hidden := range []string{"HIDDEN-CONTENT", "HIDDEN-ROLE", "hidden-type", "hidden-role", "EXTENSION-STATE", "ABANDONED", "opaque"} {
		if strings.Contains(page, hidden) {
			t.Errorf("page shows %q", hidden)
		}
	}
	// Totals count the branch's assistant messages only (not the abandoned one).
	if !strings.Contains(page, "<dt>Tokens</dt><dd>1,349 total (input 1,010, output 239, cache read 100, cache write 0)</dd>") ||
		!strings.Contains(page, "<dt>Cost</dt><dd>$0.0126</dd>") {
		t.Errorf("totals wrong")
	}
	if !strings.Contains(page, "<dt>Messages</dt><dd>1 user, 2 assistant, 1 tool calls, 1 tool results</dd>") {
		t.Errorf("counts wrong")
	}
	n := len(st.Entries())
	if !strings.Contains(page, "on this branch, "+itoa(n)+" in the file</dd>") {
		t.Errorf("entry counts wrong")
	}
	// The thinking block comes before the text of the same message, and the notes keep order.
	indexInOrder(t, page, "Model: prov", "Thinking level: high", "user says", "thinks", "assistant says", "Tool call",
		"result ", "$ echo", "custom ", "Session name:", "compacted", "branch summary", "aborted")
}

func itoa(n int) string { return commas(int64(n)) }

// TestSession: the live-session export refuses in-memory and unwritten sessions and returns an
// absolute path.
func TestSession(t *testing.T) {
	if _, err := Session(store.InMemory(t.TempDir()), ""); !errors.Is(err, ErrInMemory) {
		t.Fatalf("in memory: %v", err)
	}
	dir := t.TempDir()
	st, err := store.Create(dir, filepath.Join(dir, "sessions"), store.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	st.AppendMessage(llm.Message{Role: llm.RoleUser, Content: []llm.Content{llm.Text("hi")}, Timestamp: 1})
	if _, err := Session(st, ""); !errors.Is(err, ErrNothingYet) {
		t.Fatalf("unwritten: %v", err)
	}
	st.AppendMessage(llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text("hello")}, StopReason: llm.StopStop, Timestamp: 2})
	t.Chdir(dir)
	got, err := Session(st, "")
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, DefaultOutputPath(st.SessionFile()))
	if got != want {
		t.Fatalf("path %q, want %q", got, want)
	}
	b, _ := os.ReadFile(got)
	if !strings.Contains(string(b), `<pre class="text">hello</pre>`) {
		t.Fatal("page lacks the answer")
	}
	got, err = Session(st, "sub.html")
	if err != nil || got != filepath.Join(dir, "sub.html") {
		t.Fatalf("relative output: %q %v", got, err)
	}
}

func TestCommas(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 12: "12", 999: "999", 1000: "1,000", 1234567: "1,234,567", -1234: "-1,234"} {
		if got := commas(n); got != want {
			t.Errorf("commas(%d) = %q, want %q", n, got, want)
		}
	}
}
