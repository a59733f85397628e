package resource

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestContextFilesOrder(t *testing.T) {
	root := t.TempDir()
	agent := filepath.Join(root, "agent")
	proj := filepath.Join(root, "a", "b")
	for _, d := range []string{agent, proj} {
		os.MkdirAll(d, 0o755)
	}
	os.WriteFile(filepath.Join(agent, "AGENTS.md"), []byte("global"), 0o644)
	os.WriteFile(filepath.Join(root, "a", "CLAUDE.md"), []byte("outer"), 0o644)
	os.WriteFile(filepath.Join(proj, "AGENTS.md"), []byte("inner"), 0o644)
	os.WriteFile(filepath.Join(proj, "CLAUDE.md"), []byte("ignored: AGENTS.md wins"), 0o644)
	files := LoadContextFiles(agent, proj, true)
	var got []string
	for _, f := range files {
		got = append(got, f.Content)
	}
	if strings.Join(got, ",") != "global,outer,inner" {
		t.Fatalf("got %v", got)
	}
	// An untrusted project's files (cwd and ancestors) are never read; the global one is.
	got = nil
	for _, f := range LoadContextFiles(agent, proj, false) {
		got = append(got, f.Content)
	}
	if strings.Join(got, ",") != "global" {
		t.Fatalf("untrusted project: got %v", got)
	}
}

func TestBuildSystemPrompt(t *testing.T) {
	p := BuildSystemPrompt(PromptOptions{
		Tools:        []PromptTool{{Name: "read", Snippet: "Read file contents", Guidelines: []string{"Use read."}}},
		AppendPrompt: "EXTRA",
		ContextFiles: []ContextFile{{Path: "/p/AGENTS.md", Content: "rules\n"}},
		Cwd:          "/p",
		Now:          time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC),
	})
	for _, want := range []string{"- read: Read file contents", "- Use read.", "EXTRA", "## /p/AGENTS.md\n\nrules", "Current date: 2026-11-29\nCurrent working directory: /p"} {
		if !strings.Contains(p, want) {
			t.Errorf("prompt lacks %q:\n%s", want, p)
		}
	}
	if !strings.HasSuffix(p, "Current working directory: /p") {
		t.Errorf("prompt must end with the cwd line")
	}
	custom := BuildSystemPrompt(PromptOptions{CustomPrompt: "ONLY", Cwd: "/p"})
	if !strings.HasPrefix(custom, "ONLY\nCurrent date:") {
		t.Errorf("custom prompt: %q", custom)
	}
}

// An AGENTS.override.md shadows the AGENTS.md and CLAUDE.md of its directory; other directories
// keep their own file.
func TestContextFileOverride(t *testing.T) {
	root := t.TempDir()
	proj := filepath.Join(root, "p")
	os.MkdirAll(proj, 0o755)
	os.WriteFile(filepath.Join(root, "AGENTS.md"), []byte("outer"), 0o644)
	os.WriteFile(filepath.Join(proj, "AGENTS.override.md"), []byte("override"), 0o644)
	os.WriteFile(filepath.Join(proj, "AGENTS.md"), []byte("agents"), 0o644)
	os.WriteFile(filepath.Join(proj, "CLAUDE.md"), []byte("claude"), 0o644)
	var got []string
	for _, f := range LoadContextFiles("", proj, true) {
		got = append(got, f.Content)
	}
	if strings.Join(got, ",") != "outer,override" {
		t.Fatalf("got %v, want outer,override", got)
	}
}

// SYSTEM.md and APPEND_SYSTEM.md: the project's (.atomic, then .pi) before the agent dir's, and
// an untrusted project's never.
func TestFindPromptFiles(t *testing.T) {
	agent, proj := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(agent, "SYSTEM.md"), []byte("g"), 0o644)
	os.WriteFile(filepath.Join(agent, "APPEND_SYSTEM.md"), []byte("ga"), 0o644)
	os.MkdirAll(filepath.Join(proj, ".pi"), 0o755)
	os.MkdirAll(filepath.Join(proj, ".atomic"), 0o755)
	os.WriteFile(filepath.Join(proj, ".pi", "SYSTEM.md"), []byte("legacy"), 0o644)
	os.WriteFile(filepath.Join(proj, ".atomic", "APPEND_SYSTEM.md"), []byte("pa"), 0o644)
	got := FindPromptFiles(agent, proj, true)
	if got.System != filepath.Join(proj, ".pi", "SYSTEM.md") || got.Append != filepath.Join(proj, ".atomic", "APPEND_SYSTEM.md") {
		t.Errorf("trusted: %+v", got)
	}
	os.WriteFile(filepath.Join(proj, ".atomic", "SYSTEM.md"), []byte("project"), 0o644)
	if got := FindPromptFiles(agent, proj, true); got.System != filepath.Join(proj, ".atomic", "SYSTEM.md") {
		t.Errorf(".atomic before .pi: %+v", got)
	}
	if got := FindPromptFiles(agent, proj, false); got.System != filepath.Join(agent, "SYSTEM.md") || got.Append != filepath.Join(agent, "APPEND_SYSTEM.md") {
		t.Errorf("untrusted: %+v", got)
	}
	if got := FindPromptFiles(t.TempDir(), proj, false); got != (PromptFiles{}) {
		t.Errorf("none: %+v", got)
	}
}
