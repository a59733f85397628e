package model

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/atomic-cli/atomic/llm"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s mismatch (go test -update rewrites it)\ngot:\n%s\nwant:\n%s", name, got, want)
	}
}

func TestFormatListGolden(t *testing.T) {
	extra := &llm.Model{ID: "llama3.1:8b", Provider: "ollama", Input: []string{"text"}, ContextWindow: 131072, MaxTokens: 512}
	models := append(BuiltinModels(), extra)
	golden(t, "list-all.golden", FormatList(models, ""))
	golden(t, "list-search.golden", FormatList(models, "ant snt"))
}

func TestFormatListEmpty(t *testing.T) {
	if got := FormatList(nil, ""); got != "No models available\n" {
		t.Errorf("empty = %q", got)
	}
	if got := FormatList(BuiltinModels(), "zzz"); got != "No models matching \"zzz\"\n" {
		t.Errorf("no match = %q", got)
	}
}

func TestFormatTokens(t *testing.T) {
	for n, want := range map[int]string{
		0: "0", 512: "512", 1000: "1K", 8192: "8.2K", 16384: "16.4K", 64000: "64K", 128000: "128K",
		200000: "200K", 999_949: "999.9K", 999_950: "1M", 1_000_000: "1M", 1_047_576: "1M", 1_048_576: "1M", 1_500_000: "1.5M",
	} {
		if got := FormatTokens(n); got != want {
			t.Errorf("FormatTokens(%d) = %q, want %q", n, got, want)
		}
	}
}
