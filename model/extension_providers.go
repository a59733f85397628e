package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/atomic-cli/atomic/llm"
)

// ProviderConfig is a provider given in code rather than in models.json: the config form of an
// extension's registerProvider(name, config) (seed 004). Its fields are those of a models.json
// provider entry (config-and-resources.md §7); zero values mean "not set".
type ProviderConfig struct {
	// Name is the provider's display name (for /login); it does not change routing.
	Name string `json:"name,omitempty"`
	// BaseURL is the API endpoint. Required for a provider that does not exist yet; for an
	// existing one (built-in, models.json or registered earlier) it re-routes all its models.
	BaseURL string `json:"baseUrl,omitempty"`
	// API is the wire API of the models that do not name their own.
	API string `json:"api,omitempty"`
	// APIKey is a config value: a literal, "$VAR"/"${VAR}" templates or "!command" (§7.1).
	// Empty means no key is configured here (other sources still apply).
	APIKey string `json:"apiKey,omitempty"`
	// Headers are extra request headers (config values) for every model of the provider.
	Headers map[string]string `json:"headers,omitempty"`
	// AuthHeader adds "Authorization: Bearer <apiKey>".
	AuthHeader bool `json:"authHeader,omitempty"`
	// Compat is merged over the compat of every model of the provider.
	Compat map[string]any `json:"compat,omitempty"`
	// Models upsert by id into the provider: a model with an id the provider already has
	// replaces it in place, the others are appended.
	Models []ModelConfig `json:"models,omitempty"`
	// OAuth and Auth say the provider has logins of its own (registerProvider's oauth and
	// auth.apiKey; their functions stay in the extension). A provider with a login and no APIKey
	// is authenticated only by a stored credential (auth.json, from the login).
	OAuth *ProviderLogin `json:"oauth,omitempty"`
	Auth  *ProviderAuth  `json:"auth,omitempty"`

	// Stream, when set, streams the provider's models itself (registerProvider's streamSimple):
	// it implements the wire API API while the registration lasts (llm.OverrideAPI).
	Stream llm.Provider `json:"-"`
	// Login runs the provider's login of kind "oauth" or "api_key" and returns the credential to
	// store in auth.json (a JSON object with its "type"); nil when the provider has none.
	Login func(ctx context.Context, kind string) (json.RawMessage, error) `json:"-"`
	// Refresh runs the provider's oauth.refreshToken with the stored OAuth credential (its
	// auth.json object, provider-specific fields included) and returns the credential that
	// replaces it (a JSON object with type oauth); nil when the provider has none. APIKey calls it
	// when the stored access token has expired.
	Refresh func(ctx context.Context, credential json.RawMessage) (json.RawMessage, error) `json:"-"`
}

// ProviderLogin names a login of a provider (its display name in /login).
type ProviderLogin struct {
	Name string `json:"name,omitempty"`
}

// ProviderAuth holds registerProvider's auth logins: APIKey is provider-owned API-key setup.
type ProviderAuth struct {
	APIKey *ProviderLogin `json:"apiKey,omitempty"`
}

// HasLogin reports whether the config has a login of its own (oauth or auth.apiKey).
func (c *ProviderConfig) HasLogin() bool {
	return c.OAuth != nil || (c.Auth != nil && c.Auth.APIKey != nil)
}

// ModelConfig is one model of a ProviderConfig. Zero values take the models.json defaults: name
// = id, api = the provider's, input ["text"], contextWindow 128000, maxTokens 16384, cost zero.
type ModelConfig struct {
	ID            string            `json:"id"`
	Name          string            `json:"name,omitempty"`
	API           string            `json:"api,omitempty"`
	BaseURL       string            `json:"baseUrl,omitempty"` // overrides the provider's for this model
	Reasoning     bool              `json:"reasoning,omitempty"`
	Input         []string          `json:"input,omitempty"`
	ContextWindow int               `json:"contextWindow,omitempty"`
	MaxTokens     int               `json:"maxTokens,omitempty"`
	Cost          llm.ModelCost     `json:"cost"`
	Headers       map[string]string `json:"headers,omitempty"`
	Compat        map[string]any    `json:"compat,omitempty"`
}

// regState is one immutable view of the merged registry: the built-in catalog with models.json
// (built once) and the providers added at run time layered over it. Readers load it atomically;
// AddProvider and RemoveProvider replace it as a whole.
type regState struct {
	models    []*llm.Model
	providers []string
	configOf  map[string]*providerConfig
	headers   map[string]map[string]string
}

// extProvider is one AddProvider registration, in registration order.
type extProvider struct {
	name string
	cfg  ProviderConfig
}

// view returns the current state, building the base on first use.
func (r *Registry) view() *regState {
	r.buildOne.Do(func() {
		r.build()
		r.cur.Store(&regState{models: r.models, providers: r.providers, configOf: r.configOf, headers: r.headers})
	})
	return r.cur.Load()
}

// AddProvider registers provider name at run time, with the merge semantics of models.json
// (config-and-resources.md §7) layered over the built-in catalog, models.json and earlier
// registrations: for a provider that exists, a BaseURL re-routes all its models, Headers and
// Compat apply to all of them and Models upsert by id; a new provider needs BaseURL and at least
// one model, and follows the existing providers. Registering a name again replaces its earlier
// registration (keeping its place). The change is visible at once to All, Available, Find,
// Resolve, Default, HasAuth, APIKey and Headers. An invalid config changes nothing and returns
// an error saying what is wrong.
func (r *Registry) AddProvider(name string, cfg ProviderConfig) error {
	if strings.TrimSpace(name) == "" {
		return errors.New("model: registerProvider: empty provider name")
	}
	r.view()
	r.extMu.Lock()
	defer r.extMu.Unlock()
	next := slices.Clone(r.ext)
	i := slices.IndexFunc(next, func(e extProvider) bool { return e.name == name })
	if i >= 0 {
		next[i] = extProvider{name: name, cfg: cfg}
	} else {
		next = append(next, extProvider{name: name, cfg: cfg})
	}
	st, err := r.layer(next, name)
	if err != nil {
		return err
	}
	r.ext = next
	r.cur.Store(st)
	return nil
}

// RemoveProvider removes the run-time registration of provider name: a provider that only the
// registration defined disappears with its models, and built-in or models.json providers it
// overrode are restored as they were. A name that was never registered changes nothing.
func (r *Registry) RemoveProvider(name string) {
	r.view()
	r.extMu.Lock()
	defer r.extMu.Unlock()
	i := slices.IndexFunc(r.ext, func(e extProvider) bool { return e.name == name })
	if i < 0 {
		return
	}
	next := slices.Delete(slices.Clone(r.ext), i, i+1)
	st, _ := r.layer(next, "")
	r.ext = next
	r.cur.Store(st)
}

// RegisteredProviders returns the names added with AddProvider, in registration order.
func (r *Registry) RegisteredProviders() []string {
	r.extMu.Lock()
	defer r.extMu.Unlock()
	out := make([]string, len(r.ext))
	for i, e := range r.ext {
		out[i] = e.name
	}
	return out
}

// layer builds the state of the base with exts applied in order. The registration named strict
// must apply (its error is returned); others that no longer fit — an override of a provider
// whose registration was removed — are skipped.
func (r *Registry) layer(exts []extProvider, strict string) (*regState, error) {
	// Start from the base built once from the catalog and models.json (r.models and friends never
	// change after build), not from the current view, so that removed registrations vanish.
	r.view()
	st := &regState{models: r.models, providers: r.providers, configOf: r.configOf, headers: r.headers}
	for _, e := range exts {
		next, err := st.apply(e.name, e.cfg)
		if err != nil {
			if e.name == strict {
				return nil, err
			}
			continue
		}
		st = next
	}
	return st, nil
}

// apply returns a copy of st with cfg layered over provider name. st is not modified.
func (st *regState) apply(name string, cfg ProviderConfig) (*regState, error) {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("model: registerProvider %q: %s", name, fmt.Sprintf(format, args...))
	}
	existing := slices.Contains(st.providers, name)
	var list []*llm.Model
	for _, m := range st.models {
		if m.Provider == name {
			list = append(list, m)
		}
	}
	if !existing {
		if len(cfg.Models) == 0 {
			return nil, fail("unknown provider: give models to define it (a config without models only overrides an existing provider)")
		}
		if cfg.BaseURL == "" {
			return nil, fail("a new provider needs baseUrl")
		}
	}
	old := st.configOf[name]
	// The API of models that name none: the config's, else the existing provider's.
	defAPI := cfg.API
	if defAPI == "" && old != nil {
		defAPI = old.api
	}
	if defAPI == "" && len(list) > 0 {
		defAPI = list[0].API
	}
	providerBase := cfg.BaseURL
	if providerBase == "" && old != nil {
		providerBase = old.baseURL
	}
	if providerBase == "" && len(list) > 0 {
		providerBase = list[0].BaseURL
	}
	seen := make(map[string]bool, len(cfg.Models))
	for i, mc := range cfg.Models {
		switch {
		case mc.ID == "":
			return nil, fail("model #%d has no id", i+1)
		case seen[mc.ID]:
			return nil, fail("model %q is listed twice", mc.ID)
		case mc.API == "" && defAPI == "" && !isBuiltinProvider(name):
			return nil, fail("model %q has no api and the provider sets none", mc.ID)
		}
		seen[mc.ID] = true
	}

	next := &regState{
		providers: st.providers,
		configOf:  maps.Clone(st.configOf),
		headers:   maps.Clone(st.headers),
	}
	if next.configOf == nil {
		next.configOf = make(map[string]*providerConfig)
	}
	if next.headers == nil {
		next.headers = make(map[string]map[string]string)
	}
	if !existing {
		next.providers = append(slices.Clone(st.providers), name)
	}

	// The provider's merged config: what HasAuth, APIKey and Headers read.
	pc := &providerConfig{id: name}
	if old != nil {
		c := *old
		pc = &c
	}
	if cfg.BaseURL != "" {
		pc.baseURL = cfg.BaseURL
	}
	if cfg.API != "" {
		pc.api = cfg.API
	}
	if cfg.APIKey != "" {
		k := cfg.APIKey
		pc.apiKey = &k
	}
	if len(cfg.Headers) > 0 {
		pc.headers = mergeHeaders(pc.headers, cfg.Headers)
	}
	pc.authHeader = pc.authHeader || cfg.AuthHeader
	if cfg.HasLogin() && pc.apiKey == nil {
		pc.loginOnly = true
	}
	if cfg.Refresh != nil {
		pc.refresh = cfg.Refresh
	}
	if len(cfg.Compat) > 0 {
		pc.compat = mergeCompat(pc.compat, cfg.Compat)
	}
	next.configOf[name] = pc

	// Existing models: re-routed, compat merged and provider headers added, as copies.
	out := make([]*llm.Model, 0, len(list)+len(cfg.Models))
	for _, m := range list {
		if cfg.BaseURL != "" || len(cfg.Compat) > 0 {
			c := *m
			if cfg.BaseURL != "" {
				c.BaseURL = cfg.BaseURL
			}
			if len(cfg.Compat) > 0 {
				c.Compat = mergeCompat(c.Compat, cfg.Compat)
			}
			m = &c
		}
		if len(cfg.Headers) > 0 {
			key := modelKey(name, m.ID)
			next.headers[key] = mergeHeaders(next.headers[key], cfg.Headers)
		}
		out = append(out, m)
	}
	// New models upsert by id.
	for _, mc := range cfg.Models {
		m := &llm.Model{
			ID: mc.ID, Name: mc.ID, API: mc.API, Provider: name, BaseURL: providerBase,
			Reasoning: mc.Reasoning, Input: []string{"text"}, ContextWindow: DefaultContextWindow,
			MaxTokens: DefaultMaxTokens, Cost: mc.Cost,
		}
		if mc.Name != "" {
			m.Name = mc.Name
		}
		if m.API == "" {
			m.API = defAPI
		}
		if m.API == "" {
			m.API = builtinProviderAPI(name, mc.ID)
		}
		if mc.BaseURL != "" {
			m.BaseURL = mc.BaseURL
		}
		if len(mc.Input) > 0 {
			m.Input = slices.Clone(mc.Input)
		}
		if mc.ContextWindow > 0 {
			m.ContextWindow = mc.ContextWindow
		}
		if mc.MaxTokens > 0 {
			m.MaxTokens = mc.MaxTokens
		}
		if len(pc.compat) > 0 {
			m.Compat = maps.Clone(pc.compat)
		}
		if len(mc.Compat) > 0 {
			m.Compat = mergeCompat(m.Compat, mc.Compat)
		}
		key := modelKey(name, mc.ID)
		delete(next.headers, key)
		if h := mergeHeaders(mergeHeaders(nil, pc.headers), mc.Headers); len(h) > 0 {
			next.headers[key] = h
		}
		out = upsert(out, m)
	}

	// The flat list keeps provider order, each provider's models together.
	next.models = make([]*llm.Model, 0, len(st.models)+len(cfg.Models))
	for _, p := range next.providers {
		if p == name {
			next.models = append(next.models, out...)
			continue
		}
		for _, m := range st.models {
			if m.Provider == p {
				next.models = append(next.models, m)
			}
		}
	}
	return next, nil
}

// mergeHeaders returns a new map with over's entries set over base's (nil when both are empty).
func mergeHeaders(base, over map[string]string) map[string]string {
	if len(base)+len(over) == 0 {
		return nil
	}
	out := make(map[string]string, len(base)+len(over))
	maps.Copy(out, base)
	maps.Copy(out, over)
	return out
}
