package tui_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/atomic-cli/atomic/internal/fakellm"
	"github.com/atomic-cli/atomic/mode/tui/tuitest"
)

// TestE2EImport: /import without a path shows the usage, a missing file is a clear error, and a
// session file exported by an earlier run replaces the current session after the confirmation;
// the next request carries the imported history.
func TestE2EImport(t *testing.T) {
	bin := tuitest.Build(t)
	env := tuitest.NewEnv(t, script(
		fakellm.Turn{Text: "Answer kept in the export."},
		fakellm.Turn{Text: "Answer of the second run."},
		fakellm.Turn{Text: "Continuing the imported one."},
	))
	term := env.Start(t, bin, "--model", "fake/fake-model")
	term.WaitFor("fake-model")
	term.Type("the imported question")
	term.Press("enter")
	term.WaitFor("Answer kept in the export.")
	term.Type("/export saved.jsonl")
	term.Press("enter")
	term.WaitFor("Session exported to:")
	quit(t, term)

	term = env.Start(t, bin, "--model", "fake/fake-model", "--no-session")
	term.WaitFor("fake-model")
	term.Type("a different question")
	term.Press("enter")
	term.WaitFor("Answer of the second run.")
	term.Type("/import")
	term.Press("enter")
	term.WaitFor("Usage: /import <path.jsonl>")
	term.Type("/import nothing-here.jsonl")
	term.Press("enter")
	term.WaitFor("Replace current session with")
	term.Press("enter")
	term.WaitFor("Failed to import session: file not found")
	term.Type("/import saved.jsonl")
	term.Press("enter")
	term.WaitFor("Replace current session with " + filepath.Join(env.Work, "saved.jsonl") + "?")
	term.Press("enter")
	term.WaitFor("Session imported from:", "Answer kept in the export.")
	term.WaitGone("Answer of the second run.")
	term.Type("go on")
	term.Press("enter")
	term.WaitFor("Continuing the imported one.")
	if body := string(env.Fake.Requests()[2].Body); !strings.Contains(body, "the imported question") {
		t.Fatalf("the request after /import lacks the imported history:\n%s", body)
	}
	quit(t, term)
}

// TestE2EChangelog: /changelog shows the compiled-in CHANGELOG.md under "What's New".
func TestE2EChangelog(t *testing.T) {
	bin := tuitest.Build(t)
	env := tuitest.NewEnv(t, script())
	term := env.StartSized(t, 100, 60, bin, "--model", "fake/fake-model")
	term.WaitFor("fake-model")
	term.Type("/changelog")
	term.Press("enter")
	term.WaitFor("What's New", "0.1.0-dev", "Interactive mode")
	quit(t, term)
}

// TestE2EDebug: /debug, typed, writes the
// rendered lines with their widths and the messages to <agentDir>/atomic-debug.log.
func TestE2EDebug(t *testing.T) {
	bin := tuitest.Build(t)
	env := tuitest.NewEnv(t, script(fakellm.Turn{Text: "A reply worth debugging."}))
	term := env.Start(t, bin, "--model", "fake/fake-model")
	term.WaitFor("fake-model")
	term.Type("a question to log")
	term.Press("enter")
	term.WaitFor("A reply worth debugging.")
	term.Type("/debug")
	term.Press("enter")
	path := filepath.Join(env.Agent, "atomic-debug.log")
	term.WaitFor("Debug log written to:")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	log := string(b)
	for _, want := range []string{"=== Transcript lines", "=== Screen lines", "(w=", "A reply worth debugging.", `"a question to log"`, "=== Messages (2, JSONL) ==="} {
		if !strings.Contains(log, want) {
			t.Fatalf("debug log lacks %q:\n%s", want, log)
		}
	}
	quit(t, term)
}

// TestE2ELoginLogout: /login fake asks for an API key in a masked prompt and saves it in
// auth.json; /logout lists the providers with stored credentials and removes the chosen one.
func TestE2ELoginLogout(t *testing.T) {
	bin := tuitest.Build(t)
	env := tuitest.NewEnv(t, script())
	term := env.Start(t, bin, "--model", "fake/fake-model")
	term.WaitFor("fake-model")
	term.Type("/logout")
	term.Press("enter")
	term.WaitFor("No stored credentials to remove.")

	term.Type("/login")
	term.Press("enter")
	term.WaitFor("Select provider to log in to:", "fake (API key)")
	term.Press("esc")
	term.WaitGone("Select provider to log in to:")
	term.Type("/login fake ") // the trailing space closes the argument completion
	term.Press("enter")
	term.WaitFor("API key for fake:")
	term.Type("sk-secret-1")
	term.WaitFor("***********")
	if strings.Contains(term.Screen(), "sk-secret-1") {
		t.Fatalf("the API key is shown in clear:\n%s", term.Screen())
	}
	term.Press("enter")
	term.WaitFor("Saved API key for fake")
	authPath := filepath.Join(env.Agent, "auth.json")
	b, err := os.ReadFile(authPath)
	if err != nil || !strings.Contains(string(b), `"sk-secret-1"`) {
		t.Fatalf("auth.json after /login: %s %v", b, err)
	}

	term.Type("/logout")
	term.Press("enter")
	term.WaitFor("Select provider to log out of:", "→ fake")
	term.Press("enter")
	term.WaitFor("Logged out of fake")
	b, err = os.ReadFile(authPath)
	if err != nil || strings.Contains(string(b), "fake") {
		t.Fatalf("auth.json after /logout: %s %v", b, err)
	}
	quit(t, term)
}

// fakeGH is a `gh` for /share: `auth status` succeeds when $GH_STATE/loggedin exists; `gist
// create` records its pid, waits forever when $GH_STATE/hang exists, else copies the uploaded
// file to $GH_STATE/uploaded.html and prints a gist URL.
const fakeGH = `#!/bin/sh
case "$1 $2" in
"auth status")
  [ -f "$GH_STATE/loggedin" ] && exit 0
  echo "You are not logged into any GitHub hosts." >&2; exit 1;;
"gist create")
  echo $$ > "$GH_STATE/pid"
  [ "$3" = "--public=false" ] || { echo "expected --public=false, got $3" >&2; exit 1; }
  [ -f "$GH_STATE/hang" ] && exec sleep 600
  cp "$4" "$GH_STATE/uploaded.html"
  echo "- Creating gist session.html" >&2
  echo "https://gist.github.com/tester/abc123"; exit 0;;
esac
echo "unexpected: $*" >&2; exit 2
`

// TestE2EShare: /share without gh says to install it; with gh not logged in says to log in;
// Esc on the "Creating gist..." loader kills gh and cancels; otherwise the exported HTML is
// uploaded as a secret gist and the share and gist URLs are shown.
func TestE2EShare(t *testing.T) {
	bin := tuitest.Build(t)
	env := tuitest.NewEnv(t, script(fakellm.Turn{Text: "Reply to share."}, fakellm.Turn{Text: "Second reply."}))
	empty := t.TempDir()
	env.Vars = []string{"PATH=" + empty}
	term := env.Start(t, bin, "--model", "fake/fake-model")
	term.WaitFor("fake-model")
	term.Type("/share")
	term.Press("enter")
	term.WaitFor("GitHub CLI (gh) is not installed.")
	quit(t, term)

	ghDir, state := t.TempDir(), t.TempDir()
	env.WriteFile(t, filepath.Join(ghDir, "gh"), fakeGH)
	if err := os.Chmod(filepath.Join(ghDir, "gh"), 0o755); err != nil {
		t.Fatal(err)
	}
	env.Vars = []string{"PATH=" + ghDir + string(os.PathListSeparator) + os.Getenv("PATH"), "GH_STATE=" + state}
	term = env.Start(t, bin, "--model", "fake/fake-model")
	term.WaitFor("fake-model")
	term.Type("something to share")
	term.Press("enter")
	term.WaitFor("Reply to share.")
	term.Type("/share")
	term.Press("enter")
	term.WaitFor("GitHub CLI is not logged in. Run 'gh auth login' first.")

	env.WriteFile(t, filepath.Join(state, "loggedin"), "")
	env.WriteFile(t, filepath.Join(state, "hang"), "")
	term.Type("/share")
	term.Press("enter")
	term.WaitFor("Creating gist...")
	pidFile := filepath.Join(state, "pid")
	var pid int
	term.WaitScreen("gh gist create started", func(string) bool {
		b, err := os.ReadFile(pidFile)
		if err != nil {
			return false
		}
		_, err = fmt.Sscan(string(b), &pid)
		return err == nil
	})
	term.Press("esc")
	term.WaitFor("Share cancelled")
	term.WaitGone("Creating gist...")
	if err := syscall.Kill(pid, 0); err == nil {
		t.Fatalf("gh (pid %d) still runs after the cancel", pid)
	}

	os.Remove(filepath.Join(state, "hang"))
	term.Type("/share")
	term.Press("enter")
	term.WaitFor("Share URL: https://pi.dev/session/#abc123", "Gist: https://gist.github.com/tester/abc123")
	b, err := os.ReadFile(filepath.Join(state, "uploaded.html"))
	if err != nil || !strings.Contains(string(b), "<html") {
		t.Fatalf("uploaded file: %.200s %v", b, err)
	}
	quit(t, term)
}

// TestE2ELoginOAuth: /login on a provider an extension registered with an OAuth login runs that
// login in the UI: its URL is shown, its prompt is answered in the editor slot, and the
// credential lands in auth.json.
func TestE2ELoginOAuth(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("needs node")
	}
	bin := tuitest.Build(t)
	env := tuitest.NewEnv(t, script())
	ext := filepath.Join(env.Work, "corp.ts")
	env.WriteFile(t, ext, `export default function (pi: any) {
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
	});
}
`)
	term := env.StartSized(t, 100, 40, bin, "--model", "fake/fake-model", "-e", ext)
	term.WaitFor("fake-model")
	term.Type("/login")
	term.Press("enter")
	term.WaitFor("Select provider to log in to:", "corp (OAuth)")
	term.Press("esc")
	term.WaitGone("Select provider to log in to:")
	term.Type("/login corp ") // the trailing space closes the argument completion
	term.Press("enter")
	term.WaitFor("https://sso.example/auth", "Enter code:")
	term.Type("tok")
	term.Press("enter")
	term.WaitFor("Logged in to corp (oauth)")
	b, err := os.ReadFile(filepath.Join(env.Agent, "auth.json"))
	if err != nil || !strings.Contains(string(b), `"corp"`) || !strings.Contains(string(b), `"r-tok"`) {
		t.Fatalf("auth.json after the OAuth login: %s %v", b, err)
	}
	quit(t, term)
}
