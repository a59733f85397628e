package fuzzy

import (
	"reflect"
	"testing"
)

func TestMatch(t *testing.T) {
	cases := []struct {
		q, text string
		ok      bool
	}{
		{"", "anything", true},
		{"mdl", "model", true},
		{"MOD", "model", true},
		{"ldm", "model", false},
		{"gpt4", "gpt-4o", true},
		{"4gpt", "gpt-4o", true}, // digits then letters: retried as "gpt4"
		{"4x", "gpt-4o", false},
		{"o4", "4o-mini", true}, // "o4" is letters then digits: retried as "4o"
	}
	for _, c := range cases {
		if _, ok := Match(c.q, c.text); ok != c.ok {
			t.Errorf("Match(%q, %q) ok = %v, want %v", c.q, c.text, ok, c.ok)
		}
	}
}

func TestMatchPrefersExactThenBoundaryThenConsecutive(t *testing.T) {
	exact, _ := Match("tree", "tree")
	prefix, _ := Match("tree", "tree-view")
	inner, _ := Match("tree", "subtree")
	scattered, _ := Match("tree", "the rare elephant")
	if !(exact < prefix && prefix < inner && inner < scattered) {
		t.Fatalf("scores exact %v prefix %v inner %v scattered %v: want strictly increasing", exact, prefix, inner, scattered)
	}
}

func TestFilterOrdersBestFirstAndNeedsEveryToken(t *testing.T) {
	items := []string{"session", "settings", "scoped-models", "model", "resume"}
	got := Filter(items, "se", func(s string) string { return s })
	want := []string{"session", "settings", "scoped-models", "resume"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Filter se = %v, want %v", got, want)
	}
	got = Filter([]string{"anthropic/claude-sonnet", "openai/gpt-4o", "openai/o3"}, "openai/gpt", func(s string) string { return s })
	if !reflect.DeepEqual(got, []string{"openai/gpt-4o"}) {
		t.Fatalf("Filter openai/gpt = %v", got)
	}
	if got := Filter(items, "", func(s string) string { return s }); !reflect.DeepEqual(got, items) {
		t.Fatalf("empty query changed the list: %v", got)
	}
}

func TestClean(t *testing.T) {
	if got := Clean("a\nb\tc\x1b"); got != "a b c " {
		t.Fatalf("Clean = %q", got)
	}
}
