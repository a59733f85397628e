package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckSession makes sure the session-valid checks catch what they claim to: a good file
// passes; a broken chain, a torn line and a missing cwd fail.
func TestCheckSession(t *testing.T) {
	dir := t.TempDir()
	cwd := strings.ReplaceAll(dir, `\`, `\\`)
	header := `{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"` + cwd + `"}`
	e1 := `{"type":"model_change","id":"a1","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","provider":"fake","modelId":"fake-model"}`
	e2 := `{"type":"message","id":"a2","parentId":"a1","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":[{"type":"text","text":"hi"}],"timestamp":1}}`
	e3 := `{"type":"message","id":"a3","parentId":"a2","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"assistant","content":[{"type":"text","text":"yo"}],"api":"anthropic-messages","provider":"fake","model":"fake-model","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":2}}`
	e3branch := strings.Replace(e3, `"parentId":"a2"`, `"parentId":"a1"`, 1)
	missingCwd := strings.Replace(header, cwd, cwd+"/nope", 1)

	cases := []struct {
		name, text string
		tree       bool
		wantErr    string
	}{
		{"good", header + "\n" + e1 + "\n" + e2 + "\n" + e3 + "\n", false, ""},
		{"branch as tree", header + "\n" + e1 + "\n" + e2 + "\n" + e3branch + "\n", true, ""},
		{"branch as chain", header + "\n" + e1 + "\n" + e2 + "\n" + e3branch + "\n", false, "want the previous entry"},
		{"torn line", header + "\n" + e1 + "\n" + e2 + "\n" + e3[:40] + "\n", false, "not a JSON object"},
		{"no newline", header + "\n" + e1 + "\n" + e2, false, "newline"},
		{"missing cwd", missingCwd + "\n" + e1 + "\n", false, "not a directory"},
		{"dangling parent", header + "\n" + e1 + "\n" + strings.Replace(e2, `"a1"`, `"zz"`, 1) + "\n", true, "not an earlier entry"},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := filepath.Join(dir, "s"+string(rune('a'+i))+".jsonl")
			if err := os.WriteFile(f, []byte(c.text), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := checkSession(f, c.tree)
			switch {
			case c.wantErr == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
				t.Fatalf("error %v; want one containing %q", err, c.wantErr)
			}
		})
	}
}
