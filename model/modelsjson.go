package model

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"reflect"
	"strings"

	"github.com/atomic-cli/atomic/llm"
)

// Defaults of a models.json model object (config-and-resources.md §7).
const (
	DefaultContextWindow = 128000
	DefaultMaxTokens     = 16384
)

// providerConfig is one validated provider entry of models.json.
type providerConfig struct {
	id         string
	baseURL    string
	api        string
	apiKey     *string                                                                        // nil: the entry has no apiKey at all
	loginOnly  bool                                                                           // an extension provider with a login and no apiKey: only a stored credential authenticates it
	refresh    func(ctx context.Context, credential json.RawMessage) (json.RawMessage, error) // oauth.refreshToken of an extension provider
	headers    map[string]string
	authHeader bool
	compat     map[string]any
	models     []llm.Model
	rawHeaders map[string]map[string]string // model id -> its own models.json headers
	overrides  map[string]modelPatch
}

// providerEntry is the JSON shape of a provider in models.json.
type providerEntry struct {
	BaseURL        string                `json:"baseUrl"`
	API            string                `json:"api"`
	APIKey         *string               `json:"apiKey"`
	Headers        map[string]string     `json:"headers"`
	AuthHeader     bool                  `json:"authHeader"`
	Compat         map[string]any        `json:"compat"`
	Models         []modelEntry          `json:"models"`
	ModelOverrides map[string]modelPatch `json:"modelOverrides"`
}

// modelPatch holds the model fields that a models.json model or override may set; nil means unset.
type modelPatch struct {
	Name          *string           `json:"name"`
	Reasoning     *bool             `json:"reasoning"`
	Input         []string          `json:"input"`
	ContextWindow *int              `json:"contextWindow"`
	MaxTokens     *int              `json:"maxTokens"`
	Cost          *costPatch        `json:"cost"`
	Headers       map[string]string `json:"headers"`
	Compat        map[string]any    `json:"compat"`
}

type modelEntry struct {
	ID  string `json:"id"`
	API string `json:"api"`
	modelPatch
}

type costPatch struct {
	Input      *float64 `json:"input"`
	Output     *float64 `json:"output"`
	CacheRead  *float64 `json:"cacheRead"`
	CacheWrite *float64 `json:"cacheWrite"`
}

// loadModelsFile reads and validates path. A missing or blank file gives nothing. A file that is
// not valid JSON of the expected shape gives no providers and one error naming the file, the line
// and column and the problem. Entries that are valid JSON but unusable (no id, no baseUrl, no api)
// are skipped with one error each; the rest of the file still applies.
func loadModelsFile(path string) ([]providerConfig, []error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, []error{fmt.Errorf("model: read %s: %w", path, err)}
	}
	return parseModels(path, data)
}

func parseModels(path string, data []byte) ([]providerConfig, []error) {
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	var file struct {
		Providers map[string]providerEntry `json:"providers"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, []error{jsonFileError(path, data, err, "using built-in models only")}
	}
	order, err := objectKeys(data, "providers")
	if err != nil {
		return nil, []error{jsonFileError(path, data, err, "using built-in models only")}
	}
	var (
		out  []providerConfig
		errs []error
	)
	for _, id := range order {
		e := file.Providers[id]
		pc, perrs := validateProvider(path, id, e)
		errs = append(errs, perrs...)
		if pc != nil {
			out = append(out, *pc)
		}
	}
	return out, errs
}

// validateProvider turns one provider entry into a providerConfig, or nil when it is unusable.
func validateProvider(path, id string, e providerEntry) (*providerConfig, []error) {
	var errs []error
	warn := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("model: %s: provider %q: %s", path, id, fmt.Sprintf(format, args...)))
	}
	if id == "" {
		warn("empty provider id; entry skipped")
		return nil, errs
	}
	builtin := isBuiltinProvider(id)
	if !builtin && len(e.Models) == 0 {
		warn("not a built-in provider and has no models; entry skipped (add \"models\")")
		return nil, errs
	}
	if !builtin && e.BaseURL == "" {
		warn("custom provider needs \"baseUrl\"; entry skipped")
		return nil, errs
	}
	pc := &providerConfig{
		id: id, baseURL: e.BaseURL, api: e.API, apiKey: e.APIKey, headers: e.Headers,
		authHeader: e.AuthHeader, compat: e.Compat, overrides: e.ModelOverrides,
	}
	seen := make(map[string]int, len(e.Models))
	for i, me := range e.Models {
		if me.ID == "" {
			warn("model #%d has no \"id\"; skipped", i+1)
			continue
		}
		api := me.API
		if api == "" {
			api = e.API
		}
		if api == "" {
			if !builtin {
				warn("model %q has no \"api\" and the provider sets none; skipped", me.ID)
				continue
			}
			api = builtinProviderAPI(id, me.ID)
		}
		m := llm.Model{
			ID: me.ID, Name: me.ID, API: api, Provider: id, BaseURL: e.BaseURL,
			Input: []string{"text"}, ContextWindow: DefaultContextWindow, MaxTokens: DefaultMaxTokens,
		}
		if len(e.Compat) > 0 {
			m.Compat = maps.Clone(e.Compat)
		}
		applyPatch(&m, me.modelPatch)
		if pc.rawHeaders == nil && len(me.Headers) > 0 {
			pc.rawHeaders = make(map[string]map[string]string)
		}
		if len(me.Headers) > 0 {
			pc.rawHeaders[me.ID] = me.Headers
		}
		if j, dup := seen[me.ID]; dup {
			warn("model %q is listed twice; the later entry wins", me.ID)
			pc.models[j] = m
			continue
		}
		seen[me.ID] = len(pc.models)
		pc.models = append(pc.models, m)
	}
	if !builtin && len(pc.models) == 0 {
		warn("no usable models; entry skipped")
		return nil, errs
	}
	return pc, errs
}

// builtinProviderAPI is the api of a models.json model added to a built-in provider without one.
func builtinProviderAPI(provider, id string) string {
	switch provider {
	case ProviderAnthropic:
		return llm.APIAnthropicMessages
	case ProviderGoogle:
		return llm.APIGoogleGenerativeAI
	}
	return llm.APIOpenAIResponses
}

// applyPatch sets the fields of p that are present on m. Cost fields patch individually; compat
// keys merge over m's (m.Compat is replaced, never mutated). Headers are not stored on m: they are
// unresolved config values, kept by the registry and resolved by Registry.Headers.
func applyPatch(m *llm.Model, p modelPatch) {
	if p.Name != nil {
		m.Name = *p.Name
	}
	if p.Reasoning != nil {
		m.Reasoning = *p.Reasoning
	}
	if p.Input != nil {
		m.Input = append([]string(nil), p.Input...)
	}
	if p.ContextWindow != nil {
		m.ContextWindow = *p.ContextWindow
	}
	if p.MaxTokens != nil {
		m.MaxTokens = *p.MaxTokens
	}
	if c := p.Cost; c != nil {
		setF(&m.Cost.Input, c.Input)
		setF(&m.Cost.Output, c.Output)
		setF(&m.Cost.CacheRead, c.CacheRead)
		setF(&m.Cost.CacheWrite, c.CacheWrite)
	}
	if len(p.Compat) > 0 {
		m.Compat = mergeCompat(m.Compat, p.Compat)
	}
}

func setF(dst *float64, v *float64) {
	if v != nil {
		*dst = *v
	}
}

// mergeCompat returns a new map with over's keys set over base's.
func mergeCompat(base, over map[string]any) map[string]any {
	out := make(map[string]any, len(base)+len(over))
	maps.Copy(out, base)
	maps.Copy(out, over)
	return out
}

func isBuiltinProvider(id string) bool {
	for _, p := range builtinProviders {
		if p == id {
			return true
		}
	}
	return false
}

// objectKeys returns, in file order, the keys of the object under the top-level key name of the
// JSON object data (nil when absent or null). data must already be known to be valid JSON.
func objectKeys(data []byte, name string) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, err
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		if t != name {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, err
			}
			continue
		}
		t, err = dec.Token()
		if err != nil || t != json.Delim('{') {
			return nil, err
		}
		var keys []string
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			keys = append(keys, k.(string))
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, err
			}
		}
		return keys, nil
	}
	return nil, nil
}

// jsonFileError describes a JSON decoding error of the file path with its line and column.
func jsonFileError(path string, data []byte, err error, consequence string) error {
	var (
		syn *json.SyntaxError
		typ *json.UnmarshalTypeError
		off int64 = -1
		msg       = err.Error()
	)
	switch {
	case errors.As(err, &syn):
		// Offset counts the bytes read, the offending one included; at the end of input there is none.
		off = syn.Offset
		if off < int64(len(data)) {
			off = max(off-1, 0)
		}
	case errors.As(err, &typ):
		off = typ.Offset
		if field := strings.ReplaceAll(typ.Field, ".modelPatch", ""); field != "" {
			msg = fmt.Sprintf("%s must be %s, not %s", field, typeName(typ.Type), typ.Value)
		} else {
			msg = fmt.Sprintf("expected %s, found %s", typeName(typ.Type), typ.Value)
		}
	}
	if off >= 0 {
		line, col := lineCol(data, off)
		return fmt.Errorf("model: %s:%d:%d: invalid JSON: %s (%s)", path, line, col, msg, consequence)
	}
	return fmt.Errorf("model: %s: invalid JSON: %s (%s)", path, msg, consequence)
}

// typeName names the JSON type that decodes into t, as a user of the file knows it.
func typeName(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Interface:
		return "a JSON value"
	}
	return "a number"
}

// lineCol converts a byte offset into data to a 1-based line and column (columns count bytes).
func lineCol(data []byte, off int64) (line, col int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	line, col = 1, 1
	for _, c := range data[:off] {
		if c == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col
}
