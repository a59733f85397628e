package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/atomic-cli/atomic/llm"
)

// ErrNoAPIKey is wrapped by APIKey when no credential source yields a key for a provider.
var ErrNoAPIKey = errors.New("no API key")

// Registry is the set of models atomic can use: the built-in catalog merged with models.json, and
// the credentials that make them available (config-and-resources.md §7, §8).
//
// Load reads the files; the merged model list is built on the first query and then changes only
// through AddProvider and RemoveProvider (providers registered at run time), so reload means Load
// again. A Registry is safe for concurrent use: the base list is written once (guarded by
// buildOne), the merged view is replaced atomically, runtime API keys are guarded by mu,
// credentials by the AuthStore.
// Returned models are shared: treat them as read-only and clone before changing one.
type Registry struct {
	dir      string
	configs  []providerConfig // models.json in file order; immutable after Load
	auth     *AuthStore
	buildOne sync.Once

	// Written once by build.
	models    []*llm.Model
	providers []string                     // provider ids: built-ins first, then models.json order
	configOf  map[string]*providerConfig   // provider id -> its models.json entry
	headers   map[string]map[string]string // modelKey -> unresolved header values

	mu      sync.Mutex
	runtime map[string]string     // provider -> key from --api-key; guarded by mu
	speaks  func(api string) bool // guarded by mu; nil: every API

	// Providers added at run time (AddProvider, extension_providers.go): the fields above stay the
	// base; cur is the merged view every query reads, replaced as a whole under extMu.
	cur   atomic.Pointer[regState]
	extMu sync.Mutex
	ext   []extProvider // guarded by extMu

	refreshMu sync.Mutex // serialises OAuth refreshes (refreshOAuth)
}

// OAuthRefreshTimeout bounds one OAuth token refresh (an extension provider's
// oauth.refreshToken).
const OAuthRefreshTimeout = time.Minute

// Load returns the registry of agentDir ("" means AgentDir()): it reads <agentDir>/models.json and
// <agentDir>/auth.json and nothing else. Problems with either file are returned as warnings for the
// caller to print; the registry is always usable — with built-in models only when models.json is
// malformed, without stored credentials when auth.json is.
func Load(agentDir string) (*Registry, []error) {
	if agentDir == "" {
		agentDir = AgentDir()
	}
	r := &Registry{dir: agentDir}
	var errs []error
	r.configs, errs = loadModelsFile(filepath.Join(agentDir, ModelsFile))
	var aerrs []error
	r.auth, aerrs = OpenAuth(filepath.Join(agentDir, AuthFile))
	return r, append(errs, aerrs...)
}

// Dir returns the agent directory the registry was loaded from.
func (r *Registry) Dir() string { return r.dir }

// Auth returns the registry's auth.json store; keys set through it count at once.
func (r *Registry) Auth() *AuthStore { return r.auth }

// modelKey identifies a model across providers.
func modelKey(provider, id string) string { return provider + "\x00" + id }

// build merges the catalog with models.json (config-and-resources.md §7):
//   - built-in providers keep their models; an entry's baseUrl re-routes all of them, its headers
//     apply to all of them and its compat is merged over each model's compat;
//   - models of an entry upsert by id (same id replaces the built-in model in place, others are
//     appended); a model without baseUrl uses the built-in provider's;
//   - modelOverrides patch the provider's models after the upsert; unknown ids are ignored;
//   - custom providers follow the built-in ones in file order.
func (r *Registry) build() {
	r.configOf = make(map[string]*providerConfig, len(r.configs))
	for i := range r.configs {
		r.configOf[r.configs[i].id] = &r.configs[i]
	}
	builtin := BuiltinModels()
	r.models = make([]*llm.Model, 0, len(builtin))
	for _, p := range builtinProviders {
		var list []*llm.Model
		var base string
		for _, m := range builtin {
			if m.Provider == p {
				list = append(list, m)
				base = m.BaseURL
			}
		}
		r.providers = append(r.providers, p)
		pc := r.configOf[p]
		if pc == nil {
			r.models = append(r.models, list...)
			continue
		}
		for _, m := range list {
			if pc.baseURL != "" {
				m.BaseURL = pc.baseURL
			}
			if len(pc.compat) > 0 {
				m.Compat = mergeCompat(m.Compat, pc.compat)
			}
		}
		for i := range pc.models {
			m := pc.models[i]
			if m.BaseURL == "" {
				m.BaseURL = base
			}
			list = upsert(list, &m)
		}
		r.models = append(r.models, r.finish(pc, list)...)
	}
	for i := range r.configs {
		pc := &r.configs[i]
		if isBuiltinProvider(pc.id) {
			continue
		}
		list := make([]*llm.Model, len(pc.models))
		for j := range pc.models {
			m := pc.models[j]
			list[j] = &m
		}
		r.providers = append(r.providers, pc.id)
		r.models = append(r.models, r.finish(pc, list)...)
	}
}

// finish applies pc's modelOverrides to list and records each model's unresolved headers.
func (r *Registry) finish(pc *providerConfig, list []*llm.Model) []*llm.Model {
	for _, m := range list {
		p, patched := pc.overrides[m.ID]
		if patched {
			applyPatch(m, p)
		}
		var h map[string]string
		for _, src := range []map[string]string{pc.headers, pc.rawHeaders[m.ID], p.Headers} {
			if len(src) == 0 {
				continue
			}
			if h == nil {
				h = make(map[string]string, len(src))
			}
			maps.Copy(h, src)
		}
		if h != nil {
			if r.headers == nil {
				r.headers = make(map[string]map[string]string)
			}
			r.headers[modelKey(m.Provider, m.ID)] = h
		}
	}
	return list
}

// upsert replaces the model with m's id in list, or appends m.
func upsert(list []*llm.Model, m *llm.Model) []*llm.Model {
	for i, old := range list {
		if old.ID == m.ID {
			list[i] = m
			return list
		}
	}
	return append(list, m)
}

func (r *Registry) ensure() *regState { return r.view() }

// All returns every known model: built-in providers (anthropic, openai, google) first, then the
// custom providers of models.json in file order; within a provider, catalog or file order. The
// slice is fresh; the models are shared.
func (r *Registry) All() []*llm.Model {
	st := r.ensure()
	return append([]*llm.Model(nil), st.models...)
}

// Providers returns the provider ids of All in the same order, each once.
func (r *Registry) Providers() []string {
	st := r.ensure()
	return append([]string(nil), st.providers...)
}

// Available returns the models of All whose provider HasAuth, in the same order
// (config-and-resources.md §8: only these are listed by --list-models and selectable over RPC).
func (r *Registry) Available() []*llm.Model {
	st := r.ensure()
	var out []*llm.Model
	has := make(map[string]bool, len(st.providers))
	for _, m := range st.models {
		ok, seen := has[m.Provider]
		if !seen {
			ok = r.HasAuth(m.Provider)
			has[m.Provider] = ok
		}
		if ok {
			out = append(out, m)
		}
	}
	return out
}

// Find returns the model with exactly this provider and id, or nil.
func (r *Registry) Find(provider, id string) *llm.Model {
	st := r.ensure()
	for _, m := range st.models {
		if m.Provider == provider && m.ID == id {
			return m
		}
	}
	return nil
}

// SetRuntimeAPIKey makes key the provider's API key for the life of the registry, ahead of every
// other source (--api-key; never persisted). An empty key removes the override.
func (r *Registry) SetRuntimeAPIKey(provider, key string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if key == "" {
		delete(r.runtime, provider)
		return
	}
	if r.runtime == nil {
		r.runtime = make(map[string]string)
	}
	r.runtime[provider] = key
}

func (r *Registry) runtimeKey(provider string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.runtime[provider]
}

// HasAuth reports whether provider has configured auth (config-and-resources.md §8): a runtime key,
// an auth.json api_key whose value can resolve or an unexpired OAuth token, a set provider
// environment variable (EnvVars), a models.json apiKey that can resolve — or a models.json entry
// with a baseUrl and no apiKey at all, as local servers need no key (but not a provider an
// extension registered with a login of its own and no apiKey: it needs the login's credential).
// It runs no commands: a "!command" value counts as configured.
func (r *Registry) HasAuth(provider string) bool {
	st := r.ensure()
	if r.runtimeKey(provider) != "" {
		return true
	}
	if c, ok := r.auth.Get(provider); ok {
		switch c.Type {
		case CredentialAPIKey:
			if valueConfigured(c.Key, c.Env) {
				return true
			}
		case CredentialOAuth:
			if oauthUsable(c, time.Now()) {
				return true
			}
			if pc := st.configOf[provider]; pc != nil && pc.refresh != nil && c.Refresh != "" {
				return true // APIKey refreshes it
			}
		}
	}
	for _, v := range EnvVars(provider) {
		if os.Getenv(v) != "" {
			return true
		}
	}
	if pc := st.configOf[provider]; pc != nil {
		if pc.apiKey == nil {
			return pc.baseURL != "" && !pc.loginOnly
		}
		return valueConfigured(*pc.apiKey, nil)
	}
	return false
}

// refreshOAuth refreshes provider's expired OAuth credential with refresh, as pi's auth storage
// does: one refresh at a time, across processes too (auth.json's lock, shared with pi, is held
// from the re-read to the write; waiting for it is bounded by AuthLockWait); the file is read again first, and a credential another process
// refreshed meanwhile is used as it is; otherwise refresh gets the stored object and its answer
// (type oauth, with an access token) replaces it in auth.json. The call is bounded by
// OAuthRefreshTimeout. It returns the new access token; errors name the provider and the file,
// and leave the stored credential as it was (a later login or refresh can still use it).
func (r *Registry) refreshOAuth(provider string, refresh func(context.Context, json.RawMessage) (json.RawMessage, error)) (string, error) {
	r.refreshMu.Lock()
	defer r.refreshMu.Unlock()
	if err := os.MkdirAll(filepath.Dir(r.auth.Path()), 0o700); err != nil {
		return "", fmt.Errorf("refresh the OAuth token of %s: %w", provider, err)
	}
	unlock, err := r.auth.lock()
	if err != nil {
		return "", fmt.Errorf("refresh the OAuth token of %s: %w", provider, err)
	}
	defer unlock()
	c, raw, ok, err := r.auth.Reread(provider)
	if err != nil {
		return "", fmt.Errorf("refresh the OAuth token of %s: %w", provider, err)
	}
	if !ok || c.Type != CredentialOAuth {
		return "", fmt.Errorf("refresh the OAuth token of %s: %s no longer holds an OAuth credential for it", provider, r.auth.Path())
	}
	if oauthUsable(c, time.Now()) {
		return c.Access, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), OAuthRefreshTimeout)
	defer cancel()
	next, err := refresh(ctx, raw)
	if err == nil && ctx.Err() != nil {
		err = fmt.Errorf("no answer within %v", OAuthRefreshTimeout)
	}
	if err != nil {
		return "", fmt.Errorf("refresh the OAuth token of %s (%s; log in again if it keeps failing): %w", provider, r.auth.Path(), err)
	}
	var nc Credential
	if json.Unmarshal(next, &nc) != nil || nc.Type != CredentialOAuth || nc.Access == "" {
		return "", fmt.Errorf("refresh the OAuth token of %s: the refresh returned no OAuth credential with an access token", provider)
	}
	if err := r.auth.setCredential(provider, next, false); err != nil {
		return "", fmt.Errorf("refresh the OAuth token of %s: %w", provider, err)
	}
	return nc.Access, nil
}

// oauthUsable reports whether c's access token may be sent at now; expires 0 means no expiry known.
func oauthUsable(c Credential, now time.Time) bool {
	return c.Access != "" && (c.Expires == 0 || now.UnixMilli() < c.Expires)
}

// APIKey returns the key to send to provider, trying in order (config-and-resources.md §8):
// the runtime key (SetRuntimeAPIKey), the auth.json api_key (resolved by ResolveValue), the
// auth.json OAuth access token while unexpired — an expired one is refreshed first when the
// provider has a refresh (an extension's oauth.refreshToken; see refreshOAuth) —, the provider's environment
// variables (EnvVars), the models.json apiKey (resolved). A source that fails to resolve is
// skipped. A models.json provider with a baseUrl and no apiKey yields "" and no error (not an
// extension provider with a login of its own: it needs the login's credential). Otherwise
// the error wraps ErrNoAPIKey and says what to set, including why skipped sources failed.
// Commands in values run on every call.
func (r *Registry) APIKey(provider string) (string, error) {
	st := r.ensure()
	if k := r.runtimeKey(provider); k != "" {
		return k, nil
	}
	var notes []string
	if c, ok := r.auth.Get(provider); ok {
		switch c.Type {
		case CredentialAPIKey:
			k, err := resolveValue(c.Key, c.Env)
			if err == nil {
				return k, nil
			}
			notes = append(notes, fmt.Sprintf("%s key: %v", r.auth.Path(), err))
		case CredentialOAuth:
			if oauthUsable(c, time.Now()) {
				return c.Access, nil
			}
			if pc := st.configOf[provider]; pc != nil && pc.refresh != nil && c.Refresh != "" {
				k, err := r.refreshOAuth(provider, pc.refresh)
				if err == nil {
					return k, nil
				}
				notes = append(notes, err.Error())
			} else if c.Access == "" {
				notes = append(notes, fmt.Sprintf("%s OAuth credential has no access token", r.auth.Path()))
			} else {
				notes = append(notes, fmt.Sprintf("%s OAuth token expired at %s (the provider has no token refresh; log in again)",
					r.auth.Path(), time.UnixMilli(c.Expires).Format(time.RFC3339)))
			}
		default:
			notes = append(notes, fmt.Sprintf("%s credential has unknown type %q", r.auth.Path(), c.Type))
		}
	}
	vars := EnvVars(provider)
	for _, v := range vars {
		if k := os.Getenv(v); k != "" {
			return k, nil
		}
	}
	if pc := st.configOf[provider]; pc != nil {
		if pc.apiKey == nil {
			if pc.baseURL != "" && !pc.loginOnly {
				return "", nil
			}
		} else {
			k, err := resolveValue(*pc.apiKey, nil)
			if err == nil {
				return k, nil
			}
			notes = append(notes, fmt.Sprintf("%s apiKey: %v", filepath.Join(r.dir, ModelsFile), err))
		}
	}
	var how string
	if len(vars) > 0 {
		how = "set " + strings.Join(vars, " or ") + ", "
	}
	var why string
	if len(notes) > 0 {
		why = " (" + strings.Join(notes, "; ") + ")"
	}
	return "", fmt.Errorf("model: %w for provider %q: %sstore one as %s in %s, or pass --api-key%s",
		ErrNoAPIKey, provider, how, `{"type":"api_key","key":"..."}`, r.auth.Path(), why)
}

// Headers returns the extra HTTP headers to send for m: its provider's and its own models.json
// headers with modelOverrides applied, each value resolved by ResolveValue and dropped when it
// resolves to nothing; plus "Authorization: Bearer <key>" when the provider sets authHeader and
// APIKey yields a key. These unresolved values are kept out of m.Headers so that a provider never
// sends a "$VAR" or "!command" verbatim; pass the result as llm.Request.Headers. nil when none.
func (r *Registry) Headers(m *llm.Model) map[string]string {
	st := r.ensure()
	if m == nil {
		return nil
	}
	var out map[string]string
	for name, raw := range st.headers[modelKey(m.Provider, m.ID)] {
		v, err := ResolveValue(raw)
		if err != nil {
			continue
		}
		if out == nil {
			out = make(map[string]string)
		}
		out[name] = v
	}
	if pc := st.configOf[m.Provider]; pc != nil && pc.authHeader {
		if k, err := r.APIKey(m.Provider); err == nil && k != "" {
			if out == nil {
				out = make(map[string]string)
			}
			out["Authorization"] = "Bearer " + k
		}
	}
	return out
}

// SetAPIFilter tells the registry which wire APIs the caller can speak: Default skips providers
// whose models use another API, and its "no models" advice names only those providers' keys.
// nil accepts every API.
func (r *Registry) SetAPIFilter(speaks func(api string) bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.speaks = speaks
}

func (r *Registry) speaksAPI(api string) bool {
	r.mu.Lock()
	f := r.speaks
	r.mu.Unlock()
	return f == nil || f(api)
}
