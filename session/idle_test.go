package session

import (
	"context"
	"testing"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/store"
)

// A message sent while idle without a turn is saved exactly once.
func TestIdleMessageSavedOnce(t *testing.T) {
	st := store.InMemory(t.TempDir())
	s, err := New(Options{Store: st, Model: &llm.Model{ID: "m", Provider: "p", API: "x"}, Provider: textProvider("ok")})
	if err != nil {
		t.Fatal(err)
	}
	s.Start(context.Background(), "startup", "")
	if err := s.SendMessage(context.Background(), []ext.CustomMessage{{CustomType: "note", Content: []llm.Content{llm.Text("hi")}, Display: true}}, ext.SendOptions{}); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range st.Entries() {
		if e.Type == store.TypeCustomMessage {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d custom_message entries, want 1", n)
	}
	if got := len(s.Messages()); got != 1 {
		t.Fatalf("context has %d messages, want 1", got)
	}
}
