package model

import (
	"errors"
	"strings"
	"testing"
)

const resolveModelsJSON = `{"providers":{
	"ollama":{"baseUrl":"http://localhost:11434/v1","api":"openai-completions","models":[
		{"id":"llama3.1:8b","name":"Llama 3.1 8B"},
		{"id":"qwen/qwen3:32b"},
		{"id":"gpt-4o"},
		{"id":"mixtral-20240101"},{"id":"mixtral-20250301"},{"id":"mixtral-2025-06-01"}]},
	"router":{"baseUrl":"http://r","api":"openai-completions","models":[{"id":"anthropic/claude-sonnet-4"},{"id":"shared-x"}]},
	"other":{"baseUrl":"http://o","api":"openai-completions","models":[{"id":"shared-x"}]}}}`

func TestResolve(t *testing.T) {
	r := load(t, map[string]string{ModelsFile: resolveModelsJSON})
	tests := []struct {
		pattern, provider string
		want, level       string // want "provider/id"
	}{
		{pattern: "claude-opus-4-1", want: "anthropic/claude-opus-4-1"},
		{pattern: "CLAUDE-OPUS-4-1", want: "anthropic/claude-opus-4-1"},
		{pattern: "anthropic/claude-haiku-4-5", want: "anthropic/claude-haiku-4-5"},
		{pattern: "openai/gpt-4o", want: "openai/gpt-4o"},
		{pattern: "gpt-4o", provider: "ollama", want: "ollama/gpt-4o"},
		{pattern: "llama3.1:8b", want: "ollama/llama3.1:8b"},
		{pattern: "ollama/qwen/qwen3:32b", want: "ollama/qwen/qwen3:32b"},
		{pattern: "anthropic/claude-sonnet-4", want: "router/anthropic/claude-sonnet-4"},
		{pattern: "llama3.1:8b:high", want: "ollama/llama3.1:8b", level: "high"},
		{pattern: "claude-sonnet-4-5:XHIGH", want: "anthropic/claude-sonnet-4-5", level: "xhigh"},
		{pattern: "sonnet:low", want: "anthropic/claude-sonnet-4-6", level: "low"},
		{pattern: "sonnet", want: "anthropic/claude-sonnet-4-6"},
		{pattern: "opus", want: "anthropic/claude-opus-4-7"},
		{pattern: "haiku", want: "anthropic/claude-haiku-4-5"},
		{pattern: "flash", want: "google/gemini-2.5-flash"},
		{pattern: "Llama 3.1", want: "ollama/llama3.1:8b"},
		{pattern: "sonnet-4-5", want: "anthropic/claude-sonnet-4-5"},
		{pattern: "20250514", want: "anthropic/claude-sonnet-4-20250514"},
		{pattern: "claude-opus-4-2025", want: "anthropic/claude-opus-4-20250514"},
		{pattern: "mixtral", want: "ollama/mixtral-2025-06-01"},
		{pattern: "google/*flash-lite", want: "google/gemini-2.5-flash-lite"},
		{pattern: "*opus*:medium", want: "anthropic/claude-opus-4-7", level: "medium"},
		{pattern: "mini", provider: "openai", want: "openai/o4-mini"},
		{pattern: "", provider: "google", want: "google/gemini-2.5-pro"},
		{pattern: "", provider: "ollama", want: "ollama/llama3.1:8b"},
	}
	for _, tt := range tests {
		m, level, err := r.Resolve(tt.pattern, tt.provider)
		if err != nil {
			t.Errorf("Resolve(%q, %q): %v", tt.pattern, tt.provider, err)
			continue
		}
		if got := m.Provider + "/" + m.ID; got != tt.want || level != tt.level {
			t.Errorf("Resolve(%q, %q) = %s, %q; want %s, %q", tt.pattern, tt.provider, got, level, tt.want, tt.level)
		}
	}
}

func TestResolveErrors(t *testing.T) {
	r := load(t, map[string]string{ModelsFile: resolveModelsJSON})
	tests := []struct {
		pattern, provider string
		is                error
		has               []string
	}{
		{pattern: "gpt-4o", is: ErrAmbiguous, has: []string{"openai/gpt-4o", "ollama/gpt-4o", "--provider"}},
		{pattern: "shared", is: ErrAmbiguous, has: []string{"router/shared-x", "other/shared-x"}},
		{pattern: "no-such-model", is: ErrNotFound, has: []string{`"no-such-model"`, "--list-models"}},
		{pattern: "sonnet:hgh", is: ErrNotFound, has: []string{`"hgh" is not a thinking level`}},
		{pattern: "sonnet", provider: "openai", is: ErrNotFound, has: []string{`provider "openai"`}},
		{pattern: "x", provider: "nope", is: ErrNotFound, has: []string{`unknown provider "nope"`, "anthropic"}},
	}
	for _, tt := range tests {
		m, _, err := r.Resolve(tt.pattern, tt.provider)
		if !errors.Is(err, tt.is) {
			t.Errorf("Resolve(%q, %q) = %v, %v; want %v", tt.pattern, tt.provider, m, err, tt.is)
			continue
		}
		for _, h := range tt.has {
			if !strings.Contains(err.Error(), h) {
				t.Errorf("Resolve(%q, %q) error %q lacks %q", tt.pattern, tt.provider, err, h)
			}
		}
	}
}

func TestResolveEmptyUsesDefault(t *testing.T) {
	clearKeys(t)
	t.Setenv("OPENAI_API_KEY", "k")
	m, _, err := load(t, nil).Resolve("", "")
	if err != nil || m.ID != "gpt-5" {
		t.Errorf("Resolve(\"\") = %v, %v; want gpt-5", m, err)
	}
}

func TestGlobMatch(t *testing.T) {
	tests := []struct {
		pattern, s string
		want       bool
	}{
		{"*", "", true},
		{"a*", "anthropic/x", true},
		{"*sonnet*", "anthropic/claude-sonnet-4", true},
		{"anthropic/*", "anthropic/claude", true},
		{"anthropic/*", "openai/gpt", false},
		{"g?t-5", "gpt-5", true},
		{"g?t-5", "gpt-55", false},
		{"*a*b*c", "xaxbxbxc", true},
		{"*a*b*c", "xaxbxbx", false},
	}
	for _, tt := range tests {
		if got := globMatch(tt.pattern, tt.s); got != tt.want {
			t.Errorf("globMatch(%q, %q) = %v", tt.pattern, tt.s, got)
		}
	}
}
