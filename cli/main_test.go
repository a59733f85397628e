package cli

// Acceptance tests of the atomic binary (issue 2). The scripts in testdata/script run the real
// command: testscript re-executes this test binary as "atomic", so every script exercises the
// whole CLI — flags, model resolution, session store, agent loop, tools, providers — against a
// fake LLM server (internal/fakellm) that runs inside the test process, offline and
// deterministically.
//
// Custom script commands (see scriptCmds):
//
//	fakellm <api> <script.json> [id…] start a fake server playing script; write $WORK/agent/models.json
//	                                 with provider "fake", model "fake-model" (and the extra model
//	                                 ids) pointing at it
//	requests <n>                     the fake received exactly n requests
//	wait-requests <n>                wait (≤10 s) until the fake received at least n requests
//	request-has <i> <text>           request i (negative: from the end) contains text, raw or in a
//	                                 decoded JSON string value
//	request-dump <i>                 print request i's JSON body flattened, one "path=value" per leaf
//	request-header <i> <name> <re>   request i has header name matching re
//	session-valid [-tree] <path>     every session file under path loads, chains and re-reads;
//	                                 print a summary of every entry (see summarizeSession)
//	session-id <dir> <VAR> [n]       set VAR to the id (or its first n characters) of the only
//	                                 session under dir, and VAR_FILE to its path
//	json-events <file>               check a --mode json transcript and print its event types
//	exitcode <code> <prog> args...   run prog like exec and assert its exit code
//	bg-exit <code>                   the exit code of the last background command waited for
//	bg-signal <INT|TERM|HUP>         send a signal to the last background command wait-requests saw
//	sleep <duration>                 pause the script (time.ParseDuration syntax)
//	npm-registry <dir>...            publish package directories in a local npm registry and set
//	                                 npm_config_registry to it (npmregistry_test.go)

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/atomic-cli/atomic/internal/fakellm"
	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/store"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"atomic": func() { os.Exit(Main(os.Args[1:], testExtensions()...)) },
	})
}

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		Setup:               setupScript,
		Cmds:                scriptCmds,
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Condition:           scriptCondition,
	})
}

// mcpFixture is the MCP stdio server of the mcp package's tests (official TypeScript SDK).
var mcpFixture = func() string {
	p, _ := filepath.Abs(filepath.Join("..", "mcp", "testdata", "tsserver", "server.mjs"))
	return p
}()

// scriptCondition adds [mcpfixture]: the MCP fixture server's npm dependencies are installed
// (.ci/run runs npm ci for it).
func scriptCondition(cond string) (bool, error) {
	switch cond {
	case "mcpfixture":
		_, err := os.Stat(filepath.Join(filepath.Dir(mcpFixture), "node_modules", "@modelcontextprotocol", "sdk"))
		return err == nil, nil
	}
	return false, fmt.Errorf("unknown condition %q", cond)
}

// stateKey indexes the per-script state in testscript's Env.Values.
type stateKey struct{}

// scriptState is what the custom commands of one script share.
type scriptState struct {
	srv *fakellm.Server
	bg  []*exec.Cmd  // background commands seen by wait-requests, in start order
	npm *npmRegistry // the local npm registry of npm-registry (npmregistry_test.go)
}

func state(ts *testscript.TestScript) *scriptState {
	return ts.Value(stateKey{}).(*scriptState)
}

// goEnv is the outer go command's cache and module settings, passed to the scripts so that a
// `go test` run by the bash tool reuses the build cache and never touches the network.
var goEnv = sync.OnceValue(func() []string {
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH", "GOROOT").Output()
	if err != nil {
		return nil
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 4 {
		return nil
	}
	return []string{
		"GOCACHE=" + lines[0], "GOMODCACHE=" + lines[1], "GOPATH=" + lines[2], "GOROOT=" + lines[3],
		"GOTOOLCHAIN=local", "GOPROXY=off", "GOFLAGS=-buildvcs=false", "GONOSUMDB=*", "GOWORK=off",
		"CGO_ENABLED=0",
	}
})

// setupScript gives every script an agent directory holding only a settings.json with a 1 ms
// retry backoff, an empty home, and the go settings.
func setupScript(env *testscript.Env) error {
	work := env.WorkDir
	agent := filepath.Join(work, "agent")
	home := filepath.Join(work, "home")
	for _, d := range []string{agent, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	env.Setenv("ATOMIC_CODING_AGENT_DIR", agent)
	env.Setenv("HOME", home)
	env.Setenv("MCP_FIXTURE", mcpFixture)
	// Automatic retry keeps its default (on) but waits at most 1 ms, so a script never sleeps
	// through a backoff; scripts may replace the file (error_http.txtar turns retry off).
	if err := os.WriteFile(filepath.Join(agent, "settings.json"), []byte(`{"retry": {"baseDelayMs": 1, "maxDelayMs": 1}}`+"\n"), 0o644); err != nil {
		return err
	}
	for _, kv := range goEnv() {
		k, v, _ := strings.Cut(kv, "=")
		env.Setenv(k, v)
	}
	st := &scriptState{}
	env.Values[stateKey{}] = st
	env.Defer(func() {
		if st.srv != nil {
			st.srv.Close()
		}
	})
	return nil
}

var scriptCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	"fakellm":        cmdFakellm,
	"requests":       cmdRequests,
	"wait-requests":  cmdWaitRequests,
	"request-has":    cmdRequestHas,
	"request-dump":   cmdRequestDump,
	"request-header": cmdRequestHeader,
	"session-valid":  cmdSessionValid,
	"session-id":     cmdSessionID,
	"json-events":    cmdJSONEvents,
	"exitcode":       cmdExitCode,
	"bg-exit":        cmdBgExit,
	"sleep":          cmdSleep,
	"bg-signal":      cmdBgSignal,
	"npm-registry":   cmdNpmRegistry,
}

// baseURL is the models.json baseUrl of the fake server for api.
func baseURL(srv *fakellm.Server, api string) string {
	if api == llm.APIAnthropicMessages {
		return srv.URL()
	}
	return srv.URL() + "/v1"
}

// modelsJSON is a models.json with one provider of one model "fake-model" on url, plus the
// models named extra (same server), in order.
func modelsJSON(provider, api, url string, extra ...string) []byte {
	models := []any{map[string]any{
		"id": "fake-model", "name": "Fake Model", "contextWindow": 100000, "maxTokens": 4096,
	}}
	for _, id := range extra {
		models = append(models, map[string]any{"id": id, "name": id, "contextWindow": 100000, "maxTokens": 4096})
	}
	cfg := map[string]any{
		"providers": map[string]any{
			provider: map[string]any{
				"baseUrl": url,
				"api":     api,
				"apiKey":  "fake-key",
				"models":  models,
			},
		},
	}
	b, _ := json.MarshalIndent(cfg, "", "  ")
	return b
}

func cmdFakellm(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: fakellm <api> <script.json> [extra-model-id...]")
	}
	api := args[0]
	switch api {
	case llm.APIAnthropicMessages, llm.APIOpenAICompletions, llm.APIOpenAIResponses:
	default:
		ts.Fatalf("fakellm: unknown api %q", api)
	}
	script, err := fakellm.ParseScript([]byte(ts.ReadFile(args[1])))
	ts.Check(err)
	st := state(ts)
	if st.srv != nil {
		st.srv.Close()
	}
	st.srv, err = fakellm.Listen("127.0.0.1:0", script)
	ts.Check(err)
	agent := ts.Getenv("ATOMIC_CODING_AGENT_DIR")
	ts.Check(os.WriteFile(filepath.Join(agent, "models.json"), modelsJSON("fake", api, baseURL(st.srv, api), args[2:]...), 0o644))
}

func server(ts *testscript.TestScript) *fakellm.Server {
	st := state(ts)
	if st.srv == nil {
		ts.Fatalf("no fake server: run fakellm first")
	}
	return st.srv
}

func atoi(ts *testscript.TestScript, s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		ts.Fatalf("not a number: %q", s)
	}
	return n
}

func cmdRequests(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: requests <n>")
	}
	want := atoi(ts, args[0])
	got := len(server(ts).Requests())
	if (got == want) == neg {
		ts.Fatalf("the fake received %d requests; want %s%d", got, map[bool]string{true: "not ", false: ""}[neg], want)
	}
}

func cmdWaitRequests(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: wait-requests <n>")
	}
	want := atoi(ts, args[0])
	state(ts).bg = ts.BackgroundCmds()
	deadline := time.Now().Add(10 * time.Second)
	for len(server(ts).Requests()) < want {
		if time.Now().After(deadline) {
			ts.Fatalf("timed out waiting for %d requests; got %d", want, len(server(ts).Requests()))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// request returns request i of the fake; a negative i counts from the end.
func request(ts *testscript.TestScript, arg string) fakellm.Request {
	reqs := server(ts).Requests()
	i := atoi(ts, arg)
	if i < 0 {
		i += len(reqs)
	}
	if i < 0 || i >= len(reqs) {
		ts.Fatalf("no request %s: the fake received %d", arg, len(reqs))
	}
	return reqs[i]
}

// stringLeaves appends every string (keys excluded) of a decoded JSON value.
func stringLeaves(v any, out []string) []string {
	switch v := v.(type) {
	case string:
		out = append(out, v)
	case []any:
		for _, x := range v {
			out = stringLeaves(x, out)
		}
	case map[string]any:
		for _, x := range v {
			out = stringLeaves(x, out)
		}
	}
	return out
}

func requestContains(r fakellm.Request, text string) bool {
	if bytes.Contains(r.Body, []byte(text)) {
		return true
	}
	for _, s := range stringLeaves(r.JSON, nil) {
		if strings.Contains(s, text) {
			return true
		}
	}
	return false
}

func cmdRequestHas(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: request-has <i> <text>")
	}
	r := request(ts, args[0])
	if requestContains(r, args[1]) == neg {
		ts.Logf("request %s body: %s", args[0], r.Body)
		if neg {
			ts.Fatalf("request %s unexpectedly contains %q", args[0], args[1])
		}
		ts.Fatalf("request %s does not contain %q", args[0], args[1])
	}
}

// flatten appends "path=value" for every leaf of v, value JSON-encoded.
func flatten(prefix string, v any, out []string) []string {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			p := k
			if prefix != "" {
				p = prefix + "." + k
			}
			out = flatten(p, x[k], out)
		}
	case []any:
		for i, e := range x {
			out = flatten(prefix+"."+strconv.Itoa(i), e, out)
		}
	default:
		b, _ := json.Marshal(x)
		out = append(out, prefix+"="+string(b))
	}
	return out
}

func cmdRequestDump(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: request-dump <i>")
	}
	r := request(ts, args[0])
	fmt.Fprintf(ts.Stdout(), "path=%q\n", r.Path)
	for _, l := range flatten("", r.JSON, nil) {
		fmt.Fprintln(ts.Stdout(), l)
	}
}

func cmdRequestHeader(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: request-header <i> <name> <regexp>")
	}
	r := request(ts, args[0])
	re, err := regexp.Compile(args[2])
	ts.Check(err)
	got := r.Header.Get(args[1])
	if re.MatchString(got) == neg {
		ts.Fatalf("request %s header %s = %q; match %q = %v", args[0], args[1], got, args[2], !neg)
	}
}

// sessionFiles returns the .jsonl files under path (or path itself), sorted by name, which for
// atomic's <timestamp>_<id>.jsonl names is creation order.
func sessionFiles(ts *testscript.TestScript, path string) []string {
	path = ts.MkAbs(path)
	fi, err := os.Stat(path)
	ts.Check(err)
	if !fi.IsDir() {
		return []string{path}
	}
	var files []string
	ts.Check(filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
			files = append(files, p)
		}
		return nil
	}))
	sort.Slice(files, func(i, j int) bool { return filepath.Base(files[i]) < filepath.Base(files[j]) })
	return files
}

// checkSession loads file and checks it: it opens with store.OpenReadOnly (no lock, so the next
// atomic process may write the file) without skipped lines, every line
// is a JSON object, the first is a version 3 header whose cwd is an existing directory, entry ids
// are unique and non-empty, the first entry is a root, each later entry's parentId is the previous
// entry (tree: some earlier entry), the leaf is the last entry, and the context built for the leaf
// holds one message per message entry on the path (linear sessions). It returns the session.
func checkSession(file string, tree bool) (*store.Session, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	lines := bytes.Split(bytes.TrimRight(data, "\n"), []byte("\n"))
	for i, l := range lines {
		if !json.Valid(l) || len(l) == 0 || l[0] != '{' {
			return nil, fmt.Errorf("line %d is not a JSON object: %.200s", i+1, l)
		}
	}
	if !bytes.HasSuffix(data, []byte("\n")) {
		return nil, fmt.Errorf("the file does not end with a newline")
	}
	var hdr struct {
		Type    string `json:"type"`
		Version int    `json:"version"`
		ID      string `json:"id"`
		Cwd     string `json:"cwd"`
	}
	if err := json.Unmarshal(lines[0], &hdr); err != nil || hdr.Type != "session" {
		return nil, fmt.Errorf("line 1 is not a session header: %.200s", lines[0])
	}
	if hdr.Version != 3 || hdr.ID == "" {
		return nil, fmt.Errorf("header version %d id %q; want version 3 and an id", hdr.Version, hdr.ID)
	}
	if fi, err := os.Stat(hdr.Cwd); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("header cwd %q is not a directory", hdr.Cwd)
	}
	s, err := store.OpenReadOnly(file)
	if err != nil {
		return nil, fmt.Errorf("store.OpenReadOnly: %w", err)
	}
	if n := s.SkippedLines(); n != 0 {
		return nil, fmt.Errorf("store.OpenReadOnly skipped %d lines", n)
	}
	entries := s.Entries()
	if len(entries) != len(lines)-1 {
		return nil, fmt.Errorf("%d entries for %d entry lines", len(entries), len(lines)-1)
	}
	if len(entries) == 0 {
		return nil, fmt.Errorf("no entries")
	}
	seen := map[string]bool{}
	messages := 0
	for i, e := range entries {
		if e.ID == "" || seen[e.ID] {
			return nil, fmt.Errorf("entry %d (%s): empty or duplicate id %q", i, e.Type, e.ID)
		}
		if e.Opaque() {
			return nil, fmt.Errorf("entry %d (%s) is opaque: %.200s", i, e.Type, e.Raw())
		}
		switch {
		case i == 0:
			if e.ParentID != nil {
				return nil, fmt.Errorf("first entry %s has parentId %q; want null", e.ID, *e.ParentID)
			}
		case tree:
			if e.ParentID == nil || !seen[*e.ParentID] {
				return nil, fmt.Errorf("entry %d (%s %s): parentId %q is not an earlier entry", i, e.Type, e.ID, e.Parent())
			}
		default:
			if e.Parent() != entries[i-1].ID {
				return nil, fmt.Errorf("entry %d (%s %s): parentId %q; want the previous entry %q", i, e.Type, e.ID, e.Parent(), entries[i-1].ID)
			}
		}
		seen[e.ID] = true
		if e.Type == store.TypeMessage {
			messages++
		}
	}
	if leaf := s.LeafID(); leaf != entries[len(entries)-1].ID {
		return nil, fmt.Errorf("leaf %q is not the last entry %q", leaf, entries[len(entries)-1].ID)
	}
	if !tree {
		if got := len(s.BuildContext().Messages); got != messages {
			return nil, fmt.Errorf("context has %d messages; the file has %d message entries", got, messages)
		}
	}
	return s, nil
}

// clip collapses white space and shortens s to n runes.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > n {
		s = string([]rune(s)[:n]) + "…"
	}
	return s
}

func textOf(content []llm.Content) string {
	var parts []string
	for _, c := range content {
		if c.Type == llm.ContentText {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, " ")
}

// summarizeEntry is one line describing e, for scripts to match.
func summarizeEntry(e *store.Entry) string {
	switch e.Type {
	case store.TypeModelChange:
		return fmt.Sprintf("model_change %s/%s", e.Provider, e.ModelID)
	case store.TypeThinkingLevelChange:
		return "thinking_level_change " + e.ThinkingLevel
	case store.TypeMessage:
	default:
		return e.Type
	}
	m := e.Message
	if m == nil {
		return "message ?"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "message %s", m.Role)
	switch m.Role {
	case llm.RoleAssistant:
		fmt.Fprintf(&b, " stop=%s", m.StopReason)
		var tools []string
		for _, c := range m.Content {
			if c.Type == llm.ContentToolCall {
				tools = append(tools, c.Name)
			}
		}
		if len(tools) > 0 {
			fmt.Fprintf(&b, " tools=%s", strings.Join(tools, ","))
		}
		fmt.Fprintf(&b, " text=%q", clip(textOf(m.Content), 200))
		if m.ErrorMessage != "" {
			fmt.Fprintf(&b, " error=%q", clip(m.ErrorMessage, 300))
		}
	case llm.RoleToolResult:
		fmt.Fprintf(&b, " tool=%s isError=%v text=%q", m.ToolName, m.IsError, clip(textOf(m.Content), 300))
	default:
		fmt.Fprintf(&b, " text=%q", clip(textOf(m.Content), 200))
	}
	return b.String()
}

// cmdSessionValid checks every session file under a path (see checkSession) and prints, for each
// file in name order, "file #<n>", one summary line per entry (summarizeEntry) and
// "count <type> <n>" per entry type.
func cmdSessionValid(ts *testscript.TestScript, neg bool, args []string) {
	tree := false
	if len(args) > 0 && args[0] == "-tree" {
		tree, args = true, args[1:]
	}
	if neg || len(args) != 1 {
		ts.Fatalf("usage: session-valid [-tree] <dir-or-file>")
	}
	files := sessionFiles(ts, args[0])
	if len(files) == 0 {
		ts.Fatalf("no session files under %s", args[0])
	}
	out := ts.Stdout()
	for n, f := range files {
		s, err := checkSession(f, tree)
		if err != nil {
			data, _ := os.ReadFile(f)
			ts.Logf("%s:\n%s", f, data)
			ts.Fatalf("session %s: %v", f, err)
		}
		fmt.Fprintf(out, "file #%d\n", n+1)
		counts := map[string]int{}
		for _, e := range s.Entries() {
			counts[e.Type]++
			fmt.Fprintln(out, summarizeEntry(e))
		}
		types := make([]string, 0, len(counts))
		for t := range counts {
			types = append(types, t)
		}
		sort.Strings(types)
		for _, t := range types {
			fmt.Fprintf(out, "count %s %d\n", t, counts[t])
		}
	}
}

func cmdSessionID(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: session-id <dir> <VAR> [n]")
	}
	files := sessionFiles(ts, args[0])
	if len(files) != 1 {
		ts.Fatalf("%d session files under %s; want 1", len(files), args[0])
	}
	s, err := store.OpenReadOnly(files[0])
	ts.Check(err)
	id := s.SessionID()
	if len(args) == 3 {
		id = id[:atoi(ts, args[2])]
	}
	ts.Setenv(args[1], id)
	ts.Setenv(args[1]+"_FILE", files[0])
}

// cmdJSONEvents checks a --mode json transcript: line 1 is the session header, every other line
// an event object; message_update lines carry assistantMessageEvent (with delta on *_delta) but
// neither message nor assistantMessageEvent.partial. It prints one line per event: the type, the
// message role for message_start/end, the inner event type for message_update, the turnIndex of
// turn_start/end when present, the tool name for tool_execution_*; runs of identical tool_execution_update lines are printed once.
func cmdJSONEvents(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: json-events <file>")
	}
	data := ts.ReadFile(args[0])
	sc := bufio.NewScanner(strings.NewReader(data))
	sc.Buffer(nil, 16<<20)
	var out []string
	for n := 1; sc.Scan(); n++ {
		line := sc.Bytes()
		var ev map[string]json.RawMessage
		if err := json.Unmarshal(line, &ev); err != nil {
			ts.Fatalf("line %d is not a JSON object: %v: %.200s", n, err, line)
		}
		var typ string
		_ = json.Unmarshal(ev["type"], &typ)
		if n == 1 {
			var h struct {
				Type    string `json:"type"`
				Version int    `json:"version"`
				ID      string `json:"id"`
				Cwd     string `json:"cwd"`
			}
			ts.Check(json.Unmarshal(line, &h))
			if h.Type != "session" || h.Version != 3 || h.ID == "" || h.Cwd == "" {
				ts.Fatalf("line 1 is not a session header: %s", line)
			}
			out = append(out, "session")
			continue
		}
		desc := typ
		switch typ {
		case "session":
			ts.Fatalf("line %d: a second session header", n)
		case "message_start", "message_end":
			var m struct {
				Message struct {
					Role string `json:"role"`
				} `json:"message"`
			}
			ts.Check(json.Unmarshal(line, &m))
			desc += " " + m.Message.Role
		case "message_update":
			if _, ok := ev["message"]; ok {
				ts.Fatalf("line %d: message_update carries message: %.300s", n, line)
			}
			var ame map[string]json.RawMessage
			if err := json.Unmarshal(ev["assistantMessageEvent"], &ame); err != nil || ame == nil {
				ts.Fatalf("line %d: message_update without assistantMessageEvent: %.300s", n, line)
			}
			if _, ok := ame["partial"]; ok {
				ts.Fatalf("line %d: assistantMessageEvent carries partial: %.300s", n, line)
			}
			var at string
			_ = json.Unmarshal(ame["type"], &at)
			if strings.HasSuffix(at, "_delta") {
				var d string
				if err := json.Unmarshal(ame["delta"], &d); err != nil {
					ts.Fatalf("line %d: %s without a string delta: %.300s", n, at, line)
				}
			}
			desc += " " + at
		case "turn_start", "turn_end":
			if raw, ok := ev["turnIndex"]; ok {
				desc += " " + string(raw)
			}
		case "tool_execution_start", "tool_execution_update", "tool_execution_end":
			var te struct {
				ToolName string `json:"toolName"`
			}
			ts.Check(json.Unmarshal(line, &te))
			desc += " " + te.ToolName
		}
		if typ == "tool_execution_update" && len(out) > 0 && out[len(out)-1] == desc {
			continue
		}
		out = append(out, desc)
	}
	ts.Check(sc.Err())
	for _, l := range out {
		fmt.Fprintln(ts.Stdout(), l)
	}
}

// cmdExitCode runs a program like exec and checks its exit code.
func cmdExitCode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exitcode <code> <program> [args...]")
	}
	want := atoi(ts, args[0])
	err := ts.Exec(args[1], args[2:]...)
	got := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			ts.Fatalf("%s: %v", args[1], err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with %d; want %d", args[1], got, want)
	}
}

// cmdBgExit checks the exit code of the last background command that wait-requests saw; run it
// after waiting for that command.
func cmdBgExit(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: bg-exit <code>")
	}
	bg := state(ts).bg
	if len(bg) == 0 {
		ts.Fatalf("no background command recorded (run wait-requests while it runs)")
	}
	c := bg[len(bg)-1]
	if c.ProcessState == nil {
		ts.Fatalf("the background command has not been waited for")
	}
	if got, want := c.ProcessState.ExitCode(), atoi(ts, args[0]); got != want {
		ts.Fatalf("background command exited with %d (%v); want %d", got, c.ProcessState, want)
	}
}

func cmdBgSignal(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: bg-signal <INT|TERM|HUP>")
	}
	sig, ok := map[string]syscall.Signal{"INT": syscall.SIGINT, "TERM": syscall.SIGTERM, "HUP": syscall.SIGHUP}[args[0]]
	if !ok {
		ts.Fatalf("bg-signal: unknown signal %q", args[0])
	}
	bg := state(ts).bg
	if len(bg) == 0 {
		ts.Fatalf("no background command recorded (run wait-requests while it runs)")
	}
	ts.Check(bg[len(bg)-1].Process.Signal(sig))
}

func cmdSleep(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: sleep <duration>")
	}
	d, err := time.ParseDuration(args[0])
	ts.Check(err)
	time.Sleep(d)
}
