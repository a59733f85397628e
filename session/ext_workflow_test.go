package session

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/model"
	"github.com/atomic-cli/atomic/store"
)

// TestExtensionProvidersAndWorkflowFollowTheRuntime checks the session wiring of
// registerProvider and the workflow activity hub: providers registered while loading join the
// session's model registry at startup, hooks published while loading arrive after bind,
// ctx.observeWorkflowActivity observes the runner's hub, and reload/shutdown retire both.
func TestExtensionProvidersAndWorkflowFollowTheRuntime(t *testing.T) {
	dir := t.TempDir()
	st, err := store.Create(dir, filepath.Join(dir, "sessions"), store.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	reg, errs := model.Load(t.TempDir())
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	var mu sync.Mutex
	var hooks []string
	var frames []ext.WorkflowActivityFrame
	var subs []*ext.WorkflowActivitySubscription
	var pubs []*ext.WorkflowActivityPublisher
	var ctxs []ext.Context
	factory := func(api ext.API) error {
		err := api.RegisterProvider("my-proxy", ext.ProviderConfig{
			BaseURL: "https://proxy.example.com", APIKey: "k", API: llm.APIOpenAICompletions,
			Models: []ext.ProviderModel{{ID: "m1"}},
		})
		if err != nil {
			return err
		}
		pub := api.RegisterWorkflowActivityPublisher()
		mu.Lock()
		pubs = append(pubs, pub)
		mu.Unlock()
		if err := pub.PublishLifecycle(ext.WorkflowLifecycle{EventID: "boot", Target: ext.WorkflowTarget{Kind: "run", RunID: "r", Status: "running"}}); err != nil {
			return err
		}
		ext.On(api, func(_ ext.Context, e *ext.WorkflowLifecycle) (ext.None, error) {
			mu.Lock()
			hooks = append(hooks, e.EventID)
			mu.Unlock()
			return nil, nil
		})
		ext.On(api, func(c ext.Context, _ *ext.SessionStart) (ext.None, error) {
			s, err := c.ObserveWorkflowActivity(func(f ext.WorkflowActivityFrame) error {
				mu.Lock()
				frames = append(frames, f)
				mu.Unlock()
				return nil
			})
			mu.Lock()
			subs, ctxs = append(subs, s), append(ctxs, c)
			mu.Unlock()
			return nil, err
		})
		return nil
	}
	rt, err := NewRuntime(context.Background(), Options{
		Store: st, Registry: reg, Model: &llm.Model{ID: "one", Provider: "p", API: "x"}, Provider: textProvider("hi"),
		Extensions: []ext.Factory{factory}, ExtensionPaths: []string{"go:wf"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if m, _, err := reg.Resolve("my-proxy/m1", ""); err != nil || m.BaseURL != "https://proxy.example.com" {
		t.Fatalf("provider registered while loading not flushed at startup: %v, %v", m, err)
	}
	rt.Session().Runner().Drain()
	waitFor(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(frames) >= 1 && len(hooks) == 1 })
	mu.Lock()
	if hooks[0] != "boot" || frames[0].Kind != ext.WorkflowFrameSnapshot || frames[0].Cursor.Epoch != pubs[0].Epoch() {
		t.Fatalf("hooks %v, frames %+v", hooks, frames)
	}
	mu.Unlock()

	if err := rt.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	oldPub, oldCtx, newPub := pubs[0], ctxs[0], pubs[1]
	mu.Unlock()
	if err := oldPub.PublishChanged(ext.WorkflowRootActivity{RootRunID: "x"}); !errors.Is(err, ext.ErrWorkflowPublisherFenced) {
		t.Fatalf("the old runtime's publisher is live after reload: %v", err)
	}
	var stale *ext.StaleContextError
	if _, err := oldCtx.ObserveWorkflowActivity(func(ext.WorkflowActivityFrame) error { return nil }); !errors.As(err, &stale) {
		t.Fatalf("old ctx after reload: %v", err)
	}
	if reg.Find("my-proxy", "m1") == nil || len(reg.RegisteredProviders()) != 1 {
		t.Fatalf("provider not re-registered by the reloaded extensions: %v", reg.RegisteredProviders())
	}
	if err := newPub.PublishSnapshot(ext.WorkflowActivitySnapshot{Availability: ext.WorkflowReady}); err != nil {
		t.Fatal(err)
	}

	rt.Shutdown(context.Background())
	if reg.Find("my-proxy", "m1") != nil {
		t.Fatal("provider left in the registry after shutdown")
	}
	if err := newPub.PublishSnapshot(ext.WorkflowActivitySnapshot{Availability: ext.WorkflowReady}); !errors.Is(err, ext.ErrWorkflowPublisherFenced) {
		t.Fatalf("publisher live after shutdown: %v", err)
	}
	if rt.Session().ModelRegistry() != reg {
		t.Fatal("Host.ModelRegistry is not the session's registry")
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in time")
		}
		time.Sleep(time.Millisecond)
	}
}
