package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
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
	p := startRPCIn(t, dir, nil, []string{"-e", extPath})

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
	p.in.Close()
	if code := p.wait(); code != 0 {
		t.Fatalf("exit code %d", code)
	}
}
