package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atomic-cli/atomic/internal/fakellm"
	"github.com/atomic-cli/atomic/llm"
)

// publishedPiPackages are the third-party pi packages issue 13 names.
var publishedPiPackages = []string{"pi-mcp-adapter", "pi-web-access", "pi-subagents", "pi-markdown-preview", "pi-prompt-template-model"}

// piPackageProbe is what TestPublishedPiPackagesLoad makes a package do: the model calls Tool with
// Args (or the prompt is Prompt, a command of the package), and the tool result (or the output)
// must contain Want. Prep sets up the package's configuration in the run's directory and agent
// directory.
type piPackageProbe struct {
	Tool   string
	Args   string
	Prompt string
	Want   string
	Prep   func(t *testing.T, dir, agent string)
}

// miniMCPServer is an MCP stdio server with one tool, echo, for pi-mcp-adapter.
const miniMCPServer = `import { createInterface } from "node:readline";
const send = (m) => process.stdout.write(JSON.stringify(m) + "\n");
createInterface({ input: process.stdin }).on("line", (line) => {
	let m;
	try { m = JSON.parse(line); } catch { return; }
	if (m.id === undefined) return;
	if (m.method === "initialize") return send({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: m.params?.protocolVersion ?? "2024-11-05", capabilities: { tools: {} }, serverInfo: { name: "mini", version: "1.0.0" } } });
	if (m.method === "tools/list") return send({ jsonrpc: "2.0", id: m.id, result: { tools: [{ name: "echo", description: "Echo", inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } }] } });
	if (m.method === "tools/call") return send({ jsonrpc: "2.0", id: m.id, result: { content: [{ type: "text", text: "echo:" + m.params?.arguments?.text }] } });
	send({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "no method " + m.method } });
});
`

// toolRecorder writes every tool result as a JSON line to $TOOL_RESULTS.
const toolRecorder = `import { appendFileSync } from "node:fs";
export default function (pi) {
	pi.on("tool_result", (e) => {
		const text = (e.content ?? []).map((c) => c.text ?? "[" + c.type + "]").join("\n");
		appendFileSync(process.env.TOOL_RESULTS, JSON.stringify({ tool: e.toolName, isError: e.isError, text }) + "\n");
	});
}
`

func writeProbeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// piPackageProbes make each published package do something real, offline: pi-mcp-adapter calls
// a tool of a local MCP server, pi-web-access fetches and extracts a local page, pi-subagents
// lists the agents it ships, pi-markdown-preview's export runs (and says it needs pandoc, which
// the machine lacks), pi-prompt-template-model's /prompt-tool command answers.
func piPackageProbes(t *testing.T) map[string]piPackageProbe {
	var page strings.Builder
	page.WriteString("<!doctype html><html><head><title>Probe article</title></head><body><article><h1>Probe article</h1>")
	for i := 1; i <= 15; i++ {
		fmt.Fprintf(&page, "<p>Paragraph %d: a probe article about foxes and dogs, long enough that a readability extractor sees a real body. The fox jumped over the dog again, and the observers noted each jump.</p>", i)
	}
	page.WriteString("</article></body></html>")
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(page.String()))
	}))
	t.Cleanup(site.Close)
	return map[string]piPackageProbe{
		"pi-mcp-adapter": {Tool: "mcp", Args: `{"tool":"mini_echo","args":{"text":"hello"}}`, Want: "echo:hello",
			Prep: func(t *testing.T, dir, _ string) {
				writeProbeFile(t, filepath.Join(dir, "mini-mcp.mjs"), miniMCPServer)
				writeProbeFile(t, filepath.Join(dir, ".mcp.json"), `{"mcpServers":{"mini":{"command":"node","args":["`+filepath.ToSlash(filepath.Join(dir, "mini-mcp.mjs"))+`"]}}}`)
			}},
		"pi-web-access": {Tool: "fetch_content", Args: `{"url":"` + site.URL + `/article.html"}`, Want: "Paragraph 3: a probe article",
			Prep: func(t *testing.T, _, agent string) {
				writeProbeFile(t, filepath.Join(agent, "web-search.json"), `{"ssrf":{"allowRanges":["127.0.0.0/8"]}}`)
			}},
		"pi-subagents":             {Tool: "subagent", Args: `{"action":"list"}`, Want: "Builtin agents"},
		"pi-markdown-preview":      {Tool: "preview_export", Args: `{"format":"html","source":"markdown","markdown":"# Hello"}`, Want: "pandoc"},
		"pi-prompt-template-model": {Prompt: "/prompt-tool", Want: "run-prompt tool is disabled"},
	}
}

// TestPublishedPiPackagesLoad installs the published pi packages from the npm registry into a
// temporary directory, loads each through the binary and makes it do something real (see
// piPackageProbes) against the fake LLM. It is opt-in (ATOMIC_NPM_TESTS=1) because the install
// downloads some 450 packages and takes minutes, and it skips when npm or the registry is
// unreachable. The loading features these packages rely on (an ES-module-only dependency,
// top-level await, TypeScript inside node_modules, default-import interop, import.meta per file)
// are covered offline by the vendored fixtures of testdata/script/ts_modern_packages.txtar and
// ts_import_meta.txtar.
func TestPublishedPiPackagesLoad(t *testing.T) {
	if os.Getenv("ATOMIC_NPM_TESTS") == "" {
		t.Skip("set ATOMIC_NPM_TESTS=1 to install the published pi packages from npm (minutes)")
	}
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("needs %s", tool)
		}
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name":"atomic-npm-probe","private":true}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	install := exec.CommandContext(ctx, "npm", append([]string{"install", "--no-audit", "--no-fund", "--ignore-scripts"}, publishedPiPackages...)...)
	install.Dir = dir
	if out, err := install.CombinedOutput(); err != nil {
		t.Skipf("npm install failed (offline or registry unreachable?): %v\n%s", err, out)
	}
	probes := piPackageProbes(t)
	for _, pkg := range publishedPiPackages {
		t.Run(pkg, func(t *testing.T) {
			probe := probes[pkg]
			turns := []fakellm.Turn{{Text: "done"}}
			if probe.Tool != "" {
				turns = []fakellm.Turn{{ToolCalls: []fakellm.ToolCall{{Name: probe.Tool, Arguments: json.RawMessage(probe.Args)}}}, {Text: "done"}}
			}
			srv := fakellm.New(fakellm.Script{Turns: turns})
			defer srv.Close()
			work, agent := t.TempDir(), t.TempDir()
			writeProbeFile(t, filepath.Join(agent, "models.json"), string(modelsJSON("fake", llm.APIAnthropicMessages, baseURL(srv, llm.APIAnthropicMessages))))
			writeProbeFile(t, filepath.Join(work, "recorder.mjs"), toolRecorder)
			if probe.Prep != nil {
				probe.Prep(t, work, agent)
			}
			prompt := probe.Prompt
			if prompt == "" {
				prompt = "go"
			}
			results := filepath.Join(work, "results.jsonl")
			lctx, lcancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer lcancel()
			cmd := exec.CommandContext(lctx, "atomic", "--no-extensions", "--no-session", "--approve", "-e", filepath.Join(dir, "node_modules", pkg), "-e", filepath.Join(work, "recorder.mjs"), "-p", prompt)
			cmd.Dir = work
			cmd.Env = append(os.Environ(), "ATOMIC_CODING_AGENT_DIR="+agent, "PI_CODING_AGENT_DIR="+agent, "HOME="+agent, "TOOL_RESULTS="+results)
			out, err := cmd.CombinedOutput()
			if err != nil || strings.Contains(string(out), "failed to load") || strings.Contains(string(out), "Extension error") {
				t.Fatalf("%s does not load: %v\n%s", pkg, err, out)
			}
			got := string(out)
			if probe.Tool != "" {
				b, err := os.ReadFile(results)
				if err != nil {
					t.Fatalf("%s: the %s tool did not run: %v\n%s", pkg, probe.Tool, err, out)
				}
				got = string(b)
			}
			if !strings.Contains(got, probe.Want) {
				t.Fatalf("%s: want %q in\n%s", pkg, probe.Want, got)
			}
		})
	}
}
