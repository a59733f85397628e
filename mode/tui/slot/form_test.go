package slot

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

func plainView(f *Form, w int) string { return ansi.Strip(view(f, w)) }

var (
	tab      = tea.KeyPressMsg{Code: tea.KeyTab}
	shiftTab = tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	space    = tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
)

func testForm(onDone func(map[string]string, bool) tea.Cmd) *Form {
	return NewForm(Plain(), DefaultKeys(), "Release", "WORKFLOW INPUTS", "[ Run workflow ]", []FormField{
		{Name: "version", Type: "string", Required: true, Description: "the version to tag"},
		{Name: "channel", Type: "select", Choices: []string{"stable", "beta"}, InitialValue: "stable"},
		{Name: "dry", Type: "boolean", InitialValue: "false"},
		{Name: "count", Type: "number", InitialValue: "3"},
		{Name: "notes", Type: "text", Placeholder: "what changed"},
	}, onDone)
}

func TestFormRenderValidateSubmit(t *testing.T) {
	var got map[string]string
	var ok, called bool
	f := testForm(func(v map[string]string, o bool) tea.Cmd { got, ok, called = v, o, true; return nil })
	checkWidth(t, view(f, 60), 60)
	v := plainView(f, 60)
	for _, want := range []string{"╭ WORKFLOW INPUTS ", "Release  ·  5 fields", "▸ version", "required", "optional", "the version to tag", "● stable", "○ beta", "○ on", "● off", "what changed", "[ Run workflow ]", "Tab move"} {
		if !strings.Contains(v, want) {
			t.Fatalf("the form lacks %q:\n%s", want, v)
		}
	}
	// Enter on the button with version empty: invalid, focus back on version.
	f.HandleKey(shiftTab)
	f.HandleKey(key("enter"))
	if called || !strings.Contains(plainView(f, 60), "✗ required") || f.focus != 0 {
		t.Fatalf("submitting an empty required field: called %v focus %d\n%s", called, f.focus, view(f, 60))
	}
	typeText(f, "1.2.3")
	f.HandleKey(key("enter")) // next field
	f.HandleKey(key("down"))  // beta
	f.HandleKey(tab)
	f.HandleKey(space) // dry: true
	f.HandleKey(tab)
	f.HandleKey(key("backspace"))
	typeText(f, "x")
	f.HandleKey(tab) // notes
	typeText(f, "a")
	f.HandleKey(key("enter")) // newline inside a text field
	typeText(f, "b")
	f.HandleKey(tab) // the button
	f.HandleKey(key("enter"))
	if called || !strings.Contains(plainView(f, 60), "✗ must be a number") || f.focus != 3 {
		t.Fatalf("a non-number in a number field must keep the form open on it (focus %d):\n%s", f.focus, view(f, 60))
	}
	f.HandleKey(key("backspace"))
	typeText(f, "7")
	for range 4 { // count → notes → version → … shift+tab wraps: 3 − 4 is the button (5)
		f.HandleKey(shiftTab)
	}
	if f.focus != 5 {
		t.Fatalf("shift+tab must wrap to the button, focus %d", f.focus)
	}
	f.HandleKey(key("enter"))
	want := map[string]string{"version": "1.2.3", "channel": "beta", "dry": "true", "count": "7", "notes": "a\nb"}
	if !called || !ok || len(got) != len(want) {
		t.Fatalf("submit: called %v ok %v values %v", called, ok, got)
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("value %s = %q, want %q", k, got[k], w)
		}
	}
}

func TestFormCancelAndInitialFocus(t *testing.T) {
	for _, k := range []tea.KeyPressMsg{key("esc"), key("ctrl+c")} {
		calls := 0
		var ok bool
		f := NewForm(Plain(), DefaultKeys(), "t", "", "[ Go ]", []FormField{
			{Name: "a", Type: "string", InitialValue: "x"},
			{Name: "b", Type: "select", Choices: []string{"p"}, InitialValue: "q"}, // invalid: not a choice
		}, func(_ map[string]string, o bool) tea.Cmd { calls++; ok = o; return nil })
		if f.focus != 1 {
			t.Fatalf("the first invalid field must take the focus, got %d", f.focus)
		}
		f.HandleKey(k)
		f.HandleKey(k)
		if calls != 1 || ok || !f.Done() {
			t.Fatalf("%s: calls %d ok %v", k.String(), calls, ok)
		}
	}
}
