package compact

import (
	"encoding/json"
	"strings"

	"github.com/atomic-cli/atomic/llm"
)

// Preamble opens the text of the custom message (customType CustomType) that stands for an
// active verbatim-lines compaction in the LLM context (session-format.md §7,
// VERBATIM_COMPACTION_PREFIX).
const Preamble = "Earlier parts of this conversation were compacted to save context. The transcript below keeps " +
	"the retained lines verbatim; each elided span is marked (filtered N lines).\n\n"

// CustomType is the customType of the context message of an active compaction.
const CustomType = "compaction"

// Strategy is the details.strategy of Atomic compaction entries; only entries with it are active.
const Strategy = "verbatim-lines"

// PromptVersion is details.promptVersion of the entries this package's prompt produces.
const PromptVersion = 3

// Render renders msgs in the transcript grammar, one string per line, with no trailing newline
// on any line. Every message starts with a header line in brackets ("[user]", "[assistant]",
// "[tool result: bash]", …) followed by its text lines; thinking blocks and messages kept out of
// the context (excludeFromContext) are left out, images become "[image: <mime>]" lines, and the
// context message of an earlier compaction contributes its transcript lines without the
// preamble, so compacting twice does not nest.
func Render(msgs []llm.Message) []string {
	var out []string
	for i := range msgs {
		out = RenderMessage(out, &msgs[i])
	}
	return out
}

// RenderMessage appends the transcript lines of m to dst (see Render).
func RenderMessage(dst []string, m *llm.Message) []string {
	if m.ExcludeFromContext && (m.Role == llm.RoleCustom || m.Role == llm.RoleBashExecution) {
		return dst
	}
	switch m.Role {
	case llm.RoleUser:
		dst = append(dst, "[user]")
		dst = contentLines(dst, m.Content)
	case llm.RoleAssistant:
		if m.StopReason == llm.StopError || m.StopReason == llm.StopAborted {
			return dst // failed requests never reach a provider again
		}
		dst = append(dst, "[assistant]")
		for _, c := range m.Content {
			switch c.Type {
			case llm.ContentText:
				dst = splitLines(dst, c.Text)
			case llm.ContentToolCall:
				args, _ := json.Marshal(c.Arguments)
				dst = append(dst, "[tool call: "+c.Name+"] "+string(args))
			}
		}
	case llm.RoleToolResult:
		h := "[tool result: " + m.ToolName + "]"
		if m.IsError {
			h = "[tool error: " + m.ToolName + "]"
		}
		dst = append(dst, h)
		dst = contentLines(dst, m.Content)
	case llm.RoleBashExecution:
		dst = append(dst, "[user bash] $ "+m.Command)
		dst = splitLines(dst, strings.TrimRight(m.Output, "\n"))
	case llm.RoleCustom:
		if m.CustomType == CustomType {
			text := llm.TextOf(m.Content, "\n")
			return splitLines(dst, strings.TrimPrefix(text, Preamble))
		}
		dst = append(dst, "[message: "+m.CustomType+"]")
		dst = contentLines(dst, m.Content)
	case llm.RoleBranchSummary:
		dst = append(dst, "[branch summary]")
		dst = splitLines(dst, m.Summary)
	case llm.RoleCompactionSummary:
		dst = append(dst, "[compaction summary]")
		dst = splitLines(dst, m.Summary)
	}
	return dst
}

func contentLines(dst []string, content []llm.Content) []string {
	for _, c := range content {
		switch c.Type {
		case llm.ContentText:
			dst = splitLines(dst, c.Text)
		case llm.ContentImage:
			dst = append(dst, "[image: "+c.MimeType+"]")
		}
	}
	return dst
}

// splitLines appends the lines of s; "" adds nothing and a trailing newline adds no empty line.
func splitLines(dst []string, s string) []string {
	if s == "" {
		return dst
	}
	s = strings.TrimSuffix(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	for {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			return append(dst, s)
		}
		dst = append(dst, s[:i])
		s = s[i+1:]
	}
}

// EstimateTokens estimates the tokens of text as its length in bytes / 4, rounded up (the
// estimate pi and Atomic use for unmetered text).
func EstimateTokens(text string) int64 { return int64(len(text)+3) / 4 }

// overflowPhrases are fragments of the provider errors that mean the request did not fit the
// context window (Anthropic, OpenAI, OpenAI-compatible servers).
var overflowPhrases = []string{
	"prompt is too long", "context length", "context window", "maximum context", "context_length_exceeded",
	"too many tokens", "exceeds the context", "input is too long", "request too large",
}

// IsOverflow reports whether a provider error message says the context was too long.
func IsOverflow(errorMessage string) bool {
	s := strings.ToLower(errorMessage)
	for _, p := range overflowPhrases {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}
