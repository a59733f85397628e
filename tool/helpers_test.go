package tool

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/atomic-cli/atomic/llm"
)

// writeFiles creates files (path -> content, "/"-separated relative paths) under dir.
func writeFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// run executes tool with args and no update callback.
func run(t testing.TB, tl Tool, args map[string]any) (Result, error) {
	t.Helper()
	return tl.Execute(context.Background(), Call{ID: "call_1", Name: tl.Name(), Args: args}, func(Result) {})
}

// text returns the text of a result's text blocks.
func text(r Result) string { return llm.TextOf(r.Content, "\n") }

// mustRun is run that fails the test on error.
func mustRun(t testing.TB, tl Tool, args map[string]any) Result {
	t.Helper()
	r, err := run(t, tl, args)
	if err != nil {
		t.Fatalf("%s(%v): %v", tl.Name(), args, err)
	}
	return r
}

func readFile(t testing.TB, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
