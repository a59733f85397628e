package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/llm/sse"
)

// streamEvent is the union of the Messages API stream events; Type selects the fields that are set.
type streamEvent struct {
	Type    string `json:"type"`
	Index   int    `json:"index"`
	Message *struct {
		ID    string    `json:"id"`
		Usage *apiUsage `json:"usage"`
	} `json:"message"`
	ContentBlock *struct {
		Type     string          `json:"type"`
		Text     string          `json:"text"`
		Thinking string          `json:"thinking"`
		Data     string          `json:"data"`
		ID       string          `json:"id"`
		Name     string          `json:"name"`
		Input    json.RawMessage `json:"input"`
	} `json:"content_block"`
	Delta *struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		Thinking    string `json:"thinking"`
		Signature   string `json:"signature"`
		PartialJSON string `json:"partial_json"`
		StopReason  string `json:"stop_reason"`
	} `json:"delta"`
	Usage *apiUsage `json:"usage"`
	Error *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

type apiUsage struct {
	InputTokens              *int64 `json:"input_tokens"`
	OutputTokens             *int64 `json:"output_tokens"`
	CacheReadInputTokens     *int64 `json:"cache_read_input_tokens"`
	CacheCreationInputTokens *int64 `json:"cache_creation_input_tokens"`
}

// block is the state of one content block of the response, by the API's block index.
type block struct {
	index     int    // content index in the Builder; -1 for block types that are not kept
	signature string // signature_delta fragments so far
	gotArgs   bool   // an input_json_delta arrived
	input     json.RawMessage
}

// streamState turns stream events into Builder calls. It belongs to one Stream call.
type streamState struct {
	b      *llm.Builder
	m      *llm.Model
	blocks []block
	reason llm.StopReason
	errMsg string // set by a stop reason that is a failure
}

func (s *streamState) run(ctx context.Context, r *sse.Reader) llm.Message {
	s.b.Start()
	var ev streamEvent
	for {
		if ctx.Err() != nil {
			return s.b.Fail("", true, s.m)
		}
		e, err := r.Next()
		if err != nil {
			msg, aborted := sse.Failure(ctx, sse.StreamError(err, "message_stop"))
			return s.b.Fail(msg, aborted, s.m)
		}
		if idx, text, ok := fastTextDelta(e.Data); ok {
			if blk := s.block(idx); blk != nil && blk.index >= 0 {
				s.b.AppendText(blk.index, text)
			}
			continue
		}
		ev = streamEvent{}
		if err := json.Unmarshal(e.Data, &ev); err != nil {
			return s.b.Fail(fmt.Sprintf("anthropic: invalid %q stream event: %v", e.Type, err), false, s.m)
		}
		if ev.Type == "" {
			ev.Type = e.Type
		}
		if final, done := s.handle(&ev); done {
			return final
		}
	}
}

// Prefix and suffix of a text delta event exactly as the API writes it.
var (
	textDeltaHead = []byte(`{"type":"content_block_delta","index":`)
	textDeltaMid  = []byte(`,"delta":{"type":"text_delta","text":`)
	textDeltaTail = []byte(`}}`)
)

// fastTextDelta decodes the most frequent event, a text_delta in the API's exact compact form,
// without reflection: the index and the text. ok is false for any other shape, which then goes
// through json.Unmarshal (a stream of deltas costs a fraction of the CPU this way).
func fastTextDelta(data []byte) (index int, text string, ok bool) {
	rest, found := bytes.CutPrefix(data, textDeltaHead)
	if !found {
		return 0, "", false
	}
	n := 0
	for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' && n < 9 {
		index = index*10 + int(rest[n]-'0')
		n++
	}
	if n == 0 {
		return 0, "", false
	}
	rest, found = bytes.CutPrefix(rest[n:], textDeltaMid)
	if !found {
		return 0, "", false
	}
	quoted, found := bytes.CutSuffix(rest, textDeltaTail)
	if !found || len(quoted) < 2 || quoted[0] != '"' || quoted[len(quoted)-1] != '"' {
		return 0, "", false
	}
	inner := quoted[1 : len(quoted)-1]
	if bytes.IndexByte(inner, '\\') < 0 && bytes.IndexByte(inner, '"') < 0 && utf8.Valid(inner) {
		for _, c := range inner {
			if c < 0x20 {
				return 0, "", false
			}
		}
		return index, string(inner), true
	}
	if err := json.Unmarshal(quoted, &text); err != nil {
		return 0, "", false
	}
	return index, text, true
}

// handle applies one event; done reports that the message is final.
func (s *streamState) handle(ev *streamEvent) (final llm.Message, done bool) {
	switch ev.Type {
	case "message_start":
		if ev.Message != nil {
			s.b.SetResponseID(ev.Message.ID)
			s.addUsage(ev.Message.Usage)
		}
	case "content_block_start":
		s.startBlock(ev)
	case "content_block_delta":
		s.delta(ev)
	case "content_block_stop":
		if blk := s.block(ev.Index); blk != nil && blk.index >= 0 {
			if !blk.gotArgs && len(blk.input) > 0 && string(blk.input) != "{}" {
				s.b.AppendToolArgs(blk.index, string(blk.input))
			}
			s.b.End(blk.index)
		}
	case "message_delta":
		s.addUsage(ev.Usage)
		if ev.Delta != nil && ev.Delta.StopReason != "" {
			s.reason, s.errMsg = stopReason(ev.Delta.StopReason)
		}
	case "message_stop":
		if s.errMsg != "" {
			return s.b.Fail(s.errMsg, false, s.m), true
		}
		return s.b.Finish(s.reason, s.m), true
	case "error":
		msg := "anthropic: the stream reported an error"
		if ev.Error != nil {
			msg = ev.Error.Message
			if ev.Error.Type != "" {
				msg = ev.Error.Type + ": " + msg
			}
		}
		return s.b.Fail(msg, false, s.m), true
	}
	return llm.Message{}, false
}

func (s *streamState) block(i int) *block {
	if i < 0 || i >= len(s.blocks) {
		return nil
	}
	return &s.blocks[i]
}

func (s *streamState) startBlock(ev *streamEvent) {
	cb := ev.ContentBlock
	if ev.Index < 0 || cb == nil {
		return
	}
	for len(s.blocks) <= ev.Index {
		s.blocks = append(s.blocks, block{index: -1})
	}
	blk := &s.blocks[ev.Index]
	*blk = block{index: -1}
	switch cb.Type {
	case "text":
		blk.index = s.b.StartText()
		s.b.AppendText(blk.index, cb.Text)
	case "thinking":
		blk.index = s.b.StartThinking()
		s.b.AppendThinking(blk.index, cb.Thinking)
	case "redacted_thinking":
		blk.index = s.b.StartThinking()
		s.b.SetRedacted(blk.index, cb.Data)
	case "tool_use":
		blk.index = s.b.StartToolCall(cb.ID, cb.Name)
		blk.input = cb.Input
	}
}

func (s *streamState) delta(ev *streamEvent) {
	blk := s.block(ev.Index)
	if blk == nil || blk.index < 0 || ev.Delta == nil {
		return
	}
	d := ev.Delta
	switch d.Type {
	case "text_delta":
		s.b.AppendText(blk.index, d.Text)
	case "thinking_delta":
		s.b.AppendThinking(blk.index, d.Thinking)
	case "signature_delta":
		blk.signature += d.Signature
		s.b.SetSignature(blk.index, blk.signature)
	case "input_json_delta":
		blk.gotArgs = true
		s.b.AppendToolArgs(blk.index, d.PartialJSON)
	}
}

// addUsage copies the counts present in u; message_delta repeats only some of them.
func (s *streamState) addUsage(u *apiUsage) {
	if u == nil {
		return
	}
	us := s.b.Usage()
	if u.InputTokens != nil {
		us.Input = *u.InputTokens
	}
	if u.OutputTokens != nil {
		us.Output = *u.OutputTokens
	}
	if u.CacheReadInputTokens != nil {
		us.CacheRead = *u.CacheReadInputTokens
	}
	if u.CacheCreationInputTokens != nil {
		us.CacheWrite = *u.CacheCreationInputTokens
	}
	us.TotalTokens = us.Input + us.Output + us.CacheRead + us.CacheWrite
}

// stopReason maps the API's stop_reason; a reason that is a failure comes with its message.
func stopReason(r string) (llm.StopReason, string) {
	switch r {
	case "end_turn", "stop_sequence", "pause_turn":
		return llm.StopStop, ""
	case "max_tokens", "model_context_window_exceeded":
		return llm.StopLength, ""
	case "tool_use":
		return llm.StopToolUse, ""
	case "refusal":
		return llm.StopError, "the model refused to answer (stop_reason \"refusal\")"
	default:
		return llm.StopError, fmt.Sprintf("anthropic: unexpected stop_reason %q", r)
	}
}
