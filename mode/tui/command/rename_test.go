package command

import (
	"testing"

	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/store"
)

// TestRenameOtherSessionFile: renaming a session that is not the live one appends a session_info
// entry to its file (the picker's ctrl+r).
func TestRenameOtherSessionFile(t *testing.T) {
	dir := t.TempDir()
	st, err := store.Create(dir, dir, store.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.AppendMessage(llm.UserText("hello", nil, 1)); err != nil {
		t.Fatal(err)
	}
	if _, err := st.AppendMessage(llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text("hi")}, StopReason: llm.StopStop}); err != nil {
		t.Fatal(err)
	}
	path := st.SessionFile()
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if err := renameSession(nil, "/other.jsonl", path, "  my name  "); err != nil {
		t.Fatal(err)
	}
	ro, err := store.OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := ro.SessionName(); got != "my name" {
		t.Fatalf("name after rename = %q", got)
	}
}
