package command

import "testing"

// TestBuiltinsListed: the commands of tui.md §2.1 added here are in the autocomplete list in
// table order, except /debug, which runs when typed but is not listed.
func TestBuiltinsListed(t *testing.T) {
	r := Builtins()
	listed := map[string]int{}
	for i, c := range r.List() {
		listed[c.Name] = i
	}
	for _, n := range []string{"import", "changelog", "login", "logout", "share"} {
		if _, ok := listed[n]; !ok {
			t.Errorf("/%s is not in the autocomplete list", n)
		}
	}
	if listed["export"] > listed["import"] || listed["session"] > listed["changelog"] {
		t.Errorf("table order broken: %v", listed)
	}
	if _, ok := listed["debug"]; ok {
		t.Error("/debug is listed; it must be hidden")
	}
	if _, ok := r.Lookup("debug"); !ok {
		t.Error("/debug is not registered")
	}
}
