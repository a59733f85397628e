package store

import (
	"strings"
	"testing"

	"github.com/atomic-cli/atomic/compact"
	"github.com/atomic-cli/atomic/llm"
)

func verbatimDetails() compact.Details {
	return compact.Details{Strategy: compact.Strategy, PromptVersion: compact.PromptVersion, Rung: compact.RungPlanned}
}

func TestBuildContextVerbatimCompaction(t *testing.T) {
	s := InMemory(t.TempDir())
	s.AppendMessage(llm.UserText("old question", nil, 1))
	kept, _ := s.AppendMessage(llm.UserText("kept question", nil, 2))
	s.AppendMessage(llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text("kept answer")}, StopReason: llm.StopStop})
	// A pi summary compaction before the Atomic one is inert.
	if _, err := s.AppendCompaction("pi summary", kept, 10, nil, false); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AppendCompaction("(filtered 2 lines)", kept, 100, verbatimDetails(), false); err != nil {
		t.Fatal(err)
	}
	s.AppendMessage(llm.UserText("after", nil, 3))
	ctx := s.BuildContext()
	if len(ctx.Messages) != 2 || len(ctx.EntryIDs) != 2 {
		t.Fatalf("%d messages, %d ids", len(ctx.Messages), len(ctx.EntryIDs))
	}
	m := ctx.Messages[0]
	want := compact.Preamble + "(filtered 2 lines)\n\n[user]\nkept question\n[assistant]\nkept answer"
	if m.Role != llm.RoleCustom || m.CustomType != "compaction" || !m.Display || llm.TextOf(m.Content, "") != want {
		t.Fatalf("compaction message %+v", m)
	}
	if llm.TextOf(ctx.Messages[1].Content, "") != "after" {
		t.Fatalf("message after the boundary %+v", ctx.Messages[1])
	}
}

func TestBuildContextVerbatimNullFirstKept(t *testing.T) {
	s := InMemory(t.TempDir())
	s.AppendMessage(llm.UserText("question", nil, 1))
	if _, err := s.AppendCompaction("[user]\nquestion", "", 5, verbatimDetails(), true); err != nil {
		t.Fatal(err)
	}
	ctx := s.BuildContext()
	if len(ctx.Messages) != 1 || llm.TextOf(ctx.Messages[0].Content, "") != compact.Preamble+"[user]\nquestion" {
		t.Fatalf("context %+v", ctx.Messages)
	}
	b, _ := s.Entries()[1].MarshalJSON()
	if !strings.Contains(string(b), `"firstKeptEntryId":null`) || !strings.Contains(string(b), `"strategy":"verbatim-lines"`) {
		t.Fatalf("entry %s", b)
	}
}

func TestBuildContextPiCompactionStillApplies(t *testing.T) {
	s := InMemory(t.TempDir())
	s.AppendMessage(llm.UserText("old", nil, 1))
	kept, _ := s.AppendMessage(llm.UserText("kept", nil, 2))
	s.AppendCompaction("pi summary", kept, 10, map[string]any{"readFiles": []string{}}, false)
	ctx := s.BuildContext()
	if len(ctx.Messages) != 2 || ctx.Messages[0].Role != llm.RoleCompactionSummary || ctx.Messages[0].Summary != "pi summary" {
		t.Fatalf("pi context %+v", ctx.Messages)
	}
}
