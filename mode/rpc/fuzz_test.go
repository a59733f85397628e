package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/session"
	"github.com/atomic-cli/atomic/store"
)

var decoderSeeds = []string{
	``, `{}`, `[]`, `null`, `"prompt"`, `{"type":"prompt"}`, `{"type":"prompt","message":"hi"}`,
	`{"id":"1","type":"prompt","message":"hi","images":[{"type":"image","data":"AA==","mimeType":"image/png"}],"streamingBehavior":"steer"}`,
	`{"id":7,"type":"get_state"}`, `{"id":{"a":[1, 2]},"type":"abort"}`, `{"id":null,"type":"abort_bash","requestId":"x"}`,
	`{"type":"set_thinking_level","level":"max"}`, `{"type":"set_model","provider":"p"}`, `{"type":"get_entries","since":null}`,
	`{"type":"navigate_tree","targetId":"ab","options":{"summarize":true}}`, `{"type":"extension_ui_response","id":"x","value":"v"}`,
	`{"type":"x\u2028y"}`, `{"type":"prompt","message":"\ud800"}`, `{"type":"bash","command":["ls"]}`,
}

// FuzzDecodeCommand: every frame decodes to a runnable command or to exactly one error
// response, which is valid JSON, unsuccessful and carries the frame's id.
func FuzzDecodeCommand(f *testing.F) {
	for _, s := range decoderSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		cmd, ferr := decodeCommand(line)
		if (cmd == nil) == (ferr == nil) {
			t.Fatalf("decodeCommand(%q) = %v, %v: want exactly one", line, cmd, ferr)
		}
		if ferr != nil {
			b, err := appendResponse(nil, ferr.id, ferr.command, nil, ferr.msg, false)
			if err != nil {
				t.Fatal(err)
			}
			var r map[string]any
			if err := json.Unmarshal(b, &r); err != nil {
				t.Fatalf("error response %q is not JSON: %v", b, err)
			}
			if r["type"] != "response" || r["success"] != false || r["error"] == "" {
				t.Fatalf("error response %s", b)
			}
			if !json.Valid(line) && (ferr.command != "parse" || ferr.id != nil) {
				t.Fatalf("a frame that is not JSON gave %+v", ferr)
			}
			return
		}
		sp, ok := specs[cmd.Type]
		if !ok || handlers[cmd.Type] == nil {
			t.Fatalf("decoded an unknown command %q", cmd.Type)
		}
		if (sp.params == nil) != (cmd.params == nil) {
			t.Fatalf("%s: params %v", cmd.Type, cmd.params)
		}
		if cmd.ID != nil && !json.Valid(cmd.ID) {
			t.Fatalf("id %q is not JSON", cmd.ID)
		}
		b, err := appendResponse(nil, cmd.ID, cmd.Type, map[string]any{"ok": true}, "", true)
		if err != nil || !json.Valid(b) {
			t.Fatalf("response %q: %v", b, err)
		}
	})
}

// safeCommands may run during server fuzzing: they neither spawn processes nor call the model
// nor grow the session.
var safeCommands = map[string]bool{
	"get_state": true, "get_messages": true, "get_session_stats": true, "get_commands": true,
	"get_available_models": true, "get_available_thinking_levels": true, "get_fork_messages": true,
	"get_last_assistant_text": true, "get_entries": true, "get_tree": true, "get_shortcuts": true,
	"get_command_completions": true, "set_steering_mode": true, "set_follow_up_mode": true,
	"set_auto_compaction": true, "set_auto_retry": true, "set_thinking_level": true,
	"cycle_thinking_level": true, "compact": true, "export_html": true, "abort": true,
	"abort_bash": true, "abort_retry": true, "abort_compaction": true, "clear_queue": true,
	"pause_queued_messages": true, "resume_queued_messages": true, "refresh_models": true,
	"login_provider": true, "save_provider_credential": true, "cancel_login_provider": true,
	"logout_provider": true, "import_session": true,
}

func fuzzRuntime(tb testing.TB) *session.Runtime {
	m := &llm.Model{ID: "m", Name: "m", API: llm.APIOpenAICompletions, Provider: "p", BaseURL: "http://127.0.0.1:1/v1", Input: []string{"text"}, ContextWindow: 1000, MaxTokens: 100}
	rt, err := session.NewRuntime(context.Background(), session.Options{Store: store.InMemory(tb.TempDir()), Model: m, Mode: "rpc"})
	if err != nil {
		tb.Fatal(err)
	}
	return rt
}

// FuzzServeFrames: any sequence of frames followed by a good one is served whole: every frame
// but dialog answers gets exactly one response, every output line is JSON, and the final
// get_state succeeds.
func FuzzServeFrames(f *testing.F) {
	for _, s := range decoderSeeds {
		f.Add([]byte(s + "\n" + s + "\r\n"))
	}
	f.Add([]byte("not json\n{\"id\":\"a\",\"type\":\"abort\"}\n\n\r\n{\"type\":\"get_state\"}"))
	rt := fuzzRuntime(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		want := 0
		for _, frame := range splitRecords(data) {
			if _, typ, err := decodeEnvelope(frame); err == nil && typ == commandTypeUIResponse {
				continue
			}
			if cmd, _ := decodeCommand(frame); cmd != nil && !safeCommands[cmd.Type] {
				t.Skip("frame runs a command with side effects")
			}
			want++
		}
		if len(data) > 0 && data[len(data)-1] != '\n' {
			data = append(data, '\n')
		}
		data = append(data, `{"id":"__probe__","type":"get_state"}`+"\n"...)
		out := newCapture()
		s := NewServer(Config{In: bytes.NewReader(data), Out: out})
		if code := s.Serve(context.Background(), rt); code != 0 {
			t.Fatalf("exit %d", code)
		}
		if len(out.bad) > 0 {
			t.Fatalf("output lines that are not JSON: %q", out.bad)
		}
		responses, probe := 0, false
		for _, m := range out.lines {
			if m["type"] != "response" {
				continue
			}
			responses++
			if m["id"] == "__probe__" {
				probe = m["success"] == true
			}
		}
		if responses != want+1 || !probe {
			t.Fatalf("%d responses (probe ok: %v) for %d frames + probe; output:\n%q", responses, probe, want, out.raw)
		}
	})
}
