package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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

// registerProvider's logins from TypeScript through RPC login_provider (issue 13 item 8): an
// OAuth-only provider is not available until its login ran; the login's prompt reaches the
// client as a dialog, the returned credential is stored and makes the provider available; an
// auth.apiKey login does the same with an API key; a provider without a login says so.
func TestRPCTypeScriptProviderLogin(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("needs node")
	}
	dir := t.TempDir()
	extPath := filepath.Join(dir, "corp.ts")
	if err := os.WriteFile(extPath, []byte(`
import type { ExtensionAPI } from "@bastani/atomic";
export default function (pi: ExtensionAPI) {
	pi.registerProvider("corp", {
		baseUrl: "http://127.0.0.1:9/v1",
		api: "openai-completions",
		models: [{ id: "corp-1", name: "Corp", contextWindow: 8000, maxTokens: 1000 }],
		oauth: {
			name: "Corp SSO",
			async login(callbacks: any) {
				callbacks.onAuth({ url: "https://sso.example/auth" });
				const code = await callbacks.onPrompt({ message: "Enter code:" });
				return { refresh: "r-" + code, access: code, expires: Date.now() + 3600000 };
			},
			async refreshToken(c: any) { return c; },
			getApiKey(c: any) { return "key-" + c.access; },
		},
	} as any);
	pi.registerProvider("local", {
		baseUrl: "http://127.0.0.1:9/v1",
		api: "openai-completions",
		models: [{ id: "local-1", name: "Local", contextWindow: 8000, maxTokens: 1000 }],
		auth: { apiKey: { name: "Local server", async login({ prompt }: any) {
			return { type: "api_key", key: await prompt({ type: "text", message: "Key" }) };
		} } },
	} as any);
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startRPCIn(t, dir, nil, []string{"-e", extPath})
	models := func(id string) string {
		p.send(`{"id":"` + id + `","type":"get_available_models"}`)
		r := p.next(func(m map[string]any) bool { return m["id"] == id })
		b, _ := json.Marshal(r["data"])
		return string(b)
	}
	if got := models("m1"); strings.Contains(got, "corp-1") || strings.Contains(got, "local-1") {
		t.Fatalf("providers with a login but no credential are available: %s", got)
	}
	answer := func(method, value string) {
		req := p.next(func(m map[string]any) bool { return m["method"] == method })
		b, _ := json.Marshal(map[string]any{"type": "extension_ui_response", "id": req["id"], "value": value})
		p.send(string(b))
	}

	p.send(`{"id":"l1","type":"login_provider","provider":"corp"}`)
	if n := p.next(func(m map[string]any) bool { return m["method"] == "notify" }); !strings.Contains(fmt.Sprint(n["message"]), "https://sso.example/auth") {
		t.Fatalf("onAuth notify %v", n)
	}
	answer("input", "tok")
	r := p.next(func(m map[string]any) bool { return m["id"] == "l1" })
	data, _ := r["data"].(map[string]any)
	if r["success"] != true || data["provider"] != "corp" || data["cancelled"] != false || data["type"] != "oauth" {
		t.Fatalf("login_provider corp: %v", r)
	}

	p.send(`{"id":"l2","type":"login_provider","provider":"local","authType":"api_key"}`)
	answer("input", "secret")
	if r := p.next(func(m map[string]any) bool { return m["id"] == "l2" }); r["success"] != true || fmt.Sprint(r["data"]) != "map[cancelled:false provider:local type:api_key]" {
		t.Fatalf("login_provider local: %v", r)
	}
	if got := models("m2"); !strings.Contains(got, "corp-1") || !strings.Contains(got, "local-1") {
		t.Fatalf("the logins did not make the providers available: %s", got)
	}

	p.send(`{"id":"l3","type":"login_provider","provider":"fake"}`)
	if r := p.next(func(m map[string]any) bool { return m["id"] == "l3" }); r["success"] != false || !strings.Contains(fmt.Sprint(r["error"]), "not available") {
		t.Fatalf("login_provider without a login: %v", r)
	}
	p.in.Close()
	if code := p.wait(); code != 0 {
		t.Fatalf("exit code %d", code)
	}
}

// RPC cancel_login_provider (rpc-and-json.md §6.4): a cancel naming another loginId leaves the
// running login alone (it completes with the answer to its prompt); a cancel with the login's
// loginId ends it with {cancelled: true}; a cancel without a loginId sent right behind the
// login, before it ran, cancels it too; a cancelled login stores nothing.
func TestRPCTypeScriptCancelLogin(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("needs node")
	}
	dir := t.TempDir()
	extPath := filepath.Join(dir, "corp.ts")
	if err := os.WriteFile(extPath, []byte(`
import type { ExtensionAPI } from "@bastani/atomic";
export default function (pi: ExtensionAPI) {
	pi.registerProvider("corp", {
		baseUrl: "http://127.0.0.1:9/v1",
		api: "openai-completions",
		models: [{ id: "corp-1", name: "Corp", contextWindow: 8000, maxTokens: 1000 }],
		oauth: {
			name: "Corp SSO",
			async login(callbacks: any) {
				const code = await callbacks.onPrompt({ message: "Enter code:" });
				return { refresh: "r-" + code, access: code, expires: Date.now() + 3600000 };
			},
			async refreshToken(c: any) { return c; },
			getApiKey(c: any) { return c.access; },
		},
	} as any);
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startRPCIn(t, dir, nil, []string{"-e", extPath})
	prompt := func() any {
		return p.next(func(m map[string]any) bool { return m["method"] == "input" })["id"]
	}
	reply := func(id string) map[string]any {
		return p.next(func(m map[string]any) bool { return m["id"] == id })
	}

	p.send(`{"id":"l1","type":"login_provider","provider":"corp","loginId":"L1"}`)
	r1 := prompt()
	p.send(`{"id":"c1","type":"cancel_login_provider","provider":"corp","loginId":"stale"}`)
	if r := reply("c1"); r["success"] != true || r["command"] != "cancel_login_provider" {
		t.Fatalf("cancel_login_provider with a stale loginId: %v", r)
	}
	b, _ := json.Marshal(map[string]any{"type": "extension_ui_response", "id": r1, "value": "tok"})
	p.send(string(b))
	if r := reply("l1"); r["success"] != true || fmt.Sprint(r["data"]) != "map[cancelled:false provider:corp type:oauth]" {
		t.Fatalf("a stale cancel ended the login: %v", r)
	}

	p.send(`{"id":"l2","type":"login_provider","provider":"corp","loginId":"L2"}`)
	prompt()
	p.send(`{"id":"c2","type":"cancel_login_provider","provider":"corp","loginId":"L2"}`)
	if r := reply("l2"); r["success"] != true || fmt.Sprint(r["data"]) != "map[cancelled:true provider:corp]" {
		t.Fatalf("login_provider after its cancel: %v", r)
	}

	p.send(`{"id":"l3","type":"login_provider","provider":"corp"}` + "\n" + `{"id":"c3","type":"cancel_login_provider","provider":"corp"}`)
	if r := reply("l3"); r["success"] != true || fmt.Sprint(r["data"]) != "map[cancelled:true provider:corp]" {
		t.Fatalf("login_provider cancelled before it ran: %v", r)
	}

	// The first login's credential is still the stored one: corp stays available.
	p.send(`{"id":"m","type":"get_available_models"}`)
	if b, _ := json.Marshal(reply("m")["data"]); !strings.Contains(string(b), "corp-1") {
		t.Fatalf("corp is no longer available after the cancelled logins: %s", b)
	}
	p.in.Close()
	if code := p.wait(); code != 0 {
		t.Fatalf("exit code %d", code)
	}
}

// Atomic's createAskUserQuestionToolDefinition from the Node host runs the Go ask_user_question
// with the calling context's dialogs: in RPC mode its question reaches the client as an
// extension_ui_request select, and the client's choice is the tool's answer.
func TestRPCTypeScriptAskUserQuestionFactory(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("needs node")
	}
	dir := t.TempDir()
	extPath := filepath.Join(dir, "ask.ts")
	if err := os.WriteFile(extPath, []byte(`
import type { ExtensionAPI } from "@bastani/atomic";
import { createAskUserQuestionToolDefinition } from "@bastani/atomic";
export default function (pi: ExtensionAPI) {
	const ask = createAskUserQuestionToolDefinition();
	pi.registerCommand("pick", {
		description: "ask through the built-in",
		handler: async (_args, ctx) => {
			const r = await ask.execute("q1", { questions: [{ question: "Which database?", header: "DB",
				options: [{ label: "Postgres", description: "relational" }, { label: "SQLite", description: "embedded" }] }] },
				undefined, undefined, ctx);
			ctx.ui.notify("answers=" + JSON.stringify(r.details.answers.map((a: any) => a.answer ?? a.answers ?? a.selected)), "info");
		},
	});
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startRPCIn(t, dir, nil, []string{"-e", extPath})
	p.send(`{"id":"a","type":"prompt","message":"/pick"}`)
	req := p.next(func(m map[string]any) bool { return m["method"] == "select" })
	if !strings.Contains(fmt.Sprint(req["title"]), "Which database?") || !strings.Contains(fmt.Sprint(req["options"]), "Postgres") {
		t.Fatalf("request %v", req)
	}
	var choice string
	for _, o := range req["options"].([]any) {
		if strings.HasPrefix(fmt.Sprint(o), "SQLite") {
			choice = fmt.Sprint(o)
		}
	}
	b, _ := json.Marshal(map[string]any{"type": "extension_ui_response", "id": req["id"], "value": choice})
	p.send(string(b))
	note := p.next(func(m map[string]any) bool { return m["method"] == "notify" })
	if !strings.Contains(fmt.Sprint(note["message"]), "SQLite") {
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
