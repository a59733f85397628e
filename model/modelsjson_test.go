package model

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/atomic-cli/atomic/llm"
)

func ids(ms []*llm.Model, provider string) []string {
	var out []string
	for _, m := range ms {
		if m.Provider == provider {
			out = append(out, m.ID)
		}
	}
	return out
}

func builtinIDs(provider string) []string { return ids(BuiltinModels(), provider) }

func TestModelsJSONMerge(t *testing.T) {
	tests := []struct {
		name  string
		json  string
		check func(t *testing.T, r *Registry)
	}{
		{
			name: "no file keeps the catalog",
			check: func(t *testing.T, r *Registry) {
				if got, want := len(r.All()), len(BuiltinModels()); got != want {
					t.Errorf("len(All) = %d, want %d", got, want)
				}
				if got := r.Providers(); !reflect.DeepEqual(got, []string{"anthropic", "openai", "google"}) {
					t.Errorf("Providers = %v", got)
				}
			},
		},
		{
			name: "baseUrl-only entry re-routes a built-in provider",
			json: `{"providers":{"anthropic":{"baseUrl":"https://proxy.local/anthropic"}}}`,
			check: func(t *testing.T, r *Registry) {
				if got, want := ids(r.All(), "anthropic"), builtinIDs("anthropic"); !reflect.DeepEqual(got, want) {
					t.Errorf("anthropic ids = %v, want the built-ins %v", got, want)
				}
				for _, m := range r.All() {
					want := "https://proxy.local/anthropic"
					if m.Provider != "anthropic" {
						want = map[string]string{"openai": openAIBaseURL, "google": googleBaseURL}[m.Provider]
					}
					if m.BaseURL != want {
						t.Errorf("%s/%s baseUrl = %q, want %q", m.Provider, m.ID, m.BaseURL, want)
					}
				}
				if m := r.Find("anthropic", "claude-sonnet-4-5"); m.API != llm.APIAnthropicMessages || m.Cost.Input != 3 {
					t.Errorf("re-routed model lost its fields: %+v", m)
				}
			},
		},
		{
			name: "custom model with a built-in id replaces it in place with models.json defaults",
			json: `{"providers":{"openai":{"models":[{"id":"gpt-4o","api":"openai-completions"}]}}}`,
			check: func(t *testing.T, r *Registry) {
				if got, want := ids(r.All(), "openai"), builtinIDs("openai"); !reflect.DeepEqual(got, want) {
					t.Errorf("openai ids = %v, want same order as %v", got, want)
				}
				want := &llm.Model{ID: "gpt-4o", Name: "gpt-4o", API: llm.APIOpenAICompletions, Provider: "openai",
					BaseURL: openAIBaseURL, Input: []string{"text"}, ContextWindow: 128000, MaxTokens: 16384}
				if got := r.Find("openai", "gpt-4o"); !reflect.DeepEqual(got, want) {
					t.Errorf("gpt-4o = %+v\nwant %+v", got, want)
				}
			},
		},
		{
			name: "custom model with a new id is appended to the built-in provider",
			json: `{"providers":{"anthropic":{"models":[{"id":"claude-next","reasoning":true,"input":["text","image"]}]}}}`,
			check: func(t *testing.T, r *Registry) {
				got := ids(r.All(), "anthropic")
				if want := append(builtinIDs("anthropic"), "claude-next"); !reflect.DeepEqual(got, want) {
					t.Errorf("anthropic ids = %v, want %v", got, want)
				}
				m := r.Find("anthropic", "claude-next")
				if m.API != llm.APIAnthropicMessages || m.BaseURL != anthropicBaseURL || !m.Reasoning || !m.SupportsImages() {
					t.Errorf("claude-next = %+v", m)
				}
			},
		},
		{
			name: "modelOverrides patch fields, cost per field, unknown ids ignored",
			json: `{"providers":{"google":{"modelOverrides":{
				"gemini-2.5-pro":{"contextWindow":2000000,"name":"Pro","cost":{"output":99},"compat":{"k":1}},
				"gemini-9":{"maxTokens":1}}}}}`,
			check: func(t *testing.T, r *Registry) {
				m := r.Find("google", "gemini-2.5-pro")
				want := llm.ModelCost{Input: 1.25, Output: 99, CacheRead: 0.125}
				if m.ContextWindow != 2000000 || m.Name != "Pro" || m.Cost != want || m.MaxTokens != 65536 || m.Compat["k"] != float64(1) {
					t.Errorf("patched = %+v", m)
				}
				if r.Find("google", "gemini-9") != nil {
					t.Error("an override of an unknown id created a model")
				}
				if f := r.Find("google", "gemini-2.5-flash"); f.ContextWindow != 1048576 {
					t.Error("override leaked to another model")
				}
			},
		},
		{
			name: "custom provider gets defaults and provider compat",
			json: `{"providers":{"ollama":{"baseUrl":"http://localhost:11434/v1","api":"openai-completions",
				"compat":{"supportsDeveloperRole":false,"a":1},
				"models":[{"id":"llama3.1:8b","compat":{"a":2}},{"id":"qwen","api":"openai-responses","name":"Qwen","contextWindow":32000,"cost":{"input":0.5}}]}}}`,
			check: func(t *testing.T, r *Registry) {
				want := &llm.Model{ID: "llama3.1:8b", Name: "llama3.1:8b", API: llm.APIOpenAICompletions, Provider: "ollama",
					BaseURL: "http://localhost:11434/v1", Input: []string{"text"}, ContextWindow: 128000, MaxTokens: 16384,
					Compat: map[string]any{"supportsDeveloperRole": false, "a": float64(2)}}
				if got := r.Find("ollama", "llama3.1:8b"); !reflect.DeepEqual(got, want) {
					t.Errorf("llama = %+v\nwant %+v", got, want)
				}
				q := r.Find("ollama", "qwen")
				if q.API != llm.APIOpenAIResponses || q.Name != "Qwen" || q.ContextWindow != 32000 || q.Cost.Input != 0.5 {
					t.Errorf("qwen = %+v", q)
				}
			},
		},
		{
			name: "custom providers follow the built-ins in file order",
			json: `{"providers":{
				"zeta":{"baseUrl":"http://z","api":"openai-completions","models":[{"id":"z1"}]},
				"openai":{"baseUrl":"http://o"},
				"alpha":{"baseUrl":"http://a","api":"openai-completions","models":[{"id":"a1"}]}}}`,
			check: func(t *testing.T, r *Registry) {
				if got, want := r.Providers(), []string{"anthropic", "openai", "google", "zeta", "alpha"}; !reflect.DeepEqual(got, want) {
					t.Errorf("Providers = %v, want %v", got, want)
				}
				all := r.All()
				if last := all[len(all)-1]; last.ID != "a1" {
					t.Errorf("last model = %s, want a1", last.ID)
				}
			},
		},
		{
			name: "built-in provider compat merges over its models",
			json: `{"providers":{"openai":{"compat":{"supportsStore":false}}}}`,
			check: func(t *testing.T, r *Registry) {
				for _, m := range r.All() {
					if got := m.CompatBool("supportsStore", true); got != (m.Provider != "openai") {
						t.Errorf("%s/%s supportsStore = %v", m.Provider, m.ID, got)
					}
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{}
			if tt.json != "" {
				files[ModelsFile] = tt.json
			}
			tt.check(t, load(t, files))
		})
	}
}

func TestModelsJSONInvalidEntriesSkipped(t *testing.T) {
	r, errs := Load(agentDir(t, map[string]string{ModelsFile: `{"providers":{
		"nourl":{"api":"openai-completions","models":[{"id":"x"}]},
		"nomodels":{"baseUrl":"http://n"},
		"ok":{"baseUrl":"http://ok","models":[{"name":"no id"},{"id":"noapi"},{"id":"good","api":"openai-completions"}]}}}`}))
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = e.Error()
	}
	joined := strings.Join(msgs, "\n")
	for _, want := range []string{`"nourl"`, `needs "baseUrl"`, `"nomodels"`, `model #1 has no "id"`, `model "noapi" has no "api"`} {
		if !strings.Contains(joined, want) {
			t.Errorf("warnings lack %q:\n%s", want, joined)
		}
	}
	if got := r.Providers(); !reflect.DeepEqual(got, []string{"anthropic", "openai", "google", "ok"}) {
		t.Errorf("Providers = %v", got)
	}
	if got := ids(r.All(), "ok"); !reflect.DeepEqual(got, []string{"good"}) {
		t.Errorf("ok models = %v", got)
	}
}

func TestModelsJSONMalformed(t *testing.T) {
	tests := []struct {
		name, json string
		want       []string // substrings of the single error
	}{
		{
			name: "syntax",
			json: "{\n  \"providers\": {\n    \"x\": {\"baseUrl\": \"http://x\",}\n  }\n}\n",
			want: []string{ModelsFile + ":3:33:", "invalid character '}'", "built-in models only"},
		},
		{
			name: "truncated",
			json: `{"providers": {`,
			want: []string{ModelsFile + ":1:", "unexpected end of JSON input"},
		},
		{
			name: "wrong type",
			json: "{\"providers\": {\n \"x\": {\"baseUrl\": \"http://x\", \"models\": [{\"id\": \"m\", \"contextWindow\": \"big\"}]}}}",
			want: []string{ModelsFile + ":2:", "contextWindow must be a number", `not string`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := agentDir(t, map[string]string{ModelsFile: tt.json})
			r, errs := Load(dir)
			if len(errs) != 1 {
				t.Fatalf("errs = %v, want one", errs)
			}
			msg := errs[0].Error()
			if !strings.Contains(msg, filepath.Join(dir, ModelsFile)) {
				t.Errorf("error does not name the file: %s", msg)
			}
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q lacks %q", msg, w)
				}
			}
			if got, want := len(r.All()), len(BuiltinModels()); got != want {
				t.Errorf("len(All) = %d, want the %d built-ins", got, want)
			}
		})
	}
}

func TestModelsJSONBOMAndBlank(t *testing.T) {
	r := load(t, map[string]string{ModelsFile: "\uFEFF" + `{"providers":{"l":{"baseUrl":"http://l","api":"openai-completions","models":[{"id":"m"}]}}}`})
	if r.Find("l", "m") == nil {
		t.Error("a file with a BOM was not read")
	}
	load(t, map[string]string{ModelsFile: " \n"})
}

func TestBuiltinModelsFresh(t *testing.T) {
	a, b := BuiltinModels(), BuiltinModels()
	a[0].Input[0] = "changed"
	if b[0].Input[0] == "changed" {
		t.Error("BuiltinModels shares slices between calls")
	}
	seen := map[string]bool{}
	for _, m := range b {
		k := m.Provider + "/" + m.ID
		if seen[k] {
			t.Errorf("duplicate built-in %s", k)
		}
		seen[k] = true
		if m.Name == "" || m.API == "" || m.BaseURL == "" || m.ContextWindow <= 0 || m.MaxTokens <= 0 || m.Cost.Input < 0 { // pi lists the Gemma models as free
			t.Errorf("incomplete built-in %+v", m)
		}
		if m.MaxTokens > m.ContextWindow {
			t.Errorf("%s: maxTokens above context window", k)
		}
	}
	for _, p := range builtinProviders {
		if id := DefaultModelID(p); !seen[p+"/"+id] {
			t.Errorf("default model %s/%s not in the catalog", p, id)
		}
	}
}
