package pi

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-cli/atomic/internal/fakellm"
)

// sourceInfoExt records getAllTools() (a built-in and its own tool) and getCommands() (its own
// command) with their sourceInfo into $SOURCEINFO_OUT before the first turn.
const sourceInfoExt = `import { writeFileSync } from "node:fs";
export default function (pi) {
	pi.registerTool({ name: "si_tool", label: "si", description: "d", parameters: { type: "object", properties: {} },
		execute: async () => ({ content: [{ type: "text", text: "x" }], details: {} }) });
	pi.registerCommand("si-cmd", { description: "c", handler: async () => {} });
	pi.on("before_agent_start", () => {
		const tools = pi.getAllTools().filter((t) => t.name === "read" || t.name === "si_tool")
			.map((t) => ({ name: t.name, sourceInfo: t.sourceInfo }));
		const cmds = pi.getCommands().filter((c) => c.name === "si-cmd")
			.map((c) => ({ name: c.name, source: c.source, sourceInfo: c.sourceInfo }));
		writeFileSync(process.env.SOURCEINFO_OUT, JSON.stringify({ tools, cmds }));
	});
}
`

// TestSourceInfoLikePi: a built-in tool's sourceInfo and an -e extension's tool and command
// sourceInfo, as getAllTools() and getCommands() give them to the extension, are pi 0.73.1's.
func TestSourceInfoLikePi(t *testing.T) {
	cli := piCLI(t)
	bin := buildAtomic(t)
	srv := fakellm.New(fakellm.Script{Turns: []fakellm.Turn{{Text: "ok"}, {Text: "ok"}}})
	defer srv.Close()
	work := t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "si.ts"), []byte(sourceInfoExt), 0o644); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, name := range []string{"pi", "atomic"} {
		out := filepath.Join(t.TempDir(), "out.json")
		var c *exec.Cmd
		if name == "pi" {
			c = exec.Command("node", cli, "--provider", "fakellm", "--model", "fake-model", "--no-session", "-e", "./si.ts", "-p", "hi")
			c.Env = append(os.Environ(), "PI_CODING_AGENT_DIR="+agentDir(t, srv), "PI_OFFLINE=1", "PI_SKIP_VERSION_CHECK=1", "NO_COLOR=1")
		} else {
			c = exec.Command(bin, "--no-session", "-e", "./si.ts", "-p", "hi")
			c.Env = append(os.Environ(), "ATOMIC_CODING_AGENT_DIR="+agentDir(t, srv))
		}
		c.Env = append(c.Env, "SOURCEINFO_OUT="+out)
		c.Dir = work
		if b, err := c.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, b)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatalf("%s wrote no sourceInfo: %v", name, err)
		}
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		norm, _ := json.Marshal(v) // keys sorted
		got[name] = string(norm)
	}
	if got["atomic"] != got["pi"] || !strings.Contains(got["pi"], `builtin:read`) {
		t.Errorf("sourceInfo:\natomic %s\npi     %s", got["atomic"], got["pi"])
	}
}
