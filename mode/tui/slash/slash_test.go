package slash

import (
	"strings"
	"testing"

	"github.com/atomic-cli/atomic/ext"
)

func TestListPutsBuiltinsFirstAndSkipsConflicts(t *testing.T) {
	items, warns := List([]ext.CommandInfo{
		{Name: "deploy:1", Description: "Deploy (a)"},
		{Name: "deploy:2"},
		{Name: "tree", Description: "shadowing a built-in"},
		{Name: "todo", HasArgumentCompletions: true},
	})
	if items[0].Name != "settings" || items[len(Builtins)-1].Name != "exit" {
		t.Fatalf("built-ins not first in table order: %v", items[:3])
	}
	rest := items[len(Builtins):]
	var names []string
	for _, it := range rest {
		names = append(names, it.Name+"="+it.Description)
	}
	if got := strings.Join(names, ","); got != "deploy:1=Deploy (a),deploy:2=(extension command),todo=(extension command)" {
		t.Fatalf("extension items %s", got)
	}
	if !rest[2].Completes {
		t.Fatal("todo completes its arguments")
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "'/tree' conflicts with built-in") {
		t.Fatalf("warnings %q", warns)
	}
}

func TestNamesFuzzyOnName(t *testing.T) {
	items, _ := List(nil)
	got := Names(items, "")
	if len(got) != len(Builtins) || got[0].Value != "/settings " {
		t.Fatalf("empty filter: %d items, first %q", len(got), got[0].Value)
	}
	got = Names(items, "res")
	if len(got) == 0 || got[0].Label != "resume" {
		t.Fatalf("res → %v, want resume first", got)
	}
	for _, s := range Names(items, "mod") {
		if s.Label == "model" {
			if !strings.HasPrefix(s.Description, "[provider/model] — ") {
				t.Fatalf("model description %q lacks the argument hint", s.Description)
			}
			return
		}
	}
	t.Fatal("mod does not offer model")
}

func TestParseAndContext(t *testing.T) {
	if n, a, ok := Parse("  /model  openai/gpt-4o "); !ok || n != "model" || a != "openai/gpt-4o" {
		t.Fatalf("Parse = %q %q %v", n, a, ok)
	}
	if _, _, ok := Parse("hello /model"); ok {
		t.Fatal("text not starting with / parsed as a command")
	}
	if n, _, inName, _ := Context("/tr"); !inName || n != "tr" {
		t.Fatal("/tr is a name context")
	}
	if n, a, _, inArgs := Context("/model gpt"); !inArgs || n != "model" || a != "gpt" {
		t.Fatal("/model gpt is an argument context")
	}
	if _, _, inName, inArgs := Context("/model\nmore"); inName || inArgs {
		t.Fatal("multi-line text is no command context")
	}
}
