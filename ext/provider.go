package ext

// Providers registered by extensions (seed 004, "pi.registerProvider(name, config)" and
// "pi.unregisterProvider(name)"; events.md §2: "Providers registered during loading are flushed
// when the runner binds").

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/model"
)

// ProviderConfig is the config form of registerProvider: the fields of a models.json provider
// (baseUrl, apiKey, api, headers, authHeader, compat, models), merged into the model registry
// with the models.json semantics (see model.Registry.AddProvider).
type ProviderConfig = model.ProviderConfig

// ProviderModel is one model of a ProviderConfig.
type ProviderModel = model.ModelConfig

// ErrNoModelRegistry is returned by RegisterProvider and UnregisterProvider after the runner
// bound when neither the session nor SetModelRegistry gives a model registry.
var ErrNoModelRegistry = errors.New("ext: no model registry is bound")

// providerOp is a registration made before the runner bound; cfg nil means unregister.
type providerOp struct {
	ext  *Extension
	name string
	cfg  *ProviderConfig
}

// providerState is the runner's part in the model registry. Lock order: mu, then Runner.mu.
type providerState struct {
	mu       sync.Mutex
	bound    bool
	disposed bool
	pending  []providerOp
	applied  []string // names this runner added to the registry, in order
	reg      *model.Registry
	// streams undo the wire-API overrides of providers that stream themselves, by name;
	// logins are the login functions of providers, by name.
	streams map[string]func()
	logins  map[string]func(ctx context.Context, kind string) (json.RawMessage, error)
}

// SetModelRegistry makes reg the registry that providers registered by extensions join, ahead
// of the host's (Host.ModelRegistry). Commands that load extensions without a session, such as
// --list-models, set it and then call Bind.
func (r *Runner) SetModelRegistry(reg *model.Registry) {
	r.prov.mu.Lock()
	defer r.prov.mu.Unlock()
	r.prov.reg = reg
}

// modelRegistry is the registry providers go to; call with prov.mu held.
func (r *Runner) modelRegistry() *model.Registry {
	if r.prov.reg != nil {
		return r.prov.reg
	}
	if h := r.getHost(); h != nil {
		return h.ModelRegistry()
	}
	return nil
}

// flushProviders applies the registrations queued while loading (at Bind); failures are
// reported as errors of the extension that made them.
func (r *Runner) flushProviders() {
	r.prov.mu.Lock()
	if r.prov.bound || r.prov.disposed {
		r.prov.mu.Unlock()
		return
	}
	r.prov.bound = true
	ops := r.prov.pending
	r.prov.pending = nil
	reg := r.modelRegistry()
	var errs []*Error
	if reg != nil {
		for _, op := range ops {
			if op.cfg == nil {
				r.removeProviderLocked(reg, op.name)
				continue
			}
			if err := r.addProviderLocked(reg, op.name, *op.cfg); err != nil {
				err = fmt.Errorf("extension %s: %w", op.ext.Path, err)
				errs = append(errs, &Error{ExtensionPath: op.ext.Path, Event: "registerProvider", Err: err, Message: err.Error()})
			}
		}
	}
	r.prov.mu.Unlock()
	for _, e := range errs {
		r.report(e)
	}
}

func (r *Runner) addProviderLocked(reg *model.Registry, name string, cfg ProviderConfig) error {
	if cfg.Stream != nil && cfg.API == "" {
		return fmt.Errorf("model: registerProvider %q: a provider that streams itself needs its api", name)
	}
	if err := reg.AddProvider(name, cfg); err != nil {
		return err
	}
	if !slices.Contains(r.prov.applied, name) {
		r.prov.applied = append(r.prov.applied, name)
	}
	if undo := r.prov.streams[name]; undo != nil {
		undo()
		delete(r.prov.streams, name)
	}
	if cfg.Stream != nil {
		if r.prov.streams == nil {
			r.prov.streams = map[string]func(){}
		}
		r.prov.streams[name] = llm.OverrideAPI(cfg.API, cfg.Stream)
	}
	delete(r.prov.logins, name)
	if cfg.Login != nil {
		if r.prov.logins == nil {
			r.prov.logins = map[string]func(context.Context, string) (json.RawMessage, error){}
		}
		r.prov.logins[name] = cfg.Login
	}
	return nil
}

func (r *Runner) removeProviderLocked(reg *model.Registry, name string) {
	reg.RemoveProvider(name)
	r.prov.applied = slices.DeleteFunc(r.prov.applied, func(n string) bool { return n == name })
	if undo := r.prov.streams[name]; undo != nil {
		undo()
		delete(r.prov.streams, name)
	}
	delete(r.prov.logins, name)
}

// ProviderLogin returns the login function of a provider an extension of the runner registered
// with a login (registerProvider's oauth or auth.apiKey), or nil.
func (r *Runner) ProviderLogin(name string) func(ctx context.Context, kind string) (json.RawMessage, error) {
	r.prov.mu.Lock()
	defer r.prov.mu.Unlock()
	return r.prov.logins[name]
}

// disposeProviders removes the providers this runner added (the next runtime's extensions
// register theirs again when it binds) and drops queued registrations.
func (r *Runner) disposeProviders() {
	r.prov.mu.Lock()
	defer r.prov.mu.Unlock()
	if r.prov.disposed {
		return
	}
	r.prov.disposed = true
	r.prov.pending = nil
	if reg := r.modelRegistry(); reg != nil {
		for _, name := range r.prov.applied {
			reg.RemoveProvider(name)
		}
	}
	for _, undo := range r.prov.streams {
		undo()
	}
	r.prov.streams, r.prov.logins = nil, nil
	r.prov.applied = nil
}

// dropPending forgets the queued registrations of e (its factory failed).
func (r *Runner) dropPending(e *Extension) {
	r.prov.mu.Lock()
	defer r.prov.mu.Unlock()
	r.prov.pending = slices.DeleteFunc(r.prov.pending, func(op providerOp) bool { return op.ext == e })
}

// RegisterProvider registers or overrides a model provider (pi.registerProvider). During the
// extension factory the call is queued and applied when the runner binds; afterwards it takes
// effect at once, so Resolve, --list-models and APIKey see the provider without a reload.
func (a *api) RegisterProvider(name string, cfg ProviderConfig) error {
	if strings.TrimSpace(name) == "" {
		return fmt.Errorf("extension %s: registerProvider: empty provider name", a.ext.Path)
	}
	r := a.runner
	r.prov.mu.Lock()
	defer r.prov.mu.Unlock()
	switch {
	case r.prov.disposed:
		return &StaleContextError{Op: "registerProvider"}
	case !r.prov.bound:
		c := cfg
		c.Models = slices.Clone(cfg.Models)
		r.prov.pending = append(r.prov.pending, providerOp{ext: a.ext, name: name, cfg: &c})
		a.onUnload(func() { r.dropPending(a.ext) })
		return nil
	}
	reg := r.modelRegistry()
	if reg == nil {
		return fmt.Errorf("extension %s: registerProvider %q: %w", a.ext.Path, name, ErrNoModelRegistry)
	}
	if err := r.addProviderLocked(reg, name, cfg); err != nil {
		return fmt.Errorf("extension %s: %w", a.ext.Path, err)
	}
	return nil
}

// UnregisterProvider removes a provider registered with RegisterProvider and its models,
// restoring built-in or models.json models it overrode (pi.unregisterProvider). A name that was
// not registered changes nothing. Queued during the factory, like RegisterProvider.
func (a *api) UnregisterProvider(name string) error {
	r := a.runner
	r.prov.mu.Lock()
	defer r.prov.mu.Unlock()
	switch {
	case r.prov.disposed:
		return &StaleContextError{Op: "unregisterProvider"}
	case !r.prov.bound:
		r.prov.pending = append(r.prov.pending, providerOp{ext: a.ext, name: name})
		a.onUnload(func() { r.dropPending(a.ext) })
		return nil
	}
	reg := r.modelRegistry()
	if reg == nil {
		return fmt.Errorf("extension %s: unregisterProvider %q: %w", a.ext.Path, name, ErrNoModelRegistry)
	}
	r.removeProviderLocked(reg, name)
	return nil
}

// onUnload adds fn to what unregisterAll undoes when the extension's factory fails.
func (a *api) onUnload(fn func()) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.unsubs = append(a.unsubs, fn)
}

// Dispose retires the runner (its session was replaced, reloaded or shut down): every workflow
// activity observer is disposed and every publisher fenced, undelivered workflow hooks are
// dropped, and the providers its extensions registered leave the model registry. Idempotent;
// call it before unbinding the host.
func (r *Runner) Dispose() {
	r.WorkflowActivity().dispose()
	r.disposeProviders()
}
