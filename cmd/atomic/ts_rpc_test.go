package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/atomic-cli/atomic/internal/fakellm"
	"github.com/atomic-cli/atomic/llm"
)

// A TypeScript extension's ctx.ui.confirm in RPC mode reaches the client as an
// extension_ui_request (through the Node host's ui.confirm request), and the client's answer
// comes back to the extension; ctx.ui.notify goes out as a notify request.
func TestRPCTypeScriptDialog(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("needs node")
	}
	dir := t.TempDir()
	extPath := filepath.Join(dir, "ask.ts")
	if err := os.WriteFile(extPath, []byte(`
import type { ExtensionAPI } from "@bastani/atomic";
export default function (pi: ExtensionAPI) {
	pi.registerCommand("ask", {
		description: "ask from TypeScript",
		handler: async (args, ctx) => {
			const ok = await ctx.ui.confirm("Confirm", args);
			ctx.ui.notify("ts confirmed=" + ok + " hasUI=" + ctx.hasUI + " mode=" + ctx.mode, "info");
		},
	});
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := fakellm.New(fakellm.Script{Turns: []fakellm.Turn{{Text: "unused"}}})
	t.Cleanup(srv.Close)
	agent := t.TempDir()
	if err := os.WriteFile(filepath.Join(agent, "models.json"), modelsJSON("fake", llm.APIOpenAICompletions, baseURL(srv, llm.APIOpenAICompletions)), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("atomic", "--mode", "rpc", "--no-session", "-e", extPath)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "ATOMIC_CODING_AGENT_DIR="+agent, "HOME="+agent)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &rpcProcess{t: t, cmd: cmd, in: in, lines: make(chan map[string]any, 100)}
	go func() {
		defer close(p.lines)
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				p.lines <- m
			}
		}
	}()
	t.Cleanup(func() { _ = cmd.Process.Kill() })

	p.send(`{"id":"a","type":"prompt","message":"/ask Ship it?"}`)
	req := p.next(func(m map[string]any) bool { return m["method"] == "confirm" })
	if req["type"] != "extension_ui_request" || req["title"] != "Confirm" || req["message"] != "Ship it?" {
		t.Fatalf("request %v", req)
	}
	b, _ := json.Marshal(map[string]any{"type": "extension_ui_response", "id": req["id"], "confirmed": true})
	p.send(string(b))
	note := p.next(func(m map[string]any) bool {
		if m["id"] == "a" {
			t.Fatalf("the command answered before its notify: %v", m)
		}
		return m["method"] == "notify"
	})
	if note["message"] != "ts confirmed=true hasUI=true mode=rpc" {
		t.Fatalf("notify %v", note)
	}
	if r := p.next(func(m map[string]any) bool { return m["id"] == "a" }); r["success"] != true {
		t.Fatalf("response %v", r)
	}
	in.Close()
	if code := p.wait(); code != 0 {
		t.Fatalf("exit code %d", code)
	}
}
