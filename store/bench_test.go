package store

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atomic-cli/atomic/llm"
)

// writeRealisticSession writes a session of n entries shaped like a coding session: a user
// prompt, then rounds of an assistant message (thinking, text, one or two tool calls with usage)
// followed by tool results of a few hundred bytes to a few KB, an occasional model or thinking
// change, label and compaction. It returns the path and the file size in bytes.
func writeRealisticSession(tb testing.TB, dir string, n int) (string, int64) {
	tb.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("the quick brown fox jumps over a lazy dog while reading main.go and fixing " +
		"tests in store package func return error nil if else for range struct interface")
	text := func(min, max int) string {
		k := min + rng.IntN(max-min+1)
		var b strings.Builder
		for b.Len() < k {
			b.WriteString(words[rng.IntN(len(words))])
			if rng.IntN(12) == 0 {
				b.WriteString(".\n")
			} else {
				b.WriteByte(' ')
			}
		}
		return b.String()
	}
	h := Header{Type: TypeSession, Version: CurrentVersion, ID: NewSessionID(), Timestamp: "2026-05-01T09:30:12.345Z",
		Cwd: "/home/dev/project"}
	buf := h.appendJSON(nil)
	buf = append(buf, '\n')
	t0 := time.Date(2026, 5, 1, 9, 30, 13, 0, time.UTC)
	taken := map[string]bool{}
	var parent *string
	var ids []string
	pendingCalls := 0
	for i := 0; i < n; i++ {
		ts := t0.Add(time.Duration(i) * 700 * time.Millisecond)
		e := &Entry{Timestamp: isoTime(ts), ParentID: parent}
		e.ID = newEntryID(func(id string) bool { return taken[id] })
		taken[e.ID] = true
		ms := ts.UnixMilli()
		switch {
		case i == 0:
			e.Type, e.Provider, e.ModelID = TypeModelChange, "anthropic", "claude-sonnet-4-5"
		case i == 1:
			e.Type, e.ThinkingLevel = TypeThinkingLevelChange, "medium"
		case i%5000 == 2499 && len(ids) > 10:
			kept := ids[len(ids)-10]
			e.Type, e.Summary, e.FirstKeptEntryID, e.TokensBefore = TypeCompaction, text(1500, 3000), &kept, 150000
			e.Details = []byte(`{"readFiles":["main.go","store/session.go"],"modifiedFiles":["store/session.go"]}`)
			f := false
			e.FromHook = &f
		case i%997 == 0:
			l := "checkpoint"
			e.Type, e.TargetID, e.Label = TypeLabel, ids[rng.IntN(len(ids))], &l
		case pendingCalls > 0:
			pendingCalls--
			m := llm.Message{Role: llm.RoleToolResult, ToolCallID: fmt.Sprintf("toolu_%d", i), ToolName: "read",
				Content: []llm.Content{llm.Text(text(200, 2500))}, Timestamp: ms}
			e.Type, e.Message = TypeMessage, &m
		case i%8 == 2:
			m := llm.UserText(text(40, 400), nil, ms)
			e.Type, e.Message = TypeMessage, &m
		default:
			calls := 1 + rng.IntN(2)
			content := []llm.Content{{Type: llm.ContentThinking, Thinking: text(50, 300), ThinkingSignature: "sig" + text(40, 60)},
				llm.Text(text(20, 300))}
			for c := 0; c < calls; c++ {
				content = append(content, llm.Content{Type: llm.ContentToolCall, ID: fmt.Sprintf("toolu_%d_%d", i, c),
					Name: "read", Arguments: map[string]any{"path": "store/session.go", "offset": 10}})
			}
			m := llm.Message{Role: llm.RoleAssistant, Content: content, API: "anthropic-messages", Provider: "anthropic",
				Model: "claude-sonnet-4-5", StopReason: llm.StopToolUse, Timestamp: ms,
				Usage: llm.Usage{Input: 12000, Output: 300, CacheRead: 10000, TotalTokens: 22300,
					Cost: llm.Cost{Input: 0.036, Output: 0.0045, CacheRead: 0.003, Total: 0.0435}}}
			e.Type, e.Message = TypeMessage, &m
			pendingCalls = calls
		}
		var err error
		if buf, err = e.appendJSON(buf); err != nil {
			tb.Fatal(err)
		}
		buf = append(buf, '\n')
		id := e.ID
		parent = &id
		ids = append(ids, id)
	}
	path := filepath.Join(dir, FileName(h.Timestamp, h.ID))
	if err := os.WriteFile(path, buf, 0o600); err != nil {
		tb.Fatal(err)
	}
	return path, int64(len(buf))
}

func BenchmarkLoad100k(b *testing.B) {
	path, size := writeRealisticSession(b, b.TempDir(), 100_000)
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		s, err := Open(path, "")
		if err != nil {
			b.Fatal(err)
		}
		if s.LeafID() == "" {
			b.Fatal("no leaf")
		}
	}
}

// BenchmarkLoadAndContext100k is the cost of resuming: load plus the context of the leaf, which
// decodes every message after the last compaction.
func BenchmarkLoadAndContext100k(b *testing.B) {
	path, size := writeRealisticSession(b, b.TempDir(), 100_000)
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		s, err := Open(path, "")
		if err != nil {
			b.Fatal(err)
		}
		if len(s.BuildContext().Messages) == 0 {
			b.Fatal("empty context")
		}
	}
}

// BenchmarkEntries100k is the cost of handing every entry to a front-end (decodes all messages).
func BenchmarkEntries100k(b *testing.B) {
	path, _ := writeRealisticSession(b, b.TempDir(), 100_000)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		s, err := Open(path, "")
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if len(s.Entries()) != 100_000 {
			b.Fatal("entries")
		}
	}
}

func BenchmarkAppend(b *testing.B) {
	s, err := Create("/home/dev/project", b.TempDir(), CreateOptions{})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := s.AppendMessage(assistantMsg("first", 1)); err != nil {
		b.Fatal(err)
	}
	m := llm.Message{Role: llm.RoleToolResult, ToolCallID: "toolu_1", ToolName: "bash",
		Content: []llm.Content{llm.Text(strings.Repeat("output line\n", 40))}, Timestamp: 1}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.AppendMessage(m); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkIndex100k is the minimal index a resume builds: the lazy parse (every line validated,
// message entries kept as records into the file buffer) and the session's id index and parent
// links, without reading the file.
func BenchmarkIndex100k(b *testing.B) {
	path, size := writeRealisticSession(b, b.TempDir(), 100_000)
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		fd, err := parseSession(data, true)
		if err != nil {
			b.Fatal(err)
		}
		s := newSession("", "", false)
		s.install(path, fd)
		if s.leaf == nil || s.entries[len(s.entries)/2] != nil && s.entries[len(s.entries)/2].Type == TypeMessage {
			b.Fatal("no leaf, or a message entry materialized")
		}
	}
}

// BenchmarkParse100k isolates parsing (eager: every entry an Entry) from file reading and indexing.
func BenchmarkParse100k(b *testing.B) {
	path, size := writeRealisticSession(b, b.TempDir(), 100_000)
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := parseSession(data, false); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkContextInfo100k is what a resume costs before the context is built: the model,
// thinking level and emptiness of the leaf's context (no message decoded but the first).
func BenchmarkContextInfo100k(b *testing.B) {
	path, _ := writeRealisticSession(b, b.TempDir(), 100_000)
	s, err := Open(path, "")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if info, empty := s.ContextInfo(); empty || info.Model == nil {
			b.Fatal("empty context info")
		}
	}
}

// BenchmarkDecodeMessage is the decoder's inner loop: every message of a 100,000-entry session
// decoded from its raw bytes into an llm.Message (decodeMessageInto), without loading.
func BenchmarkDecodeMessage(b *testing.B) {
	path, _ := writeRealisticSession(b, b.TempDir(), 100_000)
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	fd, err := parseSession(data, false)
	if err != nil {
		b.Fatal(err)
	}
	var raws [][]byte
	var size int64
	for _, e := range fd.entries {
		if e.msgRaw != nil {
			raws = append(raws, e.msgRaw)
			size += int64(len(e.msgRaw))
		}
	}
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, raw := range raws {
			var m llm.Message
			if !decodeMessageInto(&m, raw) {
				b.Fatal("message not decoded on the fast path")
			}
		}
	}
}
