package tui

import (
	"context"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/mode/tui/command"
)

// Extension autocomplete providers (ctx.ui.addAutocompleteProvider, tui.md §7.4). Once one is
// added, the list under the editor comes from the provider chain: each provider wraps the one
// below it, and the built-in completion (slash commands, @files, paths) is at the bottom. A
// provider may be slow (a TypeScript one answers over the host protocol), so suggestions and
// applying an item run off the UI goroutine; an answer for text that has changed meanwhile is
// dropped.

// acLoop is the model's state of provider requests (owned by the Bubble Tea goroutine).
type acLoop struct {
	seq    int                // the current request; answers of older ones are dropped
	cancel context.CancelFunc // ends the request in flight
}

// autocompleteChain is the outermost provider, nil while no extension added one.
func (x *extUI) autocompleteChain() ext.AutocompleteProvider {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.surf.ac
}

// AddAutocompleteProvider implements ext.AutocompleteUI: factory wraps the current chain (the
// built-in completion first).
func (x *extUI) AddAutocompleteProvider(factory ext.AutocompleteFactory) {
	if factory == nil {
		return
	}
	x.mu.Lock()
	cur := x.surf.ac
	x.mu.Unlock()
	if cur == nil {
		cur = builtinProvider{x}
	}
	p := factory(cur)
	if p == nil {
		return
	}
	x.mu.Lock()
	x.surf.ac = p
	x.mu.Unlock()
}

// ResetExtensionUI implements ext.ExtensionUIResetter: the providers of the extensions being
// replaced are dropped; the new ones stack on the built-in completion again.
func (x *extUI) ResetExtensionUI() {
	x.mu.Lock()
	x.surf.ac = nil
	x.mu.Unlock()
}

var (
	_ ext.AutocompleteUI      = (*extUI)(nil)
	_ ext.ExtensionUIResetter = (*extUI)(nil)
)

// editorRequest is the editor's state as providers see it.
func (m *model) editorRequest(force bool) ext.AutocompleteRequest {
	line, col := m.ed.CursorLineCol()
	return ext.AutocompleteRequest{Lines: strings.Split(m.ed.Text(), "\n"), CursorLine: line, CursorCol: col, Force: force}
}

// wantsProvider reports whether the chain is asked for the text before the cursor: on Tab, while
// a list is open, and at what opens a list (a leading "/", a token starting with "@" or one of
// the provider's trigger characters, a path-like token).
func wantsProvider(chain ext.AutocompleteProvider, full, before string, force, open bool) bool {
	if force || open || strings.HasPrefix(full, "/") {
		return true
	}
	tok := lastToken(before)
	if tok == "" {
		return false
	}
	if strings.HasPrefix(tok, "@") || strings.Contains(tok, "/") || strings.HasPrefix(tok, ".") || strings.HasPrefix(tok, "~") {
		return true
	}
	for _, t := range chain.TriggerCharacters() {
		if t != "" && strings.HasPrefix(tok, t) {
			return true
		}
	}
	return false
}

// providerCompletion asks the chain for the list of the current text; the answer opens it (Tab
// with a single item applies it at once).
func (m *model) providerCompletion(chain ext.AutocompleteProvider, force bool) {
	open := m.complete != nil
	m.complete = nil
	if m.ac.cancel != nil {
		m.ac.cancel()
		m.ac.cancel = nil
	}
	m.ac.seq++
	full, before := m.ed.Text(), m.ed.BeforeCursor()
	if !wantsProvider(chain, full, before, force, open) {
		return
	}
	seq := m.ac.seq
	req := m.editorRequest(force)
	ctx, cancel := context.WithCancel(m.ctx)
	m.ac.cancel = cancel
	x := m.ext
	go func() {
		defer cancel()
		s := chain.Suggestions(ctx, req)
		if s == nil || len(s.Items) == 0 || ctx.Err() != nil {
			return
		}
		items := make([]command.Completion, len(s.Items))
		for i, it := range s.Items {
			items[i] = command.Completion{Value: it.Value, Label: it.Label, Description: it.Description}
			if items[i].Label == "" {
				items[i].Label = it.Value
			}
		}
		x.send(extMsg(func(m *model) tea.Cmd {
			if m.ac.seq != seq || m.ed.Text() != full || m.ed.BeforeCursor() != before || m.keyDialog() != nil {
				return nil
			}
			m.complete = &completion{kind: "provider", prefix: s.Prefix, items: items, req: req}
			if force && len(items) == 1 {
				return m.applyCompletion(false)
			}
			return nil
		}))
	}()
}

// applyProviderCompletion applies the chosen item through the chain (off the UI goroutine) and
// puts the result in the editor if the text is still the one the list was made for; submit
// (Enter on a slash command) sends the message then.
func (m *model) applyProviderCompletion(c *completion, it command.Completion, submit bool) tea.Cmd {
	chain := m.ext.autocompleteChain()
	if chain == nil {
		return nil
	}
	full := m.ed.Text()
	before := m.ed.BeforeCursor()
	item := ext.AutocompleteItem{Value: it.Value, Label: it.Label, Description: it.Description}
	x := m.ext
	go func() {
		edit := chain.Apply(c.req, item, c.prefix)
		x.send(extMsg(func(m *model) tea.Cmd {
			if m.ed.Text() != full || m.ed.BeforeCursor() != before {
				return nil
			}
			m.setEditorEdit(c.req, edit)
			m.ext.setMirror(m.ed.Value())
			if submit {
				text := strings.TrimSpace(m.ed.Value())
				if text == "" {
					return nil
				}
				m.ed.AddHistory(text)
				m.ed.Reset()
				return m.submit(text)
			}
			if strings.HasSuffix(item.Value, "/") {
				m.refreshCompletion(false)
			}
			return nil
		}))
	}()
	return nil
}

// setEditorEdit puts a provider's edit into the editor. When only the text before the cursor
// changed (the usual completion), that part is replaced, so paste markers elsewhere survive;
// otherwise the whole text is replaced.
func (m *model) setEditorEdit(req ext.AutocompleteRequest, edit ext.AutocompleteEdit) {
	oldBefore, oldAfter := splitAt(req.Lines, req.CursorLine, req.CursorCol)
	newBefore, newAfter := splitAt(edit.Lines, edit.CursorLine, edit.CursorCol)
	if oldAfter == newAfter {
		ob, nb := []rune(oldBefore), []rune(newBefore)
		p := 0
		for p < len(ob) && p < len(nb) && ob[p] == nb[p] {
			p++
		}
		m.ed.ReplaceBeforeCursor(len(ob)-p, string(nb[p:]))
		return
	}
	m.ed.SetText(strings.Join(edit.Lines, "\n"))
}

// splitAt splits lines joined by newlines at (line, col in runes).
func splitAt(lines []string, line, col int) (before, after string) {
	if len(lines) == 0 {
		return "", ""
	}
	line = min(max(line, 0), len(lines)-1)
	r := []rune(lines[line])
	col = min(max(col, 0), len(r))
	before = strings.Join(append(append([]string{}, lines[:line]...), string(r[:col])), "\n")
	after = strings.Join(append([]string{string(r[col:])}, lines[line+1:]...), "\n")
	return before, after
}

// builtinSlash reports whether prefix is a slash-command name typed as the message's first token
// (an item applied there becomes "/name ").
func builtinSlash(req ext.AutocompleteRequest, prefix string) bool {
	if req.CursorLine != 0 || len(req.Lines) == 0 || !strings.HasPrefix(prefix, "/") || strings.Contains(prefix, " ") {
		return false
	}
	r := []rune(req.Lines[0])
	col := min(max(req.CursorCol, 0), len(r))
	return string(r[:col]) == prefix
}

// builtinProvider is the built-in completion as the bottom of the provider chain.
type builtinProvider struct{ x *extUI }

// TriggerCharacters implements ext.AutocompleteProvider: "@" is built in, nothing extra.
func (builtinProvider) TriggerCharacters() []string { return nil }

// Suggestions implements ext.AutocompleteProvider: the built-in list, computed on the UI
// goroutine (it reads the command registry and the session), extension command arguments asked
// here.
func (b builtinProvider) Suggestions(ctx context.Context, req ext.AutocompleteRequest) *ext.AutocompleteSuggestions {
	before, _ := splitAt(req.Lines, req.CursorLine, req.CursorCol)
	if i := strings.LastIndexByte(before, '\n'); i >= 0 {
		before = before[i+1:]
	}
	full := strings.Join(req.Lines, "\n")
	res := make(chan *completion, 1)
	b.x.send(extMsg(func(m *model) tea.Cmd {
		res <- m.builtinCompletion(before, full, req.Force, false)
		return nil
	}))
	var c *completion
	select {
	case c = <-res:
	case <-ctx.Done():
		return nil
	case <-b.x.endedCh:
		return nil
	}
	if c != nil && c.kind == "extargs" {
		c = argCompletion(c.fetch(c.prefix), c.prefix)
	}
	if c == nil || len(c.items) == 0 {
		return nil
	}
	out := &ext.AutocompleteSuggestions{Prefix: c.prefix, Items: make([]ext.AutocompleteItem, len(c.items))}
	for i, it := range c.items {
		out.Items[i] = ext.AutocompleteItem{Value: it.Value, Label: it.Label, Description: it.Description}
	}
	return out
}

// Apply implements ext.AutocompleteProvider as the built-in list applies its items: a slash
// command becomes "/name ", an @file gets a trailing space (not a directory), anything else
// replaces the prefix.
func (builtinProvider) Apply(req ext.AutocompleteRequest, item ext.AutocompleteItem, prefix string) ext.AutocompleteEdit {
	v := item.Value
	switch {
	case builtinSlash(req, prefix):
		v = "/" + strings.TrimPrefix(v, "/") + " "
	case strings.HasPrefix(v, "@") && !strings.HasSuffix(v, "/"):
		v += " "
	}
	return ext.ReplacePrefix(req, v, prefix)
}

// argCompletion is the list of an extension command's argument completions: each item keeps
// its label (the value when empty) and description.
func argCompletion(values []ext.AutocompleteItem, prefix string) *completion {
	if len(values) == 0 {
		return nil
	}
	items := make([]command.Completion, len(values))
	for i, v := range values {
		label := v.Label
		if label == "" {
			label = v.Value
		}
		items[i] = command.Completion{Value: v.Value, Label: label, Description: v.Description}
	}
	return &completion{kind: "arg", prefix: prefix, items: items}
}
