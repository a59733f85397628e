package store

import (
	"bytes"
	"os"
	"reflect"
	"testing"

	"github.com/atomic-cli/atomic/llm"
)

// TestRoundTrip100k: a 100,000-entry session resumed as the agent does (its context built, the
// messages decoded straight into the context) is byte-identical after an append: the file is the
// old bytes plus the new line; every entry re-encodes to its line, and the context holds the
// messages the entries decode to.
func TestRoundTrip100k(t *testing.T) {
	if testing.Short() {
		t.Skip("100,000 entries")
	}
	path, _ := writeRealisticSession(t, t.TempDir(), 100_000)
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(path, "")
	if err != nil {
		t.Fatal(err)
	}
	ctx := s.BuildContext()
	if len(ctx.Messages) == 0 || len(ctx.Messages) != len(ctx.EntryIDs) {
		t.Fatalf("context of %d messages, %d ids", len(ctx.Messages), len(ctx.EntryIDs))
	}
	if _, err := s.AppendMessage(llm.Message{Role: llm.RoleUser, Content: []llm.Content{llm.Text("one more")}, Timestamp: 1}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(after, orig) || bytes.Count(after[len(orig):], []byte("\n")) != 1 {
		t.Fatalf("the file changed beyond one appended line (%d -> %d bytes)", len(orig), len(after))
	}
	r, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := splitLines(after)
	byID := map[string]*Entry{}
	for i, e := range r.Entries() {
		got, err := e.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, lines[i+1]) {
			t.Fatalf("entry %d re-encodes differently:\n got %s\nwant %s", i+1, got, lines[i+1])
		}
		byID[e.ID] = e
	}
	for k, id := range ctx.EntryIDs {
		e := byID[id]
		if e == nil || e.Type != TypeMessage {
			continue
		}
		if !reflect.DeepEqual(*e.Message, ctx.Messages[k]) {
			t.Fatalf("context message %d (entry %s) differs from the entry's decoding", k, id)
		}
	}
}
