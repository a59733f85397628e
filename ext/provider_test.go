package ext

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/model"
)

// regHost is a Host that only answers ModelRegistry (other methods are not used here).
type regHost struct {
	Host
	reg *model.Registry
}

func (h regHost) ModelRegistry() *model.Registry { return h.reg }

func newRegistry(t testing.TB) *model.Registry {
	t.Helper()
	reg, errs := model.Load(t.TempDir())
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	return reg
}

func proxyConfig() ProviderConfig {
	return ProviderConfig{
		BaseURL: "https://proxy.example.com", APIKey: "literal-key", API: llm.APIAnthropicMessages,
		Models: []ProviderModel{{ID: "claude-proxy", Name: "Claude (proxy)", Input: []string{"text", "image"}, ContextWindow: 200000}},
	}
}

func TestRegisterProviderDuringLoadIsFlushedAtBind(t *testing.T) {
	reg := newRegistry(t)
	r := NewRunner(nil)
	var api1 API
	if errs := r.Load(regHost{reg: reg}, []string{"ext-a"}, []Factory{func(api API) error {
		api1 = api
		if err := api.RegisterProvider("my-proxy", proxyConfig()); err != nil {
			return err
		}
		return api.RegisterProvider("anthropic", ProviderConfig{BaseURL: "https://anthropic-proxy.example.com"})
	}}); len(errs) > 0 {
		t.Fatal(errs)
	}
	if reg.Find("my-proxy", "claude-proxy") != nil {
		t.Fatal("a registration made while loading applied before the runner bound")
	}
	r.Bind()
	m, _, err := reg.Resolve("my-proxy/claude-proxy", "")
	if err != nil || m.BaseURL != "https://proxy.example.com" || m.ContextWindow != 200000 || !m.SupportsImages() {
		t.Fatalf("Resolve = %+v, %v", m, err)
	}
	if k, err := reg.APIKey("my-proxy"); err != nil || k != "literal-key" {
		t.Fatalf("APIKey = %q, %v", k, err)
	}
	if list := model.FormatList(reg.Available(), "proxy"); !strings.Contains(list, "my-proxy  claude-proxy") {
		t.Fatalf("--list-models:\n%s", list)
	}
	if m := reg.Find("anthropic", "claude-sonnet-4-5"); m.BaseURL != "https://anthropic-proxy.example.com" {
		t.Fatalf("built-in not re-routed: %s", m.BaseURL)
	}

	// After binding, calls take effect at once.
	if err := api1.UnregisterProvider("anthropic"); err != nil {
		t.Fatal(err)
	}
	if m := reg.Find("anthropic", "claude-sonnet-4-5"); m.BaseURL != "https://api.anthropic.com" {
		t.Fatalf("unregister did not restore the built-in: %s", m.BaseURL)
	}
	if err := api1.RegisterProvider("later", ProviderConfig{BaseURL: "http://localhost:8080/v1", API: llm.APIOpenAICompletions, Models: []ProviderModel{{ID: "local"}}}); err != nil {
		t.Fatal(err)
	}
	if reg.Find("later", "local") == nil {
		t.Fatal("a registration after bind is not immediate")
	}
	if err := api1.RegisterProvider("broken", ProviderConfig{BaseURL: "http://x"}); err == nil || !strings.Contains(err.Error(), "ext-a") {
		t.Fatalf("an invalid registration after bind: %v", err)
	}
	if err := api1.UnregisterProvider("never-registered"); err != nil {
		t.Fatal(err)
	}

	// Disposing the runner (replacement, reload) removes what it added.
	r.Dispose()
	if reg.Find("my-proxy", "claude-proxy") != nil || reg.Find("later", "local") != nil || len(reg.RegisteredProviders()) != 0 {
		t.Fatalf("providers left after dispose: %v", reg.RegisteredProviders())
	}
	var stale *StaleContextError
	if err := api1.RegisterProvider("x", proxyConfig()); !errors.As(err, &stale) {
		t.Fatalf("register on a disposed runner: %v", err)
	}
}

func TestRegisterProviderQueueKeepsOrderAndReportsFailures(t *testing.T) {
	reg := newRegistry(t)
	r := NewRunner(nil)
	r.SetModelRegistry(reg) // as --list-models does, without a session
	var mu sync.Mutex
	var reported []*Error
	r.OnError(func(e *Error) {
		mu.Lock()
		reported = append(reported, e)
		mu.Unlock()
	})
	errs := r.Load(nil, []string{"ext-a", "ext-bad", "ext-c"}, []Factory{
		func(api API) error {
			_ = api.RegisterProvider("gone", proxyConfig())
			_ = api.UnregisterProvider("gone") // queued in order: ends unregistered
			return api.RegisterProvider("invalid", ProviderConfig{BaseURL: "http://x"})
		},
		func(api API) error {
			_ = api.RegisterProvider("from-failed-factory", proxyConfig())
			return errors.New("factory failed")
		},
		func(api API) error { return api.RegisterProvider("kept", proxyConfig()) },
	})
	if len(errs) != 1 {
		t.Fatalf("load errors %v", errs)
	}
	r.Bind()
	if reg.Find("gone", "claude-proxy") != nil {
		t.Fatal("queued unregister did not apply after the register")
	}
	if reg.Find("from-failed-factory", "claude-proxy") != nil {
		t.Fatal("a failed factory's registration was applied")
	}
	if reg.Find("kept", "claude-proxy") == nil {
		t.Fatal("registration not flushed")
	}
	mu.Lock()
	defer mu.Unlock()
	var found bool
	for _, e := range reported {
		if e.Event == "registerProvider" && e.ExtensionPath == "ext-a" && strings.Contains(e.Message, "invalid") {
			found = true
		}
	}
	if !found {
		t.Fatalf("the invalid registration was not reported: %+v", reported)
	}
}

func TestRegisterProviderWithoutRegistry(t *testing.T) {
	r := NewRunner(nil)
	var a API
	load(t, r, func(api API) error {
		a = api
		return api.RegisterProvider("p", proxyConfig()) // queued; dropped at Bind: nothing to join
	})
	r.Bind()
	if err := a.RegisterProvider("p", proxyConfig()); !errors.Is(err, ErrNoModelRegistry) {
		t.Fatalf("err = %v, want ErrNoModelRegistry", err)
	}
	if err := a.RegisterProvider(" ", proxyConfig()); err == nil {
		t.Fatal("empty name accepted")
	}
}

// TestReloadReregistersProviders simulates a runtime replacement: the old runner is disposed
// (its providers leave), the new one loads and binds (they come back).
func TestReloadReregistersProviders(t *testing.T) {
	reg := newRegistry(t)
	factory := func(api API) error { return api.RegisterProvider("my-proxy", proxyConfig()) }
	old := NewRunner(nil)
	if errs := old.Load(regHost{reg: reg}, nil, []Factory{factory}); len(errs) > 0 {
		t.Fatal(errs)
	}
	old.Bind()
	old.Dispose()
	if reg.Find("my-proxy", "claude-proxy") != nil {
		t.Fatal("old runner's provider survived its disposal")
	}
	next := NewRunner(nil)
	if errs := next.Load(regHost{reg: reg}, nil, []Factory{factory}); len(errs) > 0 {
		t.Fatal(errs)
	}
	next.Bind()
	if reg.Find("my-proxy", "claude-proxy") == nil {
		t.Fatal("new runner's provider missing")
	}
}
