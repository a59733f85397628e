package session

import (
	"context"
	"testing"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/store"
)

func TestCycleModelWalksTheScopedModels(t *testing.T) {
	a := &llm.Model{ID: "a", Provider: "p", API: "x"}
	b := &llm.Model{ID: "b", Provider: "p", API: "x"}
	c := &llm.Model{ID: "c", Provider: "q", API: "x"}
	rt, err := NewRuntime(context.Background(), Options{Store: store.InMemory(t.TempDir()), Model: a, Provider: textProvider("ok")})
	if err != nil {
		t.Fatal(err)
	}
	// A replay-style session without a registry offers only its own model: nothing to cycle.
	if r, err := rt.Session().CycleModel("forward"); err != nil || r != nil {
		t.Fatalf("unscoped cycle over one model = %v, %v; want nil", r, err)
	}
	rt.SetScopedModels([]*llm.Model{a, c, b})
	var got []string
	for range 3 {
		r, err := rt.Session().CycleModel("forward")
		if err != nil || r == nil || !r.IsScoped {
			t.Fatalf("scoped cycle = %+v, %v", r, err)
		}
		got = append(got, r.Model.ID)
	}
	if g := got[0] + got[1] + got[2]; g != "cba" {
		t.Fatalf("forward cycle order %v, want c b a", got)
	}
	if r, _ := rt.Session().CycleModel("backward"); r.Model.ID != "b" {
		t.Fatalf("backward from a went to %s, want b", r.Model.ID)
	}
	// The scope belongs to the runtime: it survives a new session.
	if _, err := rt.NewSession(context.Background(), ext.NewSessionOptions{}); err != nil {
		t.Fatal(err)
	}
	if len(rt.ScopedModels()) != 3 {
		t.Fatal("the scope was lost on /new")
	}
	rt.SetScopedModels(nil)
	if rt.ScopedModels() != nil {
		t.Fatal("clearing the scope left models")
	}
}
