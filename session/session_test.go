package session

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/store"
)

func textProvider(text string) llm.Provider {
	return llm.ProviderFunc(func(ctx context.Context, req *llm.Request, emit func(llm.Event)) llm.Message {
		b := llm.NewBuilder(req.Model, emit)
		i := b.StartText()
		b.AppendText(i, text)
		return b.Finish(llm.StopStop, req.Model)
	})
}

func entryTypes(st *store.Session) []string {
	var out []string
	for _, e := range st.Entries() {
		t := e.Type
		if e.Message != nil {
			t += ":" + e.Message.Role
		}
		out = append(out, t)
	}
	return out
}

func TestSessionPersistsAndRecordsModelChanges(t *testing.T) {
	dir := t.TempDir()
	st, err := store.Create(dir, filepath.Join(dir, "sessions"), store.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m1 := &llm.Model{ID: "one", Provider: "p", API: "x", Reasoning: true}
	s, err := New(Options{Store: st, Model: m1, ThinkingLevel: "high", Provider: textProvider("hi")})
	if err != nil {
		t.Fatal(err)
	}
	if st.SessionFile() != "" {
		if _, err := os.Stat(st.SessionFile()); err == nil {
			t.Fatal("session file written before the first assistant message")
		}
	}
	if err := s.Prompt(context.Background(), "hello", nil); err != nil {
		t.Fatal(err)
	}
	got := entryTypes(st)
	want := []string{"model_change", "thinking_level_change", "message:user", "message:assistant"}
	if len(got) != len(want) {
		t.Fatalf("entries %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("entries %v, want %v", got, want)
		}
	}

	// Reopen with another model: the context is restored and the change recorded once.
	st2, err := store.Open(st.SessionFile(), "")
	if err != nil {
		t.Fatal(err)
	}
	m2 := &llm.Model{ID: "two", Provider: "p", API: "x"}
	s2, err := New(Options{Store: st2, Model: m2, Provider: textProvider("again")})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(s2.Messages()); n != 2 {
		t.Fatalf("restored %d messages, want 2", n)
	}
	if s2.ThinkingLevel() != llm.ThinkingOff {
		t.Fatalf("thinking not clamped for a non-reasoning model: %s", s2.ThinkingLevel())
	}
	s2.Prompt(context.Background(), "more", nil)
	types := entryTypes(st2)
	tail := types[4:]
	wantTail := []string{"model_change", "thinking_level_change", "message:user", "message:assistant"}
	for i := range wantTail {
		if tail[i] != wantTail[i] {
			t.Fatalf("appended %v, want %v", tail, wantTail)
		}
	}
}
