package model

import (
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestAPIKeyPrecedence(t *testing.T) {
	future := time.Now().Add(time.Hour).UnixMilli()
	past := time.Now().Add(-time.Hour).UnixMilli()
	models := `{"providers":{"openai":{"apiKey":"models-json-key"}}}`
	tests := []struct {
		name    string
		runtime string
		auth    string
		env     string
		models  string
		want    string
		errHas  string
	}{
		{name: "runtime beats everything", runtime: "rt", auth: `{"openai":{"type":"api_key","key":"file"}}`, env: "env", models: models, want: "rt"},
		{name: "auth api_key beats env", auth: `{"openai":{"type":"api_key","key":"file"}}`, env: "env", models: models, want: "file"},
		{name: "auth api_key is resolved", auth: `{"openai":{"type":"api_key","key":"${MODEL_TEST_K}-x"}}`, want: "from-var-x"},
		{name: "auth env overlay wins over process env", auth: `{"openai":{"type":"api_key","key":"$MODEL_TEST_K","env":{"MODEL_TEST_K":"overlay"}}}`, want: "overlay"},
		{name: "unresolvable auth key falls through to env", auth: `{"openai":{"type":"api_key","key":"$MODEL_TEST_NOPE"}}`, env: "env", want: "env"},
		{name: "oauth access while unexpired", auth: fmt.Sprintf(`{"openai":{"type":"oauth","access":"tok","refresh":"r","expires":%d}}`, future), env: "env", want: "tok"},
		{name: "expired oauth falls through to env", auth: fmt.Sprintf(`{"openai":{"type":"oauth","access":"tok","expires":%d}}`, past), env: "env", want: "env"},
		{name: "env beats models.json", env: "env", models: models, want: "env"},
		{name: "models.json apiKey last", models: models, want: "models-json-key"},
		{name: "models.json apiKey template", models: `{"providers":{"openai":{"apiKey":"$MODEL_TEST_K"}}}`, want: "from-var"},
		{name: "nothing", errHas: "set OPENAI_API_KEY"},
		{name: "expired oauth only", auth: fmt.Sprintf(`{"openai":{"type":"oauth","access":"tok","expires":%d}}`, past), errHas: "expired"},
		{name: "unresolvable models.json key", models: `{"providers":{"openai":{"apiKey":"$MODEL_TEST_NOPE"}}}`, errHas: "MODEL_TEST_NOPE is not set"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clearKeys(t)
			t.Setenv("MODEL_TEST_K", "from-var")
			t.Setenv("OPENAI_API_KEY", tt.env)
			files := map[string]string{}
			if tt.auth != "" {
				files[AuthFile] = tt.auth
			}
			if tt.models != "" {
				files[ModelsFile] = tt.models
			}
			r := load(t, files)
			r.SetRuntimeAPIKey("openai", tt.runtime)
			got, err := r.APIKey("openai")
			if tt.errHas != "" {
				if !errors.Is(err, ErrNoAPIKey) || !strings.Contains(err.Error(), tt.errHas) {
					t.Errorf("APIKey = %q, %v; want ErrNoAPIKey containing %q", got, err, tt.errHas)
				}
				if r.HasAuth("openai") && tt.models == "" {
					t.Error("HasAuth true without a usable credential")
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("APIKey = %q, %v; want %q", got, err, tt.want)
			}
			if !r.HasAuth("openai") {
				t.Error("HasAuth false although APIKey found a key")
			}
		})
	}
}

func TestAnthropicOAuthTokenEnvFirst(t *testing.T) {
	clearKeys(t)
	t.Setenv("ANTHROPIC_API_KEY", "api")
	t.Setenv("ANTHROPIC_OAUTH_TOKEN", "oauth")
	r := load(t, nil)
	if got, _ := r.APIKey("anthropic"); got != "oauth" {
		t.Errorf("APIKey = %q, want the OAuth token", got)
	}
}

func TestRuntimeKeyRemoved(t *testing.T) {
	clearKeys(t)
	r := load(t, nil)
	r.SetRuntimeAPIKey("google", "k")
	r.SetRuntimeAPIKey("google", "")
	if _, err := r.APIKey("google"); err == nil {
		t.Error("an emptied runtime key still counts")
	}
}

func TestSetAPIKeyThroughRegistryCountsAtOnce(t *testing.T) {
	clearKeys(t)
	r := load(t, nil)
	if err := r.Auth().SetAPIKey("google", "g"); err != nil {
		t.Fatal(err)
	}
	if got, err := r.APIKey("google"); err != nil || got != "g" {
		t.Errorf("APIKey = %q, %v", got, err)
	}
}

func TestAvailable(t *testing.T) {
	clearKeys(t)
	t.Setenv("GEMINI_API_KEY", "g")
	r := load(t, map[string]string{
		ModelsFile: `{"providers":{
			"ollama":{"baseUrl":"http://localhost:11434/v1","api":"openai-completions","models":[{"id":"llama"}]},
			"locked":{"baseUrl":"http://l","api":"openai-completions","apiKey":"$MODEL_TEST_NOPE","models":[{"id":"l1"}]},
			"cmd":{"baseUrl":"http://c","api":"openai-completions","apiKey":"!exit 1","models":[{"id":"c1"}]}}}`,
		AuthFile: `{"anthropic":{"type":"api_key","key":"a"}}`,
	})
	got := map[string]bool{}
	for _, m := range r.Available() {
		got[m.Provider] = true
	}
	want := map[string]bool{"anthropic": true, "google": true, "ollama": true, "cmd": true}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("available providers = %v, want %v", got, want)
	}
	if k, err := r.APIKey("ollama"); err != nil || k != "" {
		t.Errorf("keyless provider APIKey = %q, %v; want \"\", nil", k, err)
	}
}

func TestHeaders(t *testing.T) {
	clearKeys(t)
	t.Setenv("MODEL_TEST_TOKEN", "t0k")
	r := load(t, map[string]string{ModelsFile: `{"providers":{
		"gw":{"baseUrl":"http://gw","api":"openai-completions","apiKey":"$MODEL_TEST_TOKEN","authHeader":true,
			"headers":{"x-team":"core","x-missing":"$MODEL_TEST_NOPE","x-over":"provider"},
			"models":[{"id":"m","headers":{"x-over":"model","x-trace":"${MODEL_TEST_TOKEN}-trace"}}],
			"modelOverrides":{"m":{"headers":{"x-patch":"$$literal"}}}},
		"anthropic":{"headers":{"anthropic-beta":"x"}}}}`})
	m := r.Find("gw", "m")
	if m.Headers != nil {
		t.Errorf("unresolved headers leaked into Model.Headers: %v", m.Headers)
	}
	want := map[string]string{
		"x-team": "core", "x-over": "model", "x-trace": "t0k-trace", "x-patch": "$literal",
		"Authorization": "Bearer t0k",
	}
	if got := r.Headers(m); !reflect.DeepEqual(got, want) {
		t.Errorf("Headers = %v\nwant %v", got, want)
	}
	if got := r.Headers(r.Find("anthropic", "claude-haiku-4-5")); !reflect.DeepEqual(got, map[string]string{"anthropic-beta": "x"}) {
		t.Errorf("built-in provider headers = %v", got)
	}
	if got := r.Headers(r.Find("openai", "gpt-5")); got != nil {
		t.Errorf("headers without config = %v", got)
	}
}

func TestHeadersCommand(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("sh syntax")
	}
	r := load(t, map[string]string{ModelsFile: `{"providers":{"gw":{"baseUrl":"http://gw","api":"openai-completions",
		"headers":{"x-cmd":"!echo fresh","x-fail":"!exit 2"},"models":[{"id":"m"}]}}}`})
	if got := r.Headers(r.Find("gw", "m")); !reflect.DeepEqual(got, map[string]string{"x-cmd": "fresh"}) {
		t.Errorf("Headers = %v", got)
	}
}

func TestDefault(t *testing.T) {
	custom := `{"providers":{"zz":{"baseUrl":"http://z","api":"openai-completions","models":[{"id":"z1"},{"id":"z2"}]}}}`
	tests := []struct {
		name, env, models, want string
	}{
		{name: "anthropic first", env: "OPENAI_API_KEY ANTHROPIC_API_KEY", want: "anthropic/claude-sonnet-4-5"},
		{name: "then openai", env: "GEMINI_API_KEY OPENAI_API_KEY", want: "openai/gpt-5"},
		{name: "then google", env: "GEMINI_API_KEY", models: custom, want: "google/gemini-2.5-pro"},
		{name: "then custom, first model", models: custom, want: "zz/z1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clearKeys(t)
			for _, v := range strings.Fields(tt.env) {
				t.Setenv(v, "k")
			}
			files := map[string]string{}
			if tt.models != "" {
				files[ModelsFile] = tt.models
			}
			m, err := load(t, files).Default()
			if err != nil {
				t.Fatal(err)
			}
			if got := m.Provider + "/" + m.ID; got != tt.want {
				t.Errorf("Default = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestDefaultNoModels(t *testing.T) {
	clearKeys(t)
	_, err := load(t, nil).Default()
	if !errors.Is(err, ErrNoModels) {
		t.Fatalf("err = %v, want ErrNoModels", err)
	}
	for _, want := range []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", AuthFile, ModelsFile} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %s", err, want)
		}
	}
}
