package llm

import (
	"fmt"
	"sort"
	"strings"
	"sync"
)

// The wire-API registry: each provider package registers the APIs it speaks from its init
// (llm/anthropic: anthropic-messages; llm/openai: openai-completions, openai-responses), so a
// binary speaks exactly the APIs whose packages it links (llm/providers links all of them).
var apis struct {
	mu  sync.RWMutex
	new map[string]func() Provider
}

// RegisterAPI makes newProvider the implementation of the wire API api (a models.json "api"
// value such as "anthropic-messages"). It panics when api is empty, newProvider is nil or api
// is already registered: two implementations of one API is a build error, not a choice.
func RegisterAPI(api string, newProvider func() Provider) {
	if api == "" || newProvider == nil {
		panic("llm.RegisterAPI: an API name and a constructor are required")
	}
	apis.mu.Lock()
	defer apis.mu.Unlock()
	if _, dup := apis.new[api]; dup {
		panic(fmt.Sprintf("llm.RegisterAPI: the %q API is registered twice", api))
	}
	if apis.new == nil {
		apis.new = map[string]func() Provider{}
	}
	apis.new[api] = newProvider
}

// overrides are the providers registered at run time with OverrideAPI (extension providers
// that stream themselves), newest last per API; they win over RegisterAPI's.
var overrides struct {
	mu  sync.RWMutex
	seq int
	by  map[string][]override
}

type override struct {
	id int
	p  Provider
}

// OverrideAPI makes p the implementation of the wire API api, ahead of one registered with
// RegisterAPI, until the returned function is called (then the previous override, or the
// registered API, applies again). It is for providers that extensions implement at run time
// (registerProvider's streamSimple); an empty api or a nil p panics.
func OverrideAPI(api string, p Provider) (remove func()) {
	if api == "" || p == nil {
		panic("llm.OverrideAPI: an API name and a provider are required")
	}
	overrides.mu.Lock()
	defer overrides.mu.Unlock()
	if overrides.by == nil {
		overrides.by = map[string][]override{}
	}
	overrides.seq++
	id := overrides.seq
	overrides.by[api] = append(overrides.by[api], override{id: id, p: p})
	return func() {
		overrides.mu.Lock()
		defer overrides.mu.Unlock()
		list := overrides.by[api]
		for i, o := range list {
			if o.id == id {
				overrides.by[api] = append(list[:i:i], list[i+1:]...)
				break
			}
		}
		if len(overrides.by[api]) == 0 {
			delete(overrides.by, api)
		}
	}
}

// ProviderFor returns the provider for the wire API api: the newest OverrideAPI one, else a new
// one of RegisterAPI, else an error naming the registered APIs.
func ProviderFor(api string) (Provider, error) {
	overrides.mu.RLock()
	if list := overrides.by[api]; len(list) > 0 {
		p := list[len(list)-1].p
		overrides.mu.RUnlock()
		return p, nil
	}
	overrides.mu.RUnlock()
	apis.mu.RLock()
	newProvider := apis.new[api]
	apis.mu.RUnlock()
	if newProvider == nil {
		return nil, fmt.Errorf("the %q API is not supported yet (supported: %s)", api, strings.Join(RegisteredAPIs(), ", "))
	}
	return newProvider(), nil
}

// RegisteredAPIs returns the registered wire APIs, sorted.
func RegisteredAPIs() []string {
	apis.mu.RLock()
	defer apis.mu.RUnlock()
	out := make([]string, 0, len(apis.new))
	for api := range apis.new {
		out = append(out, api)
	}
	sort.Strings(out)
	return out
}
