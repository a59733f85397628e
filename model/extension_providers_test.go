package model

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/atomic-cli/atomic/llm"
)

func providerOrder(r *Registry) []string {
	var out []string
	for _, m := range r.All() {
		if len(out) == 0 || out[len(out)-1] != m.Provider {
			out = append(out, m.Provider)
		}
	}
	return out
}

func TestAddProviderNewProviderIsVisibleEverywhere(t *testing.T) {
	clearKeys(t)
	t.Setenv("MODEL_TEST_PROXY", "")
	r := load(t, nil)
	before := len(r.All())
	err := r.AddProvider("my-proxy", ProviderConfig{
		Name: "My Proxy", BaseURL: "https://proxy.example.com", APIKey: "$MODEL_TEST_PROXY", API: llm.APIAnthropicMessages,
		Headers: map[string]string{"x-team": "core"}, AuthHeader: true,
		Models: []ModelConfig{{ID: "claude-sonnet-4-20250514", Name: "Claude 4 Sonnet (proxy)", Input: []string{"text", "image"}, ContextWindow: 200000, MaxTokens: 16384,
			Headers: map[string]string{"x-model": "m"}}, {ID: "small"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	all := r.All()
	if len(all) != before+2 {
		t.Fatalf("All has %d models, want %d", len(all), before+2)
	}
	if got := r.Providers(); got[len(got)-1] != "my-proxy" {
		t.Fatalf("Providers = %v, want my-proxy last", got)
	}
	m := r.Find("my-proxy", "claude-sonnet-4-20250514")
	if m == nil || m.BaseURL != "https://proxy.example.com" || m.API != llm.APIAnthropicMessages || m.Name != "Claude 4 Sonnet (proxy)" ||
		m.ContextWindow != 200000 || !m.SupportsImages() {
		t.Fatalf("Find = %+v", m)
	}
	small := r.Find("my-proxy", "small")
	if small == nil || small.Name != "small" || small.ContextWindow != DefaultContextWindow || small.MaxTokens != DefaultMaxTokens ||
		small.API != llm.APIAnthropicMessages || !slices.Equal(small.Input, []string{"text"}) {
		t.Fatalf("defaults not applied: %+v", small)
	}
	got, _, err := r.Resolve("my-proxy/small", "")
	if err != nil || got != small {
		t.Fatalf("Resolve = %v, %v", got, err)
	}
	// The key is an unset variable: not available, APIKey says why.
	if r.HasAuth("my-proxy") {
		t.Fatal("HasAuth with an unresolvable apiKey")
	}
	if _, err := r.APIKey("my-proxy"); !errors.Is(err, ErrNoAPIKey) {
		t.Fatalf("APIKey err = %v", err)
	}
	if strings.Contains(FormatList(r.Available(), ""), "my-proxy") {
		t.Fatal("listed without auth")
	}
	t.Setenv("MODEL_TEST_PROXY", "sekret")
	if k, err := r.APIKey("my-proxy"); err != nil || k != "sekret" {
		t.Fatalf("APIKey = %q, %v", k, err)
	}
	if !strings.Contains(FormatList(r.Available(), ""), "my-proxy  small") {
		t.Fatalf("--list-models does not show the provider:\n%s", FormatList(r.Available(), ""))
	}
	h := r.Headers(m)
	if h["x-team"] != "core" || h["x-model"] != "m" || h["Authorization"] != "Bearer sekret" {
		t.Fatalf("Headers = %v", h)
	}
	if h := r.Headers(small); h["x-model"] != "" || h["x-team"] != "core" {
		t.Fatalf("Headers(small) = %v", h)
	}

	r.RemoveProvider("my-proxy")
	if len(r.All()) != before || r.Find("my-proxy", "small") != nil || slices.Contains(r.Providers(), "my-proxy") {
		t.Fatal("RemoveProvider left the provider behind")
	}
	if _, _, err := r.Resolve("my-proxy/small", ""); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Resolve after removal: %v", err)
	}
}

func TestAddProviderBaseURLReroutesBuiltinAndRemoveRestores(t *testing.T) {
	clearKeys(t)
	r := load(t, nil)
	orig := r.Find("anthropic", "claude-sonnet-4-5")
	n := len(r.All())
	if err := r.AddProvider("anthropic", ProviderConfig{BaseURL: "https://proxy.example.com"}); err != nil {
		t.Fatal(err)
	}
	if len(r.All()) != n {
		t.Fatalf("a baseUrl override changed the model count: %d, want %d", len(r.All()), n)
	}
	for _, m := range r.All() {
		if m.Provider == "anthropic" && m.BaseURL != "https://proxy.example.com" {
			t.Fatalf("%s not re-routed: %s", m.ID, m.BaseURL)
		}
		if m.Provider == "openai" && m.BaseURL != openAIBaseURL {
			t.Fatalf("openai touched: %s", m.BaseURL)
		}
	}
	if orig.BaseURL != anthropicBaseURL {
		t.Fatal("the shared built-in model was mutated")
	}
	if got := providerOrder(r); !slices.Equal(got, []string{"anthropic", "openai", "google"}) {
		t.Fatalf("provider order %v", got)
	}
	r.RemoveProvider("anthropic")
	if m := r.Find("anthropic", "claude-sonnet-4-5"); m != orig || m.BaseURL != anthropicBaseURL {
		t.Fatalf("not restored: %+v", m)
	}
}

func TestAddProviderModelsUpsertIntoBuiltin(t *testing.T) {
	clearKeys(t)
	r := load(t, nil)
	var ids []string
	for _, m := range r.All() {
		if m.Provider == "openai" {
			ids = append(ids, m.ID)
		}
	}
	err := r.AddProvider("openai", ProviderConfig{Models: []ModelConfig{
		{ID: "gpt-5", Name: "GPT-5 via proxy", ContextWindow: 1000},
		{ID: "brand-new", Reasoning: true},
	}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range r.All() {
		if m.Provider == "openai" {
			got = append(got, m.ID)
		}
	}
	if want := append(slices.Clone(ids), "brand-new"); !slices.Equal(got, want) {
		t.Fatalf("openai models %v, want %v (upsert in place, append new)", got, want)
	}
	if m := r.Find("openai", "gpt-5"); m.Name != "GPT-5 via proxy" || m.ContextWindow != 1000 || m.BaseURL != openAIBaseURL || m.API != llm.APIOpenAIResponses {
		t.Fatalf("replaced model %+v", m)
	}
	if m := r.Find("openai", "brand-new"); m == nil || !m.Reasoning || m.BaseURL != openAIBaseURL {
		t.Fatalf("new model %+v", m)
	}
	if got := providerOrder(r); !slices.Equal(got, []string{"anthropic", "openai", "google"}) {
		t.Fatalf("provider order %v", got)
	}
	r.RemoveProvider("openai")
	if m := r.Find("openai", "gpt-5"); m.Name != "GPT-5" || r.Find("openai", "brand-new") != nil {
		t.Fatalf("not restored: %+v", m)
	}
}

func TestAddProviderLayersOverModelsJSON(t *testing.T) {
	clearKeys(t)
	r := load(t, map[string]string{ModelsFile: `{"providers":{"local":{"baseUrl":"http://localhost:1/v1","api":"openai-completions",
		"headers":{"x-file":"f"},"models":[{"id":"llama"}]}}}`})
	if err := r.AddProvider("local", ProviderConfig{BaseURL: "http://localhost:2/v1", Models: []ModelConfig{{ID: "qwen"}}}); err != nil {
		t.Fatal(err)
	}
	llama, qwen := r.Find("local", "llama"), r.Find("local", "qwen")
	if llama.BaseURL != "http://localhost:2/v1" || qwen == nil || qwen.BaseURL != "http://localhost:2/v1" || qwen.API != llm.APIOpenAICompletions {
		t.Fatalf("llama %+v qwen %+v", llama, qwen)
	}
	if r.Headers(llama)["x-file"] != "f" || r.Headers(qwen)["x-file"] != "f" {
		t.Fatalf("models.json headers lost: %v %v", r.Headers(llama), r.Headers(qwen))
	}
	if !r.HasAuth("local") {
		t.Fatal("a keyless local provider counts as configured")
	}
	r.RemoveProvider("local")
	if m := r.Find("local", "llama"); m.BaseURL != "http://localhost:1/v1" || r.Find("local", "qwen") != nil {
		t.Fatalf("not restored: %+v", m)
	}
}

func TestAddProviderRejectsInvalidConfigAndChangesNothing(t *testing.T) {
	clearKeys(t)
	r := load(t, nil)
	n := len(r.All())
	for name, tc := range map[string]struct {
		provider string
		cfg      ProviderConfig
		errHas   string
	}{
		"empty name":       {"", ProviderConfig{}, "empty provider name"},
		"unknown no model": {"nope", ProviderConfig{BaseURL: "http://x"}, "unknown provider"},
		"new no baseUrl":   {"nope", ProviderConfig{API: llm.APIOpenAICompletions, Models: []ModelConfig{{ID: "a"}}}, "needs baseUrl"},
		"model without id": {"nope", ProviderConfig{BaseURL: "http://x", API: llm.APIOpenAICompletions, Models: []ModelConfig{{}}}, "no id"},
		"duplicate model":  {"nope", ProviderConfig{BaseURL: "http://x", API: llm.APIOpenAICompletions, Models: []ModelConfig{{ID: "a"}, {ID: "a"}}}, "twice"},
		"no api":           {"nope", ProviderConfig{BaseURL: "http://x", Models: []ModelConfig{{ID: "a"}}}, "no api"},
	} {
		t.Run(name, func(t *testing.T) {
			err := r.AddProvider(tc.provider, tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.errHas) {
				t.Fatalf("err = %v, want one containing %q", err, tc.errHas)
			}
			if len(r.All()) != n || len(r.RegisteredProviders()) != 0 {
				t.Fatal("a rejected config changed the registry")
			}
		})
	}
}

func TestAddProviderAgainReplacesInPlace(t *testing.T) {
	clearKeys(t)
	r := load(t, nil)
	cfg := func(id string) ProviderConfig {
		return ProviderConfig{BaseURL: "http://x", API: llm.APIOpenAICompletions, Models: []ModelConfig{{ID: id}}}
	}
	for _, step := range []struct{ name, id string }{{"a", "1"}, {"b", "1"}, {"a", "2"}} {
		if err := r.AddProvider(step.name, cfg(step.id)); err != nil {
			t.Fatal(err)
		}
	}
	if got := r.RegisteredProviders(); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("RegisteredProviders = %v", got)
	}
	if r.Find("a", "1") != nil || r.Find("a", "2") == nil {
		t.Fatal("re-registration did not replace the earlier one")
	}
	if got := r.Providers(); !slices.Equal(got[len(got)-2:], []string{"a", "b"}) {
		t.Fatalf("Providers = %v", got)
	}
	r.RemoveProvider("never-registered")
	r.RemoveProvider("openai") // a built-in that was never registered stays
	if r.Find("openai", "gpt-5") == nil || len(r.RegisteredProviders()) != 2 {
		t.Fatal("removing an unregistered name changed something")
	}
	// An override of a registered provider is dropped when that provider goes, and comes back
	// when it returns.
	if err := r.AddProvider("c", ProviderConfig{BaseURL: "http://c", API: llm.APIOpenAICompletions, Models: []ModelConfig{{ID: "m"}}}); err != nil {
		t.Fatal(err)
	}
	if err := r.AddProvider("d", ProviderConfig{BaseURL: "http://d", API: llm.APIOpenAICompletions, Models: []ModelConfig{{ID: "m"}}}); err != nil {
		t.Fatal(err)
	}
	r.RemoveProvider("c")
	if r.Find("c", "m") != nil || r.Find("d", "m") == nil {
		t.Fatal("removal of c affected d")
	}
}

func TestRegistryProvidersConcurrent(t *testing.T) {
	clearKeys(t)
	t.Setenv("OPENAI_API_KEY", "k")
	r := load(t, nil)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for i := 0; i < 4; i++ {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				_ = r.All()
				_ = r.Available()
				_, _, _ = r.Resolve("gpt-5", "")
				_, _ = r.Default()
				_ = r.Headers(r.Find("openai", "gpt-5"))
			}
		})
	}
	for i := 0; i < 200; i++ {
		if err := r.AddProvider("openai", ProviderConfig{BaseURL: "http://x", Headers: map[string]string{"a": "b"}}); err != nil {
			t.Error(err)
		}
		if err := r.AddProvider("p", ProviderConfig{BaseURL: "http://p", API: llm.APIOpenAICompletions, Models: []ModelConfig{{ID: "m"}}}); err != nil {
			t.Error(err)
		}
		r.RemoveProvider("openai")
		r.RemoveProvider("p")
	}
	close(stop)
	wg.Wait()
}

// A provider registered with a login of its own and no apiKey is not authenticated until a
// credential is stored (a login's), unlike a keyless local server; SetCredential stores one.
func TestAddProviderLoginOnlyNeedsACredential(t *testing.T) {
	clearKeys(t)
	r := load(t, nil)
	models := []ModelConfig{{ID: "m1", API: llm.APIOpenAICompletions}}
	if err := r.AddProvider("local", ProviderConfig{BaseURL: "http://127.0.0.1:9/v1", Models: models}); err != nil {
		t.Fatal(err)
	}
	if err := r.AddProvider("corp", ProviderConfig{BaseURL: "http://127.0.0.1:9/v1", Models: models, OAuth: &ProviderLogin{Name: "SSO"}}); err != nil {
		t.Fatal(err)
	}
	if !r.HasAuth("local") || r.HasAuth("corp") {
		t.Fatalf("HasAuth local=%v corp=%v; want true, false", r.HasAuth("local"), r.HasAuth("corp"))
	}
	if err := r.Auth().SetCredential("corp", []byte(`{"type":"oauth","access":"tok","refresh":"r","expires":99999999999999}`)); err != nil {
		t.Fatal(err)
	}
	if !r.HasAuth("corp") {
		t.Fatal("a stored OAuth credential does not authenticate the provider")
	}
	if key, err := r.APIKey("corp"); err != nil || key != "tok" {
		t.Fatalf("APIKey = %q, %v", key, err)
	}
	if err := r.Auth().SetCredential("corp", []byte(`{"type":"password"}`)); err == nil {
		t.Fatal("SetCredential accepted an unknown credential type")
	}
}
