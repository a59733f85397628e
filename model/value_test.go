package model

import (
	"errors"
	"runtime"
	"strings"
	"testing"
)

func TestResolveValue(t *testing.T) {
	t.Setenv("MODEL_TEST_KEY", "sk-123")
	t.Setenv("MODEL_TEST_HOST", "example.org")
	t.Setenv("MODEL_TEST_EMPTY", "")
	tests := []struct {
		in, want string
		errHas   string // non-empty: an ErrUnresolved error containing this
	}{
		{in: "plain-literal", want: "plain-literal"},
		{in: "MODEL_TEST_KEY", want: "MODEL_TEST_KEY"}, // a bare name is a literal in the Atomic form
		{in: "$MODEL_TEST_KEY", want: "sk-123"},
		{in: "${MODEL_TEST_KEY}", want: "sk-123"},
		{in: "Bearer ${MODEL_TEST_KEY}@$MODEL_TEST_HOST/x", want: "Bearer sk-123@example.org/x"},
		{in: "$MODEL_TEST_KEY-suffix", want: "sk-123-suffix"},
		{in: "price $$5", want: "price $5"},
		{in: "$$MODEL_TEST_KEY", want: "$MODEL_TEST_KEY"},
		{in: "$!not-a-command", want: "!not-a-command"},
		{in: "a$", want: "a$"},
		{in: "$1 and ${", want: "$1 and ${"},
		{in: "${MODEL_TEST_KEY", want: "${MODEL_TEST_KEY"},
		{in: "$MODEL_TEST_MISSING", errHas: "MODEL_TEST_MISSING is not set"},
		{in: "key-${MODEL_TEST_MISSING}-$MODEL_TEST_KEY", errHas: "MODEL_TEST_MISSING is not set"},
		{in: "$MODEL_TEST_EMPTY", errHas: "MODEL_TEST_EMPTY is not set"},
		{in: "", errHas: "empty value"},
	}
	for _, tt := range tests {
		got, err := ResolveValue(tt.in)
		if tt.errHas != "" {
			if !errors.Is(err, ErrUnresolved) || !strings.Contains(err.Error(), tt.errHas) {
				t.Errorf("ResolveValue(%q) = %q, %v; want ErrUnresolved containing %q", tt.in, got, err, tt.errHas)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ResolveValue(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestResolveValueCommand(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("uses sh syntax")
	}
	t.Setenv("MODEL_TEST_KEY", "from-env")
	tests := []struct {
		in, want string
		errHas   string
	}{
		{in: "!echo '  secret  '", want: "secret"},
		{in: "!printf 'a\\nb\\n'", want: "a\nb"},
		{in: "!echo $MODEL_TEST_KEY", want: "from-env"},
		{in: "!echo oops >&2; exit 3", errHas: "oops"},
		{in: "!true", errHas: "printed nothing"},
		{in: "!", errHas: "empty command"},
	}
	for _, tt := range tests {
		got, err := ResolveValue(tt.in)
		if tt.errHas != "" {
			if !errors.Is(err, ErrUnresolved) || !strings.Contains(err.Error(), tt.errHas) {
				t.Errorf("ResolveValue(%q) = %q, %v; want ErrUnresolved containing %q", tt.in, got, err, tt.errHas)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ResolveValue(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestResolveValueEnvOverlay(t *testing.T) {
	t.Setenv("MODEL_TEST_KEY", "process")
	overlay := map[string]string{"MODEL_TEST_KEY": "credential"}
	if got, err := resolveValue("$MODEL_TEST_KEY", overlay); err != nil || got != "credential" {
		t.Errorf("template with overlay = %q, %v; want credential", got, err)
	}
	if runtime.GOOS != "windows" {
		if got, err := resolveValue("!echo $MODEL_TEST_KEY", overlay); err != nil || got != "credential" {
			t.Errorf("command with overlay = %q, %v; want credential", got, err)
		}
	}
}

func TestValueConfiguredRunsNoCommand(t *testing.T) {
	if !valueConfigured("!exit 1", nil) {
		t.Error(`"!exit 1" should count as configured without running`)
	}
	if valueConfigured("$MODEL_TEST_SURELY_UNSET", nil) {
		t.Error("a template with an unset variable should not count as configured")
	}
}

func TestAgentDir(t *testing.T) {
	t.Setenv("HOME", "/home/u")
	t.Setenv("ATOMIC_CODING_AGENT_DIR", "")
	t.Setenv("PI_CODING_AGENT_DIR", "")
	if runtime.GOOS == "windows" {
		t.Skip("HOME is not the home directory on Windows")
	}
	if got := AgentDir(); got != "/home/u/.atomic/agent" {
		t.Errorf("default AgentDir = %q", got)
	}
	t.Setenv("PI_CODING_AGENT_DIR", "~/pi-agent")
	if got := AgentDir(); got != "/home/u/pi-agent" {
		t.Errorf("PI_ AgentDir = %q", got)
	}
	t.Setenv("ATOMIC_CODING_AGENT_DIR", "/srv/agent")
	if got := AgentDir(); got != "/srv/agent" {
		t.Errorf("ATOMIC_ AgentDir = %q (must win over PI_)", got)
	}
}
