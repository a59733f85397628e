package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/llm/sse"
)

// respEvent is the union of the Responses stream events; Type selects the fields that are set.
type respEvent struct {
	Type        string          `json:"type"`
	OutputIndex int             `json:"output_index"`
	Delta       string          `json:"delta"`
	Arguments   string          `json:"arguments"`
	Item        json.RawMessage `json:"item"`
	Response    *respResponse   `json:"response"`
	Code        looseString     `json:"code"`
	Message     string          `json:"message"`
}

type respItem struct {
	Type      string `json:"type"`
	ID        string `json:"id"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	Summary   []struct {
		Text string `json:"text"`
	} `json:"summary"`
	Content []struct {
		Type    string `json:"type"`
		Text    string `json:"text"`
		Refusal string `json:"refusal"`
	} `json:"content"`
}

type respResponse struct {
	ID                string `json:"id"`
	Status            string `json:"status"`
	IncompleteDetails *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
	Error *struct {
		Code    looseString `json:"code"`
		Message string      `json:"message"`
	} `json:"error"`
	Usage *struct {
		InputTokens        int64 `json:"input_tokens"`
		OutputTokens       int64 `json:"output_tokens"`
		InputTokensDetails *struct {
			CachedTokens int64 `json:"cached_tokens"`
		} `json:"input_tokens_details"`
	} `json:"usage"`
}

// itemState is one output item being streamed, by its output_index.
type itemState struct {
	index   int    // content index in the Builder
	kind    string // "reasoning", "message" or "function_call"
	gotArgs bool   // arguments were appended
}

// responsesStream turns Responses events into Builder calls. It belongs to one Stream call.
type responsesStream struct {
	b     *llm.Builder
	m     *llm.Model
	items map[int]*itemState
}

func (s *responsesStream) run(ctx context.Context, r *sse.Reader) llm.Message {
	s.b.Start()
	var ev respEvent
	for {
		if ctx.Err() != nil {
			return s.b.Fail("", true, s.m)
		}
		e, err := r.Next()
		if err != nil {
			msg, aborted := sse.Failure(ctx, sse.StreamError(err, "response.completed"))
			return s.b.Fail(msg, aborted, s.m)
		}
		ev = respEvent{}
		if err := json.Unmarshal(e.Data, &ev); err != nil {
			return s.b.Fail(fmt.Sprintf("openai: invalid %q stream event: %v: %s", e.Type, err, clip(e.Data, 200)), false, s.m)
		}
		if ev.Type == "" {
			ev.Type = e.Type
		}
		if final, done := s.handle(&ev); done {
			return final
		}
	}
}

// handle applies one event; done reports that the message is final.
func (s *responsesStream) handle(ev *respEvent) (final llm.Message, done bool) {
	switch ev.Type {
	case "response.created", "response.in_progress":
		if ev.Response != nil && ev.Response.ID != "" {
			s.b.SetResponseID(ev.Response.ID)
		}
	case "response.output_item.added":
		var item respItem
		if err := json.Unmarshal(ev.Item, &item); err != nil {
			return s.b.Fail(fmt.Sprintf("openai: invalid output item: %v", err), false, s.m), true
		}
		s.addItem(ev.OutputIndex, &item)
	case "response.output_text.delta", "response.refusal.delta":
		if it := s.item(ev.OutputIndex, "message"); it != nil {
			s.b.AppendText(it.index, ev.Delta)
		}
	case "response.reasoning_summary_part.added":
		if it := s.item(ev.OutputIndex, "reasoning"); it != nil && s.b.Message().Content[it.index].Thinking != "" {
			s.b.AppendThinking(it.index, "\n\n")
		}
	case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
		if it := s.item(ev.OutputIndex, "reasoning"); it != nil {
			s.b.AppendThinking(it.index, ev.Delta)
		}
	case "response.function_call_arguments.delta":
		if it := s.item(ev.OutputIndex, "function_call"); it != nil {
			it.gotArgs = true
			s.b.AppendToolArgs(it.index, ev.Delta)
		}
	case "response.function_call_arguments.done":
		if it := s.item(ev.OutputIndex, "function_call"); it != nil && !it.gotArgs {
			it.gotArgs = true
			s.b.AppendToolArgs(it.index, ev.Arguments)
		}
	case "response.output_item.done":
		var item respItem
		if err := json.Unmarshal(ev.Item, &item); err != nil {
			return s.b.Fail(fmt.Sprintf("openai: invalid output item: %v", err), false, s.m), true
		}
		s.doneItem(ev.OutputIndex, &item, ev.Item)
	case "response.completed", "response.incomplete":
		return s.complete(ev.Response), true
	case "response.failed":
		msg := "openai: the response failed"
		if r := ev.Response; r != nil && r.Error != nil && r.Error.Message != "" {
			msg = withCode(r.Error.Message, string(r.Error.Code))
		}
		return s.b.Fail(msg, false, s.m), true
	case "error":
		msg := ev.Message
		if msg == "" {
			msg = "openai: the stream reported an error"
		}
		return s.b.Fail(withCode(msg, string(ev.Code)), false, s.m), true
	}
	return llm.Message{}, false
}

func withCode(msg, code string) string {
	if code == "" {
		return msg
	}
	return msg + " (" + code + ")"
}

func (s *responsesStream) item(outputIndex int, kind string) *itemState {
	if it := s.items[outputIndex]; it != nil && it.kind == kind {
		return it
	}
	return nil
}

func (s *responsesStream) addItem(outputIndex int, item *respItem) *itemState {
	var it *itemState
	switch item.Type {
	case "reasoning":
		it = &itemState{index: s.b.StartThinking(), kind: item.Type}
	case "message":
		it = &itemState{index: s.b.StartText(), kind: item.Type}
	case "function_call":
		id := item.CallID
		if id == "" {
			id = newCallID()
		}
		if item.ID != "" {
			id += "|" + item.ID
		}
		it = &itemState{index: s.b.StartToolCall(id, item.Name), kind: item.Type}
		if item.Arguments != "" {
			it.gotArgs = true
			s.b.AppendToolArgs(it.index, item.Arguments)
		}
	default:
		return nil
	}
	s.items[outputIndex] = it
	return it
}

// doneItem closes an item, filling in from the finished item what the deltas did not bring, and
// keeps the ids (and the whole reasoning item) the next request sends back.
func (s *responsesStream) doneItem(outputIndex int, item *respItem, raw json.RawMessage) {
	it := s.items[outputIndex]
	if it == nil || it.kind != item.Type {
		if it = s.addItem(outputIndex, item); it == nil {
			return
		}
	}
	c := &s.b.Message().Content[it.index]
	switch item.Type {
	case "reasoning":
		if c.Thinking == "" {
			parts := make([]string, 0, len(item.Summary))
			for _, p := range item.Summary {
				parts = append(parts, p.Text)
			}
			s.b.AppendThinking(it.index, strings.Join(parts, "\n\n"))
		}
		s.b.SetSignature(it.index, string(raw))
	case "message":
		if c.Text == "" {
			var sb strings.Builder
			for _, p := range item.Content {
				sb.WriteString(p.Text)
				sb.WriteString(p.Refusal)
			}
			s.b.AppendText(it.index, sb.String())
		}
		s.b.SetSignature(it.index, item.ID)
	case "function_call":
		if !it.gotArgs {
			it.gotArgs = true
			s.b.AppendToolArgs(it.index, item.Arguments)
		}
	}
	s.b.End(it.index)
}

// complete finishes the message from the final response: usage and status.
func (s *responsesStream) complete(r *respResponse) llm.Message {
	if r == nil {
		return s.b.Finish(llm.StopStop, s.m)
	}
	if r.ID != "" {
		s.b.SetResponseID(r.ID)
	}
	if r.Usage != nil {
		cached := int64(0)
		if r.Usage.InputTokensDetails != nil {
			cached = r.Usage.InputTokensDetails.CachedTokens
		}
		setUsage(s.b.Usage(), r.Usage.InputTokens, cached, r.Usage.OutputTokens)
	}
	switch r.Status {
	case "incomplete":
		reason := ""
		if r.IncompleteDetails != nil {
			reason = r.IncompleteDetails.Reason
		}
		if reason == "content_filter" {
			return s.b.Fail("the provider's content filter stopped the response (incomplete: content_filter)", false, s.m)
		}
		return s.b.Finish(llm.StopLength, s.m)
	case "failed", "cancelled":
		msg := "openai: the response ended with status " + r.Status
		if r.Error != nil && r.Error.Message != "" {
			msg = withCode(r.Error.Message, string(r.Error.Code))
		}
		return s.b.Fail(msg, false, s.m)
	}
	return s.b.Finish(llm.StopStop, s.m)
}
