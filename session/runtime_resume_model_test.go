package session

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/model"
	"github.com/atomic-cli/atomic/store"
)

// Switching to a session (/resume) restores the model that session last used when the registry
// has it with auth, and tells extensions with model_select source "restore" (pi's
// switchSession); a session whose model is unknown keeps the current one.
func TestSwitchSessionRestoresTheSessionsModel(t *testing.T) {
	dir := t.TempDir()
	agentDir := t.TempDir()
	models := `{"providers": {
		"a": {"baseUrl": "http://127.0.0.1:1", "api": "anthropic-messages", "apiKey": "ka", "models": [{"id": "ma"}]},
		"b": {"baseUrl": "http://127.0.0.1:1", "api": "anthropic-messages", "apiKey": "kb", "models": [{"id": "mb"}]}
	}}`
	if err := os.WriteFile(filepath.Join(agentDir, "models.json"), []byte(models), 0o644); err != nil {
		t.Fatal(err)
	}
	reg, errs := model.Load(agentDir)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	ma, mb := reg.Find("a", "ma"), reg.Find("b", "mb")
	if ma == nil || mb == nil {
		t.Fatal("the test models are not in the registry")
	}
	sessions := filepath.Join(dir, "sessions")
	start := func(m *llm.Model, factories ...ext.Factory) *Runtime {
		st, err := store.Create(dir, sessions, store.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		rt, err := NewRuntime(context.Background(), Options{Store: st, Model: m, Registry: reg,
			Provider: textProvider("ok"), Extensions: factories})
		if err != nil {
			t.Fatal(err)
		}
		return rt
	}
	// A session that used model b.
	first := start(mb)
	if err := first.Prompt(context.Background(), "on b", nil); err != nil {
		t.Fatal(err)
	}
	fileB := first.Session().store.SessionFile()
	first.Shutdown(context.Background())

	var selects []*ext.ModelSelect
	rt := start(ma, func(api ext.API) error {
		ext.On(api, func(_ ext.Context, e *ext.ModelSelect) (ext.None, error) {
			selects = append(selects, e)
			return nil, nil
		})
		return nil
	})
	defer rt.Shutdown(context.Background())
	if err := rt.Prompt(context.Background(), "on a", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := rt.SwitchSession(context.Background(), fileB, ext.SwitchOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := rt.Session().Model(); got == nil || got.Provider != "b" || got.ID != "mb" {
		t.Fatalf("after /resume the model is %v, want b/mb (the session's)", got)
	}
	rt.Session().runner.Drain()
	if len(selects) != 1 || selects[0].Source != "restore" || selects[0].Model.ID != "mb" || selects[0].PreviousModel == nil || selects[0].PreviousModel.ID != "ma" {
		t.Fatalf("model_select events %+v, want one restore b/mb from a/ma", selects)
	}
}

// A resumed session keeps the thinking level it was left at (pi's switchSession restores it),
// and nothing is appended to its file for the level of the session switched from.
func TestSwitchSessionRestoresTheSessionsThinkingLevel(t *testing.T) {
	dir := t.TempDir()
	agentDir := t.TempDir()
	models := `{"providers": {"a": {"baseUrl": "http://127.0.0.1:1", "api": "anthropic-messages", "apiKey": "ka",
		"models": [{"id": "ma", "reasoning": true}]}}}`
	if err := os.WriteFile(filepath.Join(agentDir, "models.json"), []byte(models), 0o644); err != nil {
		t.Fatal(err)
	}
	reg, errs := model.Load(agentDir)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	ma := reg.Find("a", "ma")
	sessions := filepath.Join(dir, "sessions")
	start := func(level string) *Runtime {
		st, err := store.Create(dir, sessions, store.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		rt, err := NewRuntime(context.Background(), Options{Store: st, Model: ma, ThinkingLevel: level, Registry: reg,
			Provider: textProvider("ok")})
		if err != nil {
			t.Fatal(err)
		}
		return rt
	}
	first := start("high")
	if err := first.Prompt(context.Background(), "thinking hard", nil); err != nil {
		t.Fatal(err)
	}
	fileHigh := first.Session().store.SessionFile()
	first.Shutdown(context.Background())
	before, err := os.ReadFile(fileHigh)
	if err != nil {
		t.Fatal(err)
	}

	rt := start("low")
	defer rt.Shutdown(context.Background())
	if err := rt.Prompt(context.Background(), "thinking a little", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := rt.SwitchSession(context.Background(), fileHigh, ext.SwitchOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := rt.Session().ThinkingLevel(); got != "high" {
		t.Fatalf("after /resume the thinking level is %q, want high (the session's)", got)
	}
	after, err := os.ReadFile(fileHigh)
	if err != nil {
		t.Fatal(err)
	}
	if string(after) != string(before) {
		t.Fatalf("resuming changed the file:\n%s", after[len(before):])
	}
}
