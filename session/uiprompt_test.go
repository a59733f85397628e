package session

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/store"
)

// nestingUI answers Confirm by opening a Select inside it (an overlapping prompt).
type nestingUI struct{ ext.NoUI }

func (u nestingUI) Confirm(ctx context.Context, title, msg string) bool { return true }

func TestUIPromptSpansCoalesce(t *testing.T) {
	var mu sync.Mutex
	var got []string
	var ui ext.UI
	factory := func(api ext.API) error {
		ext.On(api, func(c ext.Context, e *ext.UIPromptStart) (ext.None, error) {
			mu.Lock()
			got = append(got, "start "+e.Kind+" "+e.Title)
			mu.Unlock()
			return nil, nil
		})
		ext.On(api, func(c ext.Context, e *ext.UIPromptEnd) (ext.None, error) {
			mu.Lock()
			got = append(got, "end "+e.Kind+" "+e.Title)
			mu.Unlock()
			return nil, nil
		})
		ext.On(api, func(c ext.Context, e *ext.TurnStart) (ext.None, error) {
			ui = c.UI()
			return nil, nil
		})
		return nil
	}
	s, err := New(Options{Store: store.InMemory(t.TempDir()), Model: &llm.Model{ID: "m", Provider: "p", API: "x"},
		Provider: textProvider("ok"), UI: nestingUI{}, Mode: "rpc", Extensions: []ext.Factory{factory}})
	if err != nil {
		t.Fatal(err)
	}
	s.Start(context.Background(), "startup", "")
	if err := s.Prompt(context.Background(), "hi", nil); err != nil {
		t.Fatal(err)
	}
	// An outer confirm with a select opened while it is still open: one span.
	pu := ui.(*promptUI)
	pu.enter("confirm", "Proceed?")
	ui.Select(context.Background(), "Pick", []string{"a"})
	pu.exit()
	ui.Input(context.Background(), "Name", "")
	s.runner.Drain()
	want := "start confirm Proceed?,end confirm Proceed?,start input Name,end input Name"
	if strings.Join(got, ",") != want {
		t.Fatalf("spans %v\nwant %s", got, want)
	}
}
