package model

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestAuthSetAPIKeyWrites0600Atomically(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "agent") // does not exist yet
	path := filepath.Join(dir, AuthFile)
	s, errs := OpenAuth(path)
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	if err := s.SetAPIKey("openai", "$OPENAI_KEY_ALT"); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600", fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("agent dir holds %d entries, want only auth.json (a temp file left behind?)", len(entries))
	}
	data, _ := os.ReadFile(path)
	if want := "{\n  \"openai\": {\n    \"type\": \"api_key\",\n    \"key\": \"$OPENAI_KEY_ALT\"\n  }\n}\n"; string(data) != want {
		t.Errorf("file =\n%s\nwant\n%s", data, want)
	}
	if c, ok := s.Get("openai"); !ok || c.Key != "$OPENAI_KEY_ALT" {
		t.Errorf("Get after write = %+v, %v", c, ok)
	}
}

func TestAuthWritesKeepOtherEntries(t *testing.T) {
	path := filepath.Join(agentDir(t, map[string]string{AuthFile: `{
		"anthropic": {"type":"oauth","access":"a","refresh":"r","expires":1,"accountId":"kept"}}`}), AuthFile)
	s, errs := OpenAuth(path)
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	// Another process adds a provider after we read the file.
	if err := os.WriteFile(path, []byte(`{"anthropic": {"type":"oauth","access":"a","refresh":"r","expires":1,"accountId":"kept"},
		"google": {"type":"api_key","key":"g"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := s.SetAPIKey("openai", "o"); err != nil {
		t.Fatal(err)
	}
	var got map[string]map[string]any
	data, _ := os.ReadFile(path)
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if got["anthropic"]["accountId"] != "kept" || got["google"]["key"] != "g" || got["openai"]["key"] != "o" {
		t.Errorf("file after SetAPIKey = %s", data)
	}
	if err := s.Remove("google"); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Get("google"); ok {
		t.Error("Get still finds a removed provider")
	}
	data, _ = os.ReadFile(path)
	if strings.Contains(string(data), "google") {
		t.Errorf("removed provider still in file: %s", data)
	}
	if got := s.Providers(); len(got) != 2 || got[0] != "anthropic" || got[1] != "openai" {
		t.Errorf("Providers = %v", got)
	}
}

func TestAuthRemoveAbsentDoesNotCreateFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), AuthFile)
	s, _ := OpenAuth(path)
	if err := s.Remove("openai"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("Remove of an absent provider created the file: %v", err)
	}
}

func TestAuthMalformedIsNeverOverwritten(t *testing.T) {
	const bad = "{\"openai\": {\"type\": \"api_key\", \"key\": \"k\"}\n"
	path := filepath.Join(agentDir(t, map[string]string{AuthFile: bad}), AuthFile)
	s, errs := OpenAuth(path)
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), path+":2:") {
		t.Fatalf("errs = %v, want one naming %s and line 2", errs, path)
	}
	if err := s.SetAPIKey("google", "g"); err == nil || !strings.Contains(err.Error(), "not overwriting") {
		t.Errorf("SetAPIKey on a malformed file = %v, want a refusal", err)
	}
	if data, _ := os.ReadFile(path); string(data) != bad {
		t.Errorf("malformed file changed to %s", data)
	}
}

func TestAuthBadEntrySkipped(t *testing.T) {
	path := filepath.Join(agentDir(t, map[string]string{AuthFile: `{"openai":"sk-1","google":{"type":"api_key","key":"g"}}`}), AuthFile)
	s, errs := OpenAuth(path)
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), `"openai"`) {
		t.Errorf("errs = %v", errs)
	}
	if _, ok := s.Get("google"); !ok {
		t.Error("a good entry was dropped with a bad one")
	}
}
