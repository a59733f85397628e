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

// sent returns the system prompt and the last user message text of an openai-completions request.
func sent(t *testing.T, body []byte) (system, user string) {
	t.Helper()
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("request body: %v", err)
	}
	text := func(raw json.RawMessage) string {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
		var parts []struct {
			Text string `json:"text"`
		}
		json.Unmarshal(raw, &parts)
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p.Text)
		}
		return b.String()
	}
	for _, m := range req.Messages {
		switch m.Role {
		case "system", "developer":
			system = text(m.Content)
		case "user":
			user = text(m.Content)
		}
	}
	return system, user
}

// skillsSection is the <available_skills> part of a system prompt, with its preamble.
func skillsSection(s string) string {
	i := strings.Index(s, "The following skills provide")
	j := strings.Index(s, "</available_skills>")
	if i < 0 || j < i {
		return ""
	}
	return s[i : j+len("</available_skills>")]
}

// TestSkillsAndTemplatesSendTheSameAsPi runs pi 0.73.1 and atomic on one agent directory holding
// a skill and a prompt template, and compares what each sends the provider: the expansion of
// `/skill:greeter Bob`, the <available_skills> section of the system prompt, and a template
// expanded with quoted arguments (config-and-resources.md §10–11; issue 15 acceptance).
func TestSkillsAndTemplatesSendTheSameAsPi(t *testing.T) {
	cli := piCLI(t)
	bin := buildAtomic(t)
	work := t.TempDir()
	srv := fakellm.New(fakellm.Script{Turns: []fakellm.Turn{{Text: "ok"}, {Text: "ok"}, {Text: "ok"}, {Text: "ok"}}})
	defer srv.Close()
	dir := agentDir(t, srv)
	for path, content := range map[string]string{
		"skills/greeter/SKILL.md": "---\nname: greeter\ndescription: Greets people & \"friends\"\n---\n\nGreet the person warmly by name.\n",
		"skills/hidden/SKILL.md":  "---\nname: hidden\ndescription: only by command\ndisable-model-invocation: true\n---\nHidden.\n",
		"prompts/review.md":       "---\ndescription: Review a file\n---\nReview $1; manner: ${@:2}; all: $ARGUMENTS; $9.\n",
	} {
		p := filepath.Join(dir, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(name string, args ...string) (system, user string) {
		t.Helper()
		n := len(srv.Requests())
		var cmd *exec.Cmd
		if name == "pi" {
			cmd = exec.Command("node", append([]string{cli, "--no-session", "--provider", "fakellm", "--model", "fake-model"}, args...)...)
			cmd.Env = append(os.Environ(), "PI_CODING_AGENT_DIR="+dir, "PI_OFFLINE=1", "PI_SKIP_VERSION_CHECK=1")
		} else {
			cmd = exec.Command(bin, append([]string{"--no-session", "-na"}, args...)...)
			cmd.Env = append(os.Environ(), "ATOMIC_CODING_AGENT_DIR="+dir)
		}
		cmd.Dir = work
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
		reqs := srv.Requests()
		if len(reqs) != n+1 {
			t.Fatalf("%s %v made %d requests, want 1", name, args, len(reqs)-n)
		}
		return sent(t, reqs[n].Body)
	}
	piSys, piUser := run("pi", "-p", "/skill:greeter Bob")
	atSys, atUser := run("atomic", "-p", "/skill:greeter Bob")
	if atUser != piUser {
		t.Errorf("/skill:greeter Bob:\natomic sends %q\npi sends     %q", atUser, piUser)
	}
	if ps, as := skillsSection(piSys), skillsSection(atSys); ps == "" || as != ps {
		t.Errorf("skills section:\natomic %q\npi     %q", as, ps)
	}
	if strings.Contains(atSys, "hidden") {
		t.Errorf("atomic lists the disable-model-invocation skill")
	}
	_, piUser = run("pi", "-p", `/review "src/main.go" carefully "and quickly"`)
	_, atUser = run("atomic", "-p", `/review "src/main.go" carefully "and quickly"`)
	if atUser != piUser || !strings.Contains(atUser, "Review src/main.go") {
		t.Errorf("template:\natomic sends %q\npi sends     %q", atUser, piUser)
	}
}

// TestPromptFilesSendTheSameAsPi runs pi 0.73.1 and atomic in one project with a global SYSTEM.md
// and APPEND_SYSTEM.md and a project AGENTS.md (config-and-resources.md §12; issue 15
// acceptance): with the built-in prompt replaced, the whole system prompt each sends — the
// replacement, the appended text, the # Project Context section and the date and directory
// lines — is the same. Then the project's own SYSTEM.md replaces the global one in both.
// AGENTS.override.md is Atomic's (pi 0.73.1 does not read it): cli/testdata/script/prompt_files.txtar
// covers it.
func TestPromptFilesSendTheSameAsPi(t *testing.T) {
	cli := piCLI(t)
	bin := buildAtomic(t)
	work := t.TempDir()
	srv := fakellm.New(fakellm.Script{Turns: []fakellm.Turn{{Text: "ok"}, {Text: "ok"}, {Text: "ok"}, {Text: "ok"}}})
	defer srv.Close()
	dir := agentDir(t, srv)
	write := func(path, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "SYSTEM.md"), "You are GLOBAL-SYSTEM, a terse helper.\n")
	write(filepath.Join(dir, "APPEND_SYSTEM.md"), "GLOBAL-APPEND: end with a period.\n")
	write(filepath.Join(work, "AGENTS.md"), "PROJECT-RULES: answer in French.\n")
	run := func(name string) string {
		t.Helper()
		n := len(srv.Requests())
		var cmd *exec.Cmd
		if name == "pi" {
			cmd = exec.Command("node", cli, "--no-session", "--provider", "fakellm", "--model", "fake-model", "-p", "hi")
			cmd.Env = append(os.Environ(), "PI_CODING_AGENT_DIR="+dir, "PI_OFFLINE=1", "PI_SKIP_VERSION_CHECK=1")
		} else {
			cmd = exec.Command(bin, "--no-session", "-a", "-p", "hi")
			cmd.Env = append(os.Environ(), "ATOMIC_CODING_AGENT_DIR="+dir)
		}
		cmd.Dir = work
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, out)
		}
		reqs := srv.Requests()
		if len(reqs) != n+1 {
			t.Fatalf("%s made %d requests, want 1", name, len(reqs)-n)
		}
		system, _ := sent(t, reqs[n].Body)
		return system
	}
	piSys, atSys := run("pi"), run("atomic")
	if atSys != piSys {
		t.Errorf("system prompt with SYSTEM.md, APPEND_SYSTEM.md and AGENTS.md:\natomic %q\npi     %q", atSys, piSys)
	}
	for _, want := range []string{"GLOBAL-SYSTEM", "GLOBAL-APPEND", "PROJECT-RULES"} {
		if !strings.Contains(atSys, want) {
			t.Errorf("atomic's system prompt lacks %s: %q", want, atSys)
		}
	}
	// pi's project config directory is .pi; atomic reads it as the legacy one.
	write(filepath.Join(work, ".pi", "SYSTEM.md"), "PROJECT-SYSTEM replaces the global one.\n")
	piSys, atSys = run("pi"), run("atomic")
	if atSys != piSys || !strings.HasPrefix(atSys, "PROJECT-SYSTEM") {
		t.Errorf("system prompt with the project's SYSTEM.md:\natomic %q\npi     %q", atSys, piSys)
	}
}

// TestLocalPackageLikePi installs one local package (a skill and a prompt template under the
// "pi" manifest key) with `pi install` and `atomic install` into agent directories laid out
// alike, and compares what each wrote into settings.json, what `list` prints, and what each
// then sends the provider: the package's skill in <available_skills> and its template expanded
// (config-and-resources.md §4; issue 15 acceptance).
func TestLocalPackageLikePi(t *testing.T) {
	cli := piCLI(t)
	bin := buildAtomic(t)
	root := t.TempDir()
	srv := fakellm.New(fakellm.Script{Turns: []fakellm.Turn{{Text: "ok"}, {Text: "ok"}, {Text: "ok"}, {Text: "ok"}}})
	defer srv.Close()
	work := filepath.Join(root, "work")
	for path, content := range map[string]string{
		"work/local-pkg/package.json":                 `{"name": "local-pkg", "pi": {"skills": ["skills"], "prompts": ["prompts"]}}`,
		"work/local-pkg/skills/pkg-skill/SKILL.md":    "---\nname: pkg-skill\ndescription: A packaged skill\n---\nPackaged skill body.\n",
		"work/local-pkg/prompts/pkg-prompt.md":        "---\ndescription: A packaged template\n---\nPackaged template for $1.\n",
		"work/local-pkg/extensions/ignored-by-pi.txt": "the manifest lists no extensions",
	} {
		p := filepath.Join(root, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Both agent dirs sit at the same depth, so relative settings paths compare equal.
	dirs := map[string]string{}
	for _, name := range []string{"pi", "atomic"} {
		d := filepath.Join(root, name, "agent")
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		models := `{"providers":{"fakellm":{"baseUrl":"` + srv.URL() + `/v1","api":"openai-completions","apiKey":"test-key","models":[{"id":"fake-model"}]}}}`
		if err := os.WriteFile(filepath.Join(d, "models.json"), []byte(models), 0o644); err != nil {
			t.Fatal(err)
		}
		dirs[name] = d
	}
	cmd := func(name string, args ...string) *exec.Cmd {
		var c *exec.Cmd
		if name == "pi" {
			c = exec.Command("node", append([]string{cli}, args...)...)
			c.Env = append(os.Environ(), "PI_CODING_AGENT_DIR="+dirs[name], "PI_OFFLINE=1", "PI_SKIP_VERSION_CHECK=1", "NO_COLOR=1")
		} else {
			c = exec.Command(bin, args...)
			c.Env = append(os.Environ(), "ATOMIC_CODING_AGENT_DIR="+dirs[name])
		}
		c.Dir = work
		return c
	}
	out := func(name string, args ...string) string {
		t.Helper()
		b, err := cmd(name, args...).Output()
		if err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, b)
		}
		return strings.ReplaceAll(string(b), dirs[name], "<agent>")
	}
	for _, name := range []string{"pi", "atomic"} {
		out(name, "install", "./local-pkg")
	}
	packages := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dirs[name], "settings.json"))
		if err != nil {
			t.Fatal(err)
		}
		var s struct {
			Packages json.RawMessage `json:"packages"`
		}
		json.Unmarshal(b, &s)
		return string(s.Packages)
	}
	if p, a := packages("pi"), packages("atomic"); compact(p) != compact(a) {
		t.Errorf("settings packages: atomic %s, pi %s", a, p)
	}
	if p, a := out("pi", "list"), out("atomic", "list"); p != a {
		t.Errorf("list:\natomic %q\npi     %q", a, p)
	}
	send := func(name, prompt string) (system, user string) {
		t.Helper()
		n := len(srv.Requests())
		args := []string{"--no-session", "-p", prompt}
		if name == "pi" {
			args = append([]string{"--provider", "fakellm", "--model", "fake-model"}, args...)
		} else {
			args = append([]string{"-na"}, args...)
		}
		if b, err := cmd(name, args...).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, b)
		}
		reqs := srv.Requests()
		if len(reqs) != n+1 {
			t.Fatalf("%s made %d requests, want 1", name, len(reqs)-n)
		}
		return sent(t, reqs[n].Body)
	}
	piSys, piUser := send("pi", "/pkg-prompt Ann")
	atSys, atUser := send("atomic", "/pkg-prompt Ann")
	if ps, as := skillsSection(piSys), skillsSection(atSys); ps == "" || as != ps || !strings.Contains(as, "pkg-skill") {
		t.Errorf("skills section:\natomic %q\npi     %q", as, ps)
	}
	if atUser != piUser || !strings.Contains(atUser, "Packaged template for Ann.") {
		t.Errorf("template:\natomic %q\npi     %q", atUser, piUser)
	}
	for _, name := range []string{"pi", "atomic"} {
		out(name, "remove", "./local-pkg")
	}
	if p, a := out("pi", "list"), out("atomic", "list"); p != a {
		t.Errorf("list after remove:\natomic %q\npi     %q", a, p)
	}
}

// compact removes JSON whitespace.
func compact(s string) string {
	var v any
	if json.Unmarshal([]byte(s), &v) != nil {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}
