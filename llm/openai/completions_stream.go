package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/llm/sse"
)

// chatChunk is one "chat.completion.chunk" of the stream, or an error object some servers send
// in its place.
type chatChunk struct {
	ID      string          `json:"id"`
	Object  string          `json:"object"`
	Choices []chatChoice    `json:"choices"`
	Usage   *chatUsage      `json:"usage"`
	Error   json.RawMessage `json:"error"`
}

type chatChoice struct {
	Delta struct {
		Content          string          `json:"content"`
		ReasoningContent looseString     `json:"reasoning_content"`
		Reasoning        looseString     `json:"reasoning"`
		ReasoningText    looseString     `json:"reasoning_text"`
		ToolCalls        []chatToolDelta `json:"tool_calls"`
	} `json:"delta"`
	FinishReason string `json:"finish_reason"`
}

type chatToolDelta struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type chatUsage struct {
	PromptTokens        int64 `json:"prompt_tokens"`
	CompletionTokens    int64 `json:"completion_tokens"`
	PromptTokensDetails *struct {
		CachedTokens int64 `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
}

// looseString is a string field that some servers fill with another JSON type; those values are
// ignored instead of failing the chunk.
type looseString string

func (s *looseString) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var v string
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		*s = looseString(v)
	}
	return nil
}

type toolState struct {
	index int    // content index in the Builder
	id    string // the server's id ("" when it sent none)
}

// completionsStream turns chunks into Builder calls. It belongs to one Stream call.
type completionsStream struct {
	b        *llm.Builder
	m        *llm.Model
	tools    map[int]*toolState // by the server's tool_calls index
	last     int                // content index of the block opened last; text and reasoning continue it
	lastType string             // its type; "" before the first block
	finished bool               // a finish_reason arrived
	reason   llm.StopReason
	errMsg   string // set by a finish_reason that is a failure
}

var done = []byte("[DONE]")

func (s *completionsStream) run(ctx context.Context, r *sse.Reader) llm.Message {
	s.b.Start()
	var c chatChunk
	for {
		if ctx.Err() != nil {
			return s.b.Fail("", true, s.m)
		}
		ev, err := r.Next()
		if err != nil {
			if s.finished && ctx.Err() == nil {
				// The answer is whole once finish_reason came; only usage may be missing.
				return s.finish()
			}
			msg, aborted := sse.Failure(ctx, sse.StreamError(err, "data: [DONE]"))
			return s.b.Fail(msg, aborted, s.m)
		}
		data := bytes.TrimSpace(ev.Data)
		if bytes.Equal(data, done) {
			return s.finish()
		}
		if len(data) == 0 {
			continue
		}
		c = chatChunk{}
		if err := json.Unmarshal(data, &c); err != nil {
			return s.b.Fail(fmt.Sprintf("openai: invalid stream chunk: %v: %s", err, clip(data, 200)), false, s.m)
		}
		if len(c.Error) > 0 && string(c.Error) != "null" || c.Object == "error" || ev.Type == "error" {
			return s.b.Fail(streamErrorMessage(data), false, s.m)
		}
		s.chunk(&c)
	}
}

func (s *completionsStream) finish() llm.Message {
	if s.errMsg != "" {
		return s.b.Fail(s.errMsg, false, s.m)
	}
	return s.b.Finish(s.reason, s.m)
}

func (s *completionsStream) chunk(c *chatChunk) {
	if c.ID != "" && s.b.Message().ResponseID == "" {
		s.b.SetResponseID(c.ID)
	}
	if c.Usage != nil {
		cached := int64(0)
		if c.Usage.PromptTokensDetails != nil {
			cached = c.Usage.PromptTokensDetails.CachedTokens
		}
		setUsage(s.b.Usage(), c.Usage.PromptTokens, cached, c.Usage.CompletionTokens)
	}
	if len(c.Choices) == 0 {
		return
	}
	ch := &c.Choices[0]
	d := &ch.Delta
	switch {
	case d.ReasoningContent != "":
		s.thinking(string(d.ReasoningContent), "reasoning_content")
	case d.Reasoning != "":
		s.thinking(string(d.Reasoning), "reasoning")
	case d.ReasoningText != "":
		s.thinking(string(d.ReasoningText), "reasoning_text")
	}
	if d.Content != "" {
		if s.lastType != llm.ContentText {
			s.open(s.b.StartText(), llm.ContentText)
		}
		s.b.AppendText(s.last, d.Content)
	}
	for i := range d.ToolCalls {
		s.toolDelta(i, &d.ToolCalls[i])
	}
	if ch.FinishReason != "" {
		s.finished = true
		s.reason, s.errMsg = finishReason(ch.FinishReason)
	}
}

func (s *completionsStream) open(i int, typ string) { s.last, s.lastType = i, typ }

// thinking appends reasoning, recording as the signature the field it came in so it can be sent
// back in the same field.
func (s *completionsStream) thinking(delta, field string) {
	if s.lastType != llm.ContentThinking {
		s.open(s.b.StartThinking(), llm.ContentThinking)
		s.b.SetSignature(s.last, field)
	}
	s.b.AppendThinking(s.last, delta)
}

// toolDelta applies the pos-th tool call fragment of a chunk. A fragment with a new index, or with
// an id other than the one its index had, opens a new call. Servers that send neither index nor
// id are keyed by position, and a name there starts a new call, since only first fragments
// carry one.
func (s *completionsStream) toolDelta(pos int, d *chatToolDelta) {
	key := pos
	if d.Index != nil {
		key = *d.Index
	}
	t := s.tools[key]
	renamed := t != nil && d.Index == nil && d.ID == "" && d.Function.Name != "" &&
		s.b.Message().Content[t.index].Name != ""
	if t == nil || renamed || d.ID != "" && t.id != "" && d.ID != t.id {
		id := d.ID
		if id == "" {
			id = newCallID()
		}
		t = &toolState{index: s.b.StartToolCall(id, d.Function.Name), id: d.ID}
		s.tools[key] = t
		s.open(t.index, llm.ContentToolCall)
	} else if d.Function.Name != "" {
		if c := &s.b.Message().Content[t.index]; c.Name == "" {
			c.Name = d.Function.Name
		}
	}
	s.b.AppendToolArgs(t.index, d.Function.Arguments)
}

// finishReason maps finish_reason; a reason that is a failure comes with its message. Reasons
// this code does not know are taken as a normal stop, since compatible servers invent their own.
func finishReason(r string) (llm.StopReason, string) {
	switch r {
	case "length":
		return llm.StopLength, ""
	case "tool_calls", "function_call":
		return llm.StopToolUse, ""
	case "content_filter":
		return llm.StopError, "the provider's content filter stopped the response (finish_reason \"content_filter\")"
	default:
		return llm.StopStop, ""
	}
}

// streamErrorMessage is the message of an error object sent in the stream.
func streamErrorMessage(data []byte) string {
	if msg := sse.ErrorMessage(data); msg != "" {
		return msg
	}
	return "openai: the stream reported an error"
}

func clip(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "…"
}
