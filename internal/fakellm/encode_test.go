package fakellm

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-cli/atomic/internal/fixture"
	"github.com/atomic-cli/atomic/llm"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func TestRenderGolden(t *testing.T) {
	turn := Turn{
		Thinking:  "Hmm <ok> & fine",
		Text:      "Héllo wörld",
		ToolCalls: []ToolCall{Call("bash", map[string]string{"command": "ls"})},
		Chunks:    2,
	}
	for _, c := range []struct{ api, file string }{
		{llm.APIAnthropicMessages, "anthropic.sse"},
		{llm.APIOpenAICompletions, "chat.sse"},
		{llm.APIOpenAIResponses, "responses.sse"},
	} {
		t.Run(c.api, func(t *testing.T) {
			r, err := Render(c.api, turn, Info{Turn: 2, Seq: 5, InputTokens: 42, IncludeUsage: true})
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", c.file)
			if *update {
				if err := os.WriteFile(path, r.Body, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if !bytes.Equal(r.Body, want) {
				t.Errorf("%s differs from the rendered stream (go test -update rewrites it):\n%s", path, r.Body)
			}
			parseSSE(t, r.Body)
		})
	}
}

func TestRenderIsDeterministic(t *testing.T) {
	for _, api := range []string{llm.APIAnthropicMessages, llm.APIOpenAICompletions, llm.APIOpenAIResponses} {
		a, _ := Render(api, richTurn, Info{Turn: 1})
		b, _ := Render(api, richTurn, Info{Turn: 1})
		if !bytes.Equal(a.Body, b.Body) {
			t.Errorf("%s: two renders differ", api)
		}
	}
}

func TestRenderStopReasons(t *testing.T) {
	cases := []struct {
		api, stop, want string
	}{
		{llm.APIAnthropicMessages, StopLength, `"stop_reason":"max_tokens"`},
		{llm.APIAnthropicMessages, StopStop, `"stop_reason":"end_turn"`},
		{llm.APIOpenAICompletions, StopLength, `"finish_reason":"length"`},
		{llm.APIOpenAIResponses, StopLength, `"status":"incomplete","model":"fake-model","output":[{`},
		{llm.APIOpenAIResponses, StopLength, `"incomplete_details":{"reason":"max_output_tokens"}`},
	}
	for _, c := range cases {
		r, err := Render(c.api, Turn{Text: "cut off", StopReason: c.stop}, Info{})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(r.Body), c.want) {
			t.Errorf("%s %s: body lacks %s:\n%s", c.api, c.stop, c.want, r.Body)
		}
	}
}

func TestRenderDropCutsBeforeTerminalEvents(t *testing.T) {
	r, err := Render(llm.APIOpenAICompletions, Turn{Text: "abc", Drop: true, DropAfter: 10}, Info{})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Truncated || strings.Contains(string(r.Body), "finish_reason\":\"stop") || !strings.Contains(string(r.Body), `"content":"abc"`) {
		t.Errorf("truncated %v, body:\n%s", r.Truncated, r.Body)
	}
	r, _ = Render(llm.APIOpenAICompletions, Turn{Text: "abc", Drop: true}, Info{})
	if strings.Contains(string(r.Body), "abc") || len(r.Frames) != 1 {
		t.Errorf("drop_after 0 should send no delta:\n%s", r.Body)
	}
}

func TestRenderUnknownAPI(t *testing.T) {
	if _, err := Render("google-generative-ai", Turn{Text: "x"}, Info{}); err == nil || !strings.Contains(err.Error(), `unknown api "google-generative-ai"`) {
		t.Errorf("err = %v", err)
	}
}

func TestValidate(t *testing.T) {
	cases := []struct {
		name string
		json string
		want string
	}{
		{"bad match", `{"match":"random","turns":[]}`, `match "random"`},
		{"unknown field", `{"turns":[{"txt":"x"}]}`, `unknown field "txt"`},
		{"bad stop", `{"turns":[{"stop_reason":"end_turn"}]}`, `turn 0: stop_reason "end_turn"`},
		{"error with text", `{"turns":[{"text":"x","error":{"status":500}}]}`, "turn 0: an error turn carries no"},
		{"error status", `{"turns":[{"error":{"status":200}}]}`, "error status 200"},
		{"drop_after alone", `{"turns":[{"text":"x","drop_after":1}]}`, "drop is false"},
		{"drop and stream error", `{"turns":[{"text":"x","drop":true,"stream_error":{}}]}`, "both drop"},
		{"nameless call", `{"turns":[{},{"tool_calls":[{"arguments":{}}]}]}`, "turn 1: tool call 0: name is empty"},
		{"array arguments", `{"turns":[{"tool_calls":[{"name":"bash","arguments":[1]}]}]}`, "arguments must be a JSON object"},
		{"both arguments", `{"turns":[{"tool_calls":[{"name":"bash","arguments":{},"raw_arguments":"{"}]}]}`, "not both"},
		{"negative chunks", `{"turns":[{"chunks":-1}]}`, "must not be negative"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseScript([]byte(c.json))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want it to contain %q", err, c.want)
			}
		})
	}
}

func TestLoadScenarioNamesTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "broken.json")
	if err := os.WriteFile(path, []byte(`{"turns":[{"stop_reason":"x"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := LoadScenario(path)
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("err = %v, want it to name %s", err, path)
	}
}

func TestLoadAllFixtureScenarios(t *testing.T) {
	files, _ := filepath.Glob(fixture.Path("scenarios", "*.json"))
	if len(files) == 0 {
		t.Skip("fixtures not available")
	}
	for _, f := range files {
		if _, err := LoadScenario(f); err != nil {
			t.Error(err)
		}
	}
}

func TestCountAssistantTurns(t *testing.T) {
	cases := []struct {
		body string
		n    int
		ok   bool
	}{
		{`{"messages":[{"role":"user"},{"role":"assistant"},{"role":"tool"},{"role":"assistant"}]}`, 2, true},
		{`{"system":"s","messages":[]}`, 0, true},
		{`{"input":"hello"}`, 0, true},
		{`{"input":[{"role":"user"},{"type":"reasoning"},{"type":"message","role":"assistant"},{"type":"function_call"},{"type":"function_call"},` +
			`{"type":"function_call_output"},{"type":"function_call_output"},{"type":"function_call"},{"type":"function_call_output"},{"role":"user"}]}`, 2, true},
		{`{"input":[{"role":"developer"},{"role":"user"}]}`, 0, true},
		{`{"contents":[{"role":"user"},{"role":"model"},{"role":"user"}]}`, 1, true},
		{`{"model":"x"}`, 0, false},
		{`not json`, 0, false},
	}
	for _, c := range cases {
		n, ok := CountAssistantTurns([]byte(c.body))
		if n != c.n || ok != c.ok {
			t.Errorf("CountAssistantTurns(%s) = %d, %v; want %d, %v", c.body, n, ok, c.n, c.ok)
		}
	}
}

func TestCountAssistantTurnsOnPiRequests(t *testing.T) {
	for i, body := range fixtureRequests(t, "print") {
		if n, ok := CountAssistantTurns(body); !ok || n != i {
			t.Errorf("request %d: count %d, %v", i, n, ok)
		}
	}
}
