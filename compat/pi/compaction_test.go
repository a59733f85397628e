package pi

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/internal/fakellm"
	"github.com/atomic-cli/atomic/llm"
	_ "github.com/atomic-cli/atomic/llm/providers" // the wire APIs, as the binary links them
	"github.com/atomic-cli/atomic/session"
	"github.com/atomic-cli/atomic/store"
	"github.com/atomic-cli/atomic/tool"
)

// TestCompactedSessionOpensInPi (issue 10 item 4): atomic compacts a session whose newest
// messages are a tool call, its two results and an answer, keeping the newest two (the cut
// counts back onto a tool result). pi 0.73.1 opens the file, replays the kept region from
// firstKeptEntryId and must send no tool result without its call, which a real provider
// rejects with a 400.
func TestCompactedSessionOpensInPi(t *testing.T) {
	cli := piCLI(t)
	work := t.TempDir()
	srv := fakellm.New(fakellm.Script{Turns: []fakellm.Turn{
		{Text: "one"},
		{ToolCalls: []fakellm.ToolCall{fakellm.Call("echo", map[string]any{"text": "a"}), fakellm.Call("echo", map[string]any{"text": "b"})}},
		{Text: "done"},
		{Text: "1-2"}, // the planner
		{Text: "pi continues."},
	}})
	defer srv.Close()

	st, err := store.Create(work, filepath.Join(work, "sessions"), store.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	echo := func(a ext.API) error {
		return a.RegisterTool(ext.ToolDefinition{
			Name: "echo", Description: "echoes its text",
			Parameters: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`),
			Execute: func(_ context.Context, _ ext.Context, call tool.Call, _ func(tool.Result)) (tool.Result, error) {
				s, _ := call.Args["text"].(string)
				return tool.TextResult("echo "+s, nil), nil
			},
		})
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rt, err := session.NewRuntime(ctx, session.Options{
		Store: st, HTTPClient: srv.Client(), Cwd: work,
		Model:      &llm.Model{ID: "fake-model", Provider: "fakellm", API: llm.APIOpenAICompletions, BaseURL: srv.URL() + "/v1", ContextWindow: 100000, MaxTokens: 100},
		Extensions: []ext.Factory{echo}, ExtensionPaths: []string{"go:echo"},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"first", "second"} {
		if err := rt.Prompt(ctx, p, nil); err != nil {
			t.Fatal(err)
		}
	}
	preserve := 2
	if _, err := rt.Session().Compact(ctx, session.CompactManual, 0, &preserve, ""); err != nil {
		t.Fatal(err)
	}
	file := st.SessionFile()
	rt.Shutdown(ctx)

	cmd := exec.Command("node", cli, "--session", file, "--provider", "fakellm", "--model", "fake-model", "-p", "continue")
	cmd.Dir, cmd.Env = work, append(os.Environ(), "PI_CODING_AGENT_DIR="+agentDir(t, srv), "PI_OFFLINE=1", "PI_SKIP_VERSION_CHECK=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("pi: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "pi continues.") {
		t.Fatalf("pi printed %q", out)
	}
	reqs := srv.Requests()
	var body struct {
		Messages []struct {
			Role       string `json:"role"`
			ToolCallID string `json:"tool_call_id"`
			ToolCalls  []struct {
				ID string `json:"id"`
			} `json:"tool_calls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(reqs[len(reqs)-1].Body, &body); err != nil {
		t.Fatal(err)
	}
	calls := map[string]bool{}
	results := 0
	for _, m := range body.Messages {
		for _, c := range m.ToolCalls {
			calls[c.ID] = true
		}
		if m.Role == "tool" {
			results++
			if !calls[m.ToolCallID] {
				t.Errorf("pi sent the tool result %s without its call: a provider answers 400", m.ToolCallID)
			}
		}
	}
	if results != 2 {
		t.Errorf("pi sent %d tool results; the kept region holds the call and both results", results)
	}
}
