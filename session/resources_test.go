package session

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/resource"
	"github.com/atomic-cli/atomic/store"
	"github.com/atomic-cli/atomic/tool"
)

// TestReloadRediscoversResources checks that /reload (Runtime.Reload) takes the skills and
// templates ReloadResources finds: they join SlashCommands (templates before skills), expand in
// prompts, and the rebuilt system prompt lists them.
func TestReloadRediscoversResources(t *testing.T) {
	dir := t.TempDir()
	st, err := store.Create(dir, filepath.Join(dir, "sessions"), store.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tpl := resource.PromptTemplate{Name: "hello", Description: "say hello", Content: "Hello $1!", FilePath: filepath.Join(dir, "hello.md"), Origin: resource.UserOrigin}
	sk := resource.Skill{Name: "sk", Description: "a skill", FilePath: filepath.Join(dir, "sk", "SKILL.md"), BaseDir: filepath.Join(dir, "sk"), Origin: resource.UserOrigin}
	calls := 0
	rt, err := NewRuntime(context.Background(), Options{
		Store: st, Model: &llm.Model{ID: "one", Provider: "p", API: "x"}, Provider: textProvider("hi"),
		SystemPrompt: "base",
		SystemPromptBuilder: func([]tool.Tool) string {
			if calls > 0 {
				return "rebuilt " + resource.FormatSkillsForPrompt([]resource.Skill{sk})
			}
			return "base"
		},
		ReloadResources: func() ([]resource.Skill, []resource.PromptTemplate) {
			calls++
			return []resource.Skill{sk}, []resource.PromptTemplate{tpl}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Shutdown(context.Background())
	if got := rt.Session().SlashCommands(); len(got) != 0 {
		t.Fatalf("commands before reload: %+v", got)
	}
	if got := rt.Session().expandResources("/hello Bob"); got != "/hello Bob" {
		t.Fatalf("template expanded before it was discovered: %q", got)
	}
	if err := rt.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	s := rt.Session()
	cmds := s.SlashCommands()
	if len(cmds) != 2 || cmds[0].Name != "hello" || cmds[0].Source != "prompt" || cmds[1].Name != "skill:sk" || cmds[1].SourceInfo.Path != sk.FilePath {
		t.Fatalf("commands after reload: %+v", cmds)
	}
	if got := s.expandResources(`/hello "Bob B"`); got != "Hello Bob B!" {
		t.Errorf("template after reload: %q", got)
	}
	s.mu.Lock()
	base := s.basePrompt
	s.mu.Unlock()
	if !strings.HasPrefix(base, "rebuilt") || !strings.Contains(base, "<name>sk</name>") {
		t.Errorf("system prompt not rebuilt on reload: %q", base)
	}
}
