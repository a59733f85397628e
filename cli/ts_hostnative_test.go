package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// ctx.ui.hostSessionPicker and ctx.ui.hostInputForm are absent in RPC mode (seed 004: only interactive hosts draw it
// natively): the property is undefined, so extensions can fail with an actionable error.
func TestRPCTypeScriptHostNativeAbsent(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("needs node")
	}
	dir := t.TempDir()
	extPath := filepath.Join(dir, "native.ts")
	if err := os.WriteFile(extPath, []byte(`
import type { ExtensionAPI } from "@bastani/atomic";
export default function (pi: ExtensionAPI) {
	pi.registerCommand("native", {
		description: "probe the host-native members",
		handler: async (_args, ctx) => {
			ctx.ui.notify("picker=" + typeof ctx.ui.hostSessionPicker + " value=" + String(ctx.ui.hostSessionPicker) + " form=" + typeof ctx.ui.hostInputForm, "info");
		},
	});
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startRPCIn(t, dir, nil, []string{"-e", extPath})
	p.send(`{"id":"a","type":"prompt","message":"/native"}`)
	note := p.next(func(m map[string]any) bool { return m["method"] == "notify" })
	if note["message"] != "picker=undefined value=undefined form=undefined" {
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
