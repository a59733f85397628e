package host

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/ext/protocol"
)

// The theme, keybinding, tools-expanded and paste methods (ext/ui_theme.go); outside the
// interactive UI they answer the defaults of ext.ThemeOf and friends.
func init() {
	surface := func(fn func(ui ext.UI, a *protocol.UISurfaceParams) any) handlerFunc {
		return func(s *Supervisor, p *process, params json.RawMessage) (any, error) {
			a, c, err := ctxCall(s, params, func(a *protocol.UISurfaceParams) int64 { return a.Ctx })
			if err != nil {
				return nil, err
			}
			return fn(c.UI(), a), nil
		}
	}
	methods[protocol.MethodUITheme] = surface(func(ui ext.UI, a *protocol.UISurfaceParams) any {
		if a.Name == "" {
			return palette(ext.ThemeOf(ui))
		}
		if t := ext.ThemeNamed(ui, a.Name); t != nil {
			return palette(t)
		}
		return nil
	})
	methods[protocol.MethodUIGetAllThemes] = surface(func(ui ext.UI, _ *protocol.UISurfaceParams) any {
		return append([]ext.ThemeInfo{}, ext.AllThemes(ui)...)
	})
	methods[protocol.MethodUISetTheme] = surface(func(ui ext.UI, a *protocol.UISurfaceParams) any {
		if err := ext.SetTheme(ui, a.Name); err != nil {
			return protocol.SetThemeResult{Error: err.Error()}
		}
		return protocol.SetThemeResult{Success: true}
	})
	methods[protocol.MethodUIKeybindings] = surface(func(ui ext.UI, _ *protocol.UISurfaceParams) any {
		if k, ok := ext.UIAs[ext.KeysUI](ui); ok {
			if b := k.KeyBindings(); b != nil {
				return b
			}
		}
		return map[string][]string{}
	})
	methods[protocol.MethodUIGetToolsExpanded] = surface(func(ui ext.UI, _ *protocol.UISurfaceParams) any {
		return ext.ToolsExpanded(ui)
	})
	methods[protocol.MethodUISetToolsExpanded] = surface(func(ui ext.UI, a *protocol.UISurfaceParams) any {
		ext.SetToolsExpanded(ui, a.Expanded)
		return nil
	})
	methods[protocol.MethodUIPasteToEditor] = surface(func(ui ext.UI, a *protocol.UISurfaceParams) any {
		ext.PasteToEditor(ui, a.Text)
		return nil
	})
}

// palette is t on the wire (never nil maps, so the host can index them).
func palette(t *ext.Theme) protocol.ThemePalette {
	p := protocol.ThemePalette{Name: t.Name, Path: t.Path, ColorMode: t.ColorMode, Fg: t.FgParams, Bg: t.BgParams}
	if p.ColorMode == "" {
		p.ColorMode = "truecolor"
	}
	if p.Fg == nil {
		p.Fg = map[string]string{}
	}
	if p.Bg == nil {
		p.Bg = map[string]string{}
	}
	return p
}

// providerTable records, for each autocomplete provider of the host, the chain it wraps.
type providerTable struct {
	mu    sync.Mutex
	below map[int64]ext.AutocompleteProvider
}

func (t *providerTable) set(id int64, p ext.AutocompleteProvider) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.below == nil {
		t.below = map[int64]ext.AutocompleteProvider{}
	}
	t.below[id] = p
}

func (t *providerTable) get(id int64) ext.AutocompleteProvider {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.below[id]
}

// Bounds of the calls to a host provider: suggestions may search (files, a network), applying
// must be quick. On expiry or failure the chain below answers instead.
const (
	suggestTimeout = 10 * time.Second
	applyTimeout   = 2 * time.Second
)

// remoteProvider is a host's autocomplete provider as the core's chain sees it.
type remoteProvider struct {
	s        *Supervisor
	id       int64
	triggers []string
	below    ext.AutocompleteProvider
}

// TriggerCharacters implements ext.AutocompleteProvider.
func (r *remoteProvider) TriggerCharacters() []string { return r.triggers }

// Suggestions implements ext.AutocompleteProvider: autocomplete.suggest, cancelled with ctx.
// When the host cannot answer (gone, replaced, failed) the chain below does.
func (r *remoteProvider) Suggestions(ctx context.Context, req ext.AutocompleteRequest) *ext.AutocompleteSuggestions {
	p, err := r.s.ensure()
	if err == nil {
		cctx, cancel := context.WithTimeout(ctx, suggestTimeout)
		defer cancel()
		var raw json.RawMessage
		raw, err = p.call(cctx, protocol.MethodAutocompleteSuggest, protocol.AutocompleteParams{Provider: r.id, Lines: req.Lines, CursorLine: req.CursorLine, CursorCol: req.CursorCol, Force: req.Force}, "an autocomplete provider", nil)
		if err == nil {
			var out *ext.AutocompleteSuggestions
			if err = json.Unmarshal(raw, &out); err == nil {
				return out
			}
		}
	}
	if ctx.Err() != nil {
		return nil
	}
	r.s.logf("extension host (%s): autocomplete provider %d: %v (the provider below answers)", r.s.name(), r.id, errorText(err))
	return r.below.Suggestions(ctx, req)
}

// Apply implements ext.AutocompleteProvider: autocomplete.apply, or the chain below's Apply
// when the host cannot answer.
func (r *remoteProvider) Apply(req ext.AutocompleteRequest, item ext.AutocompleteItem, prefix string) ext.AutocompleteEdit {
	p, err := r.s.ensure()
	if err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), applyTimeout)
		defer cancel()
		it := protocol.AutocompleteItem(item)
		var raw json.RawMessage
		raw, err = p.call(ctx, protocol.MethodAutocompleteApply, protocol.AutocompleteParams{Provider: r.id, Lines: req.Lines, CursorLine: req.CursorLine, CursorCol: req.CursorCol, Item: &it, Prefix: prefix}, "an autocomplete provider", nil)
		if err == nil {
			var out ext.AutocompleteEdit
			if err = json.Unmarshal(raw, &out); err == nil && out.Lines != nil {
				return out
			}
		}
	}
	r.s.logf("extension host (%s): autocomplete provider %d: apply: %v (the provider below applies)", r.s.name(), r.id, errorText(err))
	return r.below.Apply(req, item, prefix)
}

func init() {
	decode := func(s *Supervisor, params json.RawMessage) (*protocol.AutocompleteParams, ext.AutocompleteProvider, error) {
		var a protocol.AutocompleteParams
		if err := jsonUnmarshal(params, &a); err != nil {
			return nil, nil, err
		}
		below := s.providers.get(a.Provider)
		if below == nil {
			return nil, nil, protocol.Errorf(protocol.CodeInvalidParams, "no autocomplete provider %d", a.Provider)
		}
		return &a, below, nil
	}
	methods[protocol.MethodUIAddAutocompleteProvider] = func(s *Supervisor, p *process, params json.RawMessage) (any, error) {
		a, c, err := ctxCall(s, params, func(a *protocol.AutocompleteParams) int64 { return a.Ctx })
		if err != nil {
			return nil, err
		}
		var res protocol.AddAutocompleteProviderResult
		ext.AddAutocompleteProvider(c.UI(), func(current ext.AutocompleteProvider) ext.AutocompleteProvider {
			if rp, ok := current.(*remoteProvider); ok && rp.s == s {
				res.Below = rp.id // the host calls its own provider directly
			}
			s.providers.set(a.Provider, current)
			return &remoteProvider{s: s, id: a.Provider, triggers: append([]string(nil), a.TriggerCharacters...), below: current}
		})
		return res, nil
	}
	methods[protocol.MethodUIAutocompleteSuggest] = func(s *Supervisor, p *process, params json.RawMessage) (any, error) {
		a, below, err := decode(s, params)
		if err != nil {
			return nil, err
		}
		ctx, cancel := context.WithTimeout(context.Background(), suggestTimeout)
		defer cancel()
		if r := below.Suggestions(ctx, ext.AutocompleteRequest{Lines: a.Lines, CursorLine: a.CursorLine, CursorCol: a.CursorCol, Force: a.Force}); r != nil {
			return r, nil
		}
		return nil, nil
	}
	methods[protocol.MethodUIAutocompleteApply] = func(s *Supervisor, p *process, params json.RawMessage) (any, error) {
		a, below, err := decode(s, params)
		if err != nil {
			return nil, err
		}
		var item ext.AutocompleteItem
		if a.Item != nil {
			item = ext.AutocompleteItem(*a.Item)
		}
		return below.Apply(ext.AutocompleteRequest{Lines: a.Lines, CursorLine: a.CursorLine, CursorCol: a.CursorCol}, item, a.Prefix), nil
	}
}

func init() {
	editor := func(fn func(s *Supervisor, p *process, ui ext.UI, a *protocol.EditorParams)) handlerFunc {
		return func(s *Supervisor, p *process, params json.RawMessage) (any, error) {
			a, c, err := ctxCall(s, params, func(a *protocol.EditorParams) int64 { return a.Ctx })
			if err != nil {
				return nil, err
			}
			fn(s, p, c.UI(), a)
			return nil, nil
		}
	}
	methods[protocol.MethodUISetEditorComponent] = editor(func(_ *Supervisor, p *process, ui ext.UI, a *protocol.EditorParams) {
		ext.SetEditorComponent(ui, p.remoteFactory(a.Component))
	})
	methods[protocol.MethodUIEditorSubmit] = editor(func(_ *Supervisor, _ *process, ui ext.UI, a *protocol.EditorParams) {
		if e, ok := ext.UIAs[ext.EditorEventsUI](ui); ok {
			e.EditorSubmit(a.Text)
		}
	})
	methods[protocol.MethodUIEditorAction] = editor(func(_ *Supervisor, _ *process, ui ext.UI, a *protocol.EditorParams) {
		if e, ok := ext.UIAs[ext.EditorEventsUI](ui); ok {
			e.EditorAction(a.Action)
		}
	})
	methods[protocol.MethodUIEditorChange] = editor(func(_ *Supervisor, _ *process, ui ext.UI, a *protocol.EditorParams) {
		if e, ok := ext.UIAs[ext.EditorEventsUI](ui); ok {
			e.EditorChanged(a.Text)
		}
	})
}
