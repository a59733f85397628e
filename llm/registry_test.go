package llm

import (
	"context"
	"strings"
	"testing"
)

// TestRegisterAPI: a registered API yields a fresh provider; an unknown one an error listing
// the registered APIs; a second registration of one API panics.
func TestRegisterAPI(t *testing.T) {
	const api = "test-registry-api"
	calls := 0
	RegisterAPI(api, func() Provider {
		calls++
		return ProviderFunc(func(context.Context, *Request, func(Event)) Message { return Message{} })
	})
	if _, err := ProviderFor(api); err != nil || calls != 1 {
		t.Fatalf("ProviderFor: err %v, constructor ran %d times", err, calls)
	}
	_, err := ProviderFor("no-such-api")
	if err == nil || !strings.Contains(err.Error(), `the "no-such-api" API is not supported yet`) || !strings.Contains(err.Error(), api) {
		t.Fatalf("unknown API: err %v", err)
	}
	defer func() {
		if p := recover(); p == nil || !strings.Contains(p.(string), `the "test-registry-api" API is registered twice`) {
			t.Fatalf("duplicate registration: recovered %v", p)
		}
	}()
	RegisterAPI(api, func() Provider { return nil })
}

// OverrideAPI wins over RegisterAPI while it lasts; removing it restores the previous one, in
// any order.
func TestOverrideAPI(t *testing.T) {
	mk := func(text string) Provider {
		return ProviderFunc(func(context.Context, *Request, func(Event)) Message {
			return Message{Role: RoleAssistant, ErrorMessage: text}
		})
	}
	const api = "override-test-api"
	if _, err := ProviderFor(api); err == nil {
		t.Fatal("unregistered api resolved")
	}
	removeA := OverrideAPI(api, mk("a"))
	removeB := OverrideAPI(api, mk("b"))
	got := func() string {
		p, err := ProviderFor(api)
		if err != nil {
			return "none"
		}
		return p.Stream(context.Background(), &Request{}, nil).ErrorMessage
	}
	if g := got(); g != "b" {
		t.Fatalf("newest override: %s", g)
	}
	removeB()
	if g := got(); g != "a" {
		t.Fatalf("after removing b: %s", g)
	}
	removeA()
	removeA() // idempotent
	if g := got(); g != "none" {
		t.Fatalf("after removing both: %s", g)
	}
}
