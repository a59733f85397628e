package model

import (
	"os"
	"path/filepath"
	"testing"
)

// keyVars are all the provider variables EnvVars knows; tests blank them so the developer's own
// keys never leak into a result.
var keyVars = []string{
	"ANTHROPIC_OAUTH_TOKEN", "ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "AZURE_OPENAI_API_KEY",
	"GROQ_API_KEY", "CEREBRAS_API_KEY", "XAI_API_KEY", "OPENROUTER_API_KEY", "AI_GATEWAY_API_KEY", "ZAI_API_KEY",
	"MISTRAL_API_KEY", "MINIMAX_API_KEY", "OPENCODE_API_KEY", "KIMI_API_KEY", "DEEPSEEK_API_KEY",
	"FIREWORKS_API_KEY", "TOGETHER_API_KEY", "BASETEN_API_KEY", "MOONSHOT_API_KEY", "CLOUDFLARE_API_KEY",
	"HF_TOKEN", "COPILOT_GITHUB_TOKEN",
}

func clearKeys(t testing.TB) {
	t.Helper()
	for _, v := range keyVars {
		t.Setenv(v, "")
	}
}

// agentDir returns a fresh agent directory holding the given files (name -> content).
func agentDir(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// load is Load that fails the test on any warning.
func load(t testing.TB, files map[string]string) *Registry {
	t.Helper()
	r, errs := Load(agentDir(t, files))
	for _, err := range errs {
		t.Errorf("Load warning: %v", err)
	}
	return r
}
