package cli

import (
	"strings"
	"testing"

	"github.com/atomic-cli/atomic/internal/fakellm"
)

// TestTSHostNativeAbsentHeadless: through the real binary, a TypeScript extension sees
// ctx.ui.hostSessionPicker and ctx.ui.hostInputForm undefined in print mode and in RPC mode (seed
// 004: only interactive hosts have them; the terminal UI's are in mode/tui's e2e tests).
func TestTSHostNativeAbsentHeadless(t *testing.T) {
	p := newTSProbe(t, []fakellm.Turn{{Text: "ok"}, {Text: "ok"}}, "hostnative.ts")
	const want = `PROBE {"picker":"undefined","form":"undefined"`
	_, stderr := p.print("--no-session", "-e", "hostnative.ts", "-p", "hi")
	if !strings.Contains(stderr, want) {
		t.Fatalf("print mode: want %s in:\n%s", want, stderr)
	}
	r := p.rpc("--no-session", "-e", "hostnative.ts")
	r.send(`{"id":"1","type":"prompt","message":"hi"}`)
	if got := r.notifyText("PROBE "); !strings.HasPrefix(got, want) || !strings.Contains(got, `"hasUI":true`) {
		t.Fatalf("rpc mode: %s", got)
	}
}
