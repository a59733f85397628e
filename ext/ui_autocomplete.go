package ext

import (
	"context"
	"fmt"
	"os"
	"strings"
)

// Autocomplete providers (ctx.ui.addAutocompleteProvider, tui.md §7.4): a provider suggests
// items for the text around the cursor and applies a chosen one. Providers stack: each factory
// receives the provider below it (the built-in slash-command, @file and path completion at the
// bottom) and usually answers some contexts itself and delegates the rest.

// AutocompleteItem is one suggestion: Value replaces the prefix when applied, Label is shown.
type AutocompleteItem struct {
	Value       string `json:"value"`
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
}

// AutocompleteSuggestions are a provider's answer: the items and Prefix, the text before the
// cursor an applied item replaces.
type AutocompleteSuggestions struct {
	Items  []AutocompleteItem `json:"items"`
	Prefix string             `json:"prefix"`
}

// AutocompleteRequest is the editor state a provider looks at: the lines of the text and the
// cursor (line index, column in runes — pi counts UTF-16 units, which agree outside the astral
// planes). Force is Tab (path completion without a trigger).
type AutocompleteRequest struct {
	Lines      []string `json:"lines"`
	CursorLine int      `json:"cursorLine"`
	CursorCol  int      `json:"cursorCol"`
	Force      bool     `json:"force,omitempty"`
}

// AutocompleteEdit is the editor state after applying an item.
type AutocompleteEdit struct {
	Lines      []string `json:"lines"`
	CursorLine int      `json:"cursorLine"`
	CursorCol  int      `json:"cursorCol"`
}

// AutocompleteProvider is pi-tui's AutocompleteProvider.
type AutocompleteProvider interface {
	// TriggerCharacters are extra single characters that open the list at a token start (besides
	// the built-in "@").
	TriggerCharacters() []string
	// Suggestions answers the items for req, or nil for none. It may take its time (it runs off
	// the UI goroutine); ctx ends when the text changes and the answer is no longer wanted.
	Suggestions(ctx context.Context, req AutocompleteRequest) *AutocompleteSuggestions
	// Apply returns the editor state after item (from Suggestions with prefix) is chosen. It
	// must not block.
	Apply(req AutocompleteRequest, item AutocompleteItem, prefix string) AutocompleteEdit
}

// AutocompleteFactory wraps the current provider chain in a new provider.
type AutocompleteFactory func(current AutocompleteProvider) AutocompleteProvider

// AutocompleteUI is the capability of a UI with an editor that completes (the terminal UI).
type AutocompleteUI interface {
	// AddAutocompleteProvider stacks factory's provider over the current chain.
	AddAutocompleteProvider(factory AutocompleteFactory)
}

// ExtensionUIResetter is implemented by a UI that keeps what extensions registered in it across
// calls (the terminal UI's autocomplete chain): the session calls ResetExtensionUI when it
// replaces or reloads its extensions, after the old ones shut down and before the new ones
// start, so what they register again is not stacked on the old (pi's resetExtensionUI).
type ExtensionUIResetter interface {
	ResetExtensionUI()
}

// ResetExtensionUI calls ui's ResetExtensionUI when it has one.
func ResetExtensionUI(ui UI) {
	if r, ok := UIAs[ExtensionUIResetter](ui); ok {
		r.ResetExtensionUI()
	}
}

// AddAutocompleteProvider stacks a provider on ui's completion; without an editor that
// completes (print, JSON and RPC mode) it does nothing but report at debug level.
func AddAutocompleteProvider(ui UI, factory AutocompleteFactory) {
	if a, ok := UIAs[AutocompleteUI](ui); ok {
		a.AddAutocompleteProvider(factory)
		return
	}
	uiDebugf("ctx.ui.addAutocompleteProvider", "this mode has no completing editor; the provider is not used")
}

// ReplacePrefix is the usual Apply: the prefix before the cursor becomes value, and the cursor
// goes after it. A prefix that is not before the cursor inserts value at the cursor.
func ReplacePrefix(req AutocompleteRequest, value, prefix string) AutocompleteEdit {
	lines := append([]string(nil), req.Lines...)
	if len(lines) == 0 {
		lines = []string{""}
	}
	li := min(max(req.CursorLine, 0), len(lines)-1)
	line := []rune(lines[li])
	col := min(max(req.CursorCol, 0), len(line))
	before, after := string(line[:col]), string(line[col:])
	if strings.HasSuffix(before, prefix) {
		before = before[:len(before)-len(prefix)]
	}
	lines[li] = before + value + after
	return AutocompleteEdit{Lines: lines, CursorLine: li, CursorCol: len([]rune(before + value))}
}

// uiDebugf reports, at debug level (ATOMIC_DEBUG set), a UI call a mode cannot honour.
func uiDebugf(call, format string, args ...any) {
	if os.Getenv("ATOMIC_DEBUG") != "" {
		fmt.Fprintf(os.Stderr, "atomic: debug: %s: %s\n", call, fmt.Sprintf(format, args...))
	}
}
