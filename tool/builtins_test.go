package tool

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
)

// TestPiToolDefinitions pins read, bash, edit and write to the definitions pi 0.73.1 sent to the
// provider (testdata/pi-0.73.1-tools.json, from ../shared/fixtures/pi-0.73.1/print/requests.jsonl).
func TestPiToolDefinitions(t *testing.T) {
	raw, err := os.ReadFile("testdata/pi-0.73.1-tools.json")
	if err != nil {
		t.Fatal(err)
	}
	var fixture []struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	}
	if err := json.Unmarshal(raw, &fixture); err != nil {
		t.Fatal(err)
	}
	set := Builtins(t.TempDir(), Options{})
	tools := Select(set, DefaultNames)
	if len(tools) != len(fixture) {
		t.Fatalf("%d default tools, fixture has %d", len(tools), len(fixture))
	}
	for i, f := range fixture {
		tl := tools[i]
		if tl.Name() != f.Name {
			t.Errorf("tool %d is %q, want %q", i, tl.Name(), f.Name)
			continue
		}
		if tl.Description() != f.Description {
			t.Errorf("%s description:\n%s\nwant\n%s", f.Name, tl.Description(), f.Description)
		}
		var want bytes.Buffer
		if err := json.Compact(&want, f.Parameters); err != nil {
			t.Fatal(err)
		}
		if got := string(tl.Parameters()); got != want.String() {
			t.Errorf("%s parameters:\n%s\nwant\n%s", f.Name, got, want.String())
		}
	}
}

func TestBuiltins(t *testing.T) {
	set := Builtins(t.TempDir(), Options{})
	if len(set) != len(Names(set)) || len(Names(set)) < len(AllNames) {
		t.Fatalf("%d tools, names %v", len(set), Names(set))
	}
	for _, name := range Names(set) {
		tl, ok := set[name]
		if !ok || tl.Name() != name {
			t.Errorf("missing %s", name)
			continue
		}
		var schema map[string]any
		if err := json.Unmarshal(tl.Parameters(), &schema); err != nil || schema["type"] != "object" {
			t.Errorf("%s: bad schema %s: %v", name, tl.Parameters(), err)
		}
		if l, ok := tl.(Labeler); !ok || l.Label() == "" {
			t.Errorf("%s has no label", name)
		}
		if p, ok := tl.(Prompter); !ok || p.PromptSnippet() == "" {
			t.Errorf("%s has no prompt snippet", name)
		}
	}
	if _, ok := set["edit"].(ArgumentPreparer); !ok {
		t.Error("edit does not prepare arguments")
	}
	q := NewMutationQueue()
	set = Builtins(t.TempDir(), Options{Queue: q})
	if set["edit"].(*Edit).queue != q || set["write"].(*Write).queue != q {
		t.Error("edit and write do not share the given queue")
	}
}
