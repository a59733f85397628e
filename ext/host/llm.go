package host

// The model API of extensions (docs/extension-protocol.md §4, "Model calls"): llm.stream runs a
// model call of an extension through the runtime's providers and credentials, streaming its
// events back as llm.event notifications; models reads the model registry for pi-ai's
// getModel, getModels and getProviders.

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/ext/protocol"
	"github.com/atomic-cli/atomic/llm"
)

// latestAPI returns an extension API of generation gen, or of the newest generation when gen is
// 0 or gone (nil before the first load).
func (s *Supervisor) latestAPI(gen int64) ext.API {
	var g *generation
	if gen != 0 {
		g = s.generation(gen)
	}
	if g == nil {
		s.mu.Lock()
		g = s.gen
		s.mu.Unlock()
	}
	if g == nil {
		return nil
	}
	return g.anyAPI()
}

// llmRequest builds the provider request of an llm.stream call: the model completed from the
// registry, the context's messages and tools, and the options that cross the boundary.
func llmRequest(api ext.API, a *protocol.LLMStreamParams) (*llm.Request, error) {
	var ref struct {
		Provider string `json:"provider"`
		ID       string `json:"id"`
	}
	if err := json.Unmarshal(a.Model, &ref); err != nil || ref.ID == "" {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "llm.stream: the model is not a pi Model object with an id")
	}
	m := &llm.Model{}
	if api != nil {
		if reg := api.ModelRegistry(); reg != nil {
			if found := reg.Find(ref.Provider, ref.ID); found != nil {
				c := *found
				m = &c
			}
		}
	}
	if err := json.Unmarshal(a.Model, m); err != nil {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "llm.stream: model %s/%s: %v", ref.Provider, ref.ID, err)
	}
	if a.API != "" {
		m.API = a.API
	}
	req := &llm.Request{Model: m, SystemPrompt: a.Context.SystemPrompt, APIKey: a.Options.APIKey,
		MaxTokens: a.Options.MaxTokens, Headers: a.Options.Headers, SessionID: a.Options.SessionID}
	if a.Options.Reasoning != "" {
		if !llm.ValidThinkingLevel(a.Options.Reasoning) {
			return nil, protocol.Errorf(protocol.CodeInvalidParams, "llm.stream: unknown reasoning level %q", a.Options.Reasoning)
		}
		req.ThinkingLevel = llm.ClampThinkingLevel(m, a.Options.Reasoning)
	}
	for i, raw := range a.Context.Messages {
		var msg llm.Message
		if err := json.Unmarshal(raw, &msg); err != nil {
			return nil, protocol.Errorf(protocol.CodeInvalidParams, "llm.stream: message %d: %v", i, err)
		}
		req.Messages = append(req.Messages, msg)
	}
	for _, t := range a.Context.Tools {
		req.Tools = append(req.Tools, llm.ToolSpec{Name: t.Name, Description: t.Description, Parameters: t.Parameters})
	}
	return req, nil
}

// llmStream serves llm.stream request id until the stream ends or ctx does ($/cancelRequest:
// the provider stops and the answer is the partial message with stop reason aborted).
func (s *Supervisor) llmStream(ctx context.Context, p *process, id json.RawMessage, params json.RawMessage) (any, error) {
	var a protocol.LLMStreamParams
	if err := jsonUnmarshal(params, &a); err != nil {
		return nil, err
	}
	gen := a.Gen
	if gen == 0 && a.Ctx != 0 {
		gen = a.Ctx >> 32
	}
	api := s.latestAPI(gen)
	req, err := llmRequest(api, &a)
	if err != nil {
		return nil, err
	}
	emit := func(ev llm.Event) {
		b, err := wireEvent(&ev)
		if err != nil {
			return
		}
		_ = p.out.Notify(protocol.MethodLLMEvent, protocol.LLMEventParams{ID: id, Event: b})
	}
	var out llm.Message
	if api != nil {
		out = api.StreamModel(ctx, req, emit)
	} else {
		out = ext.StreamDirect(ctx, nil, req, emit)
	}
	b, err := out.AppendJSON(nil)
	if err != nil {
		return nil, err
	}
	return json.RawMessage(b), nil
}

// wireEvent is the llm.event form of ev: pi's event without the cumulative partial, plus the
// message header on "start" (as partial) and the tool call's id and name on "toolcall_start".
func wireEvent(ev *llm.Event) (json.RawMessage, error) {
	b, err := ev.AppendJSON(nil)
	if err != nil || ev.Partial == nil {
		return b, err
	}
	var extra []byte
	switch ev.Type {
	case llm.EventStart:
		head := *ev.Partial
		head.Content = []llm.Content{}
		hb, err := head.AppendJSON(nil)
		if err != nil {
			return nil, err
		}
		extra = append([]byte(`,"partial":`), hb...)
	case llm.EventToolCallStart:
		if ev.ContentIndex < 0 || ev.ContentIndex >= len(ev.Partial.Content) {
			return b, nil
		}
		c := ev.Partial.Content[ev.ContentIndex]
		cb, err := json.Marshal(map[string]string{"type": "toolCall", "id": c.ID, "name": c.Name})
		if err != nil {
			return nil, err
		}
		extra = append([]byte(`,"toolCall":`), cb...)
	default:
		return b, nil
	}
	if len(b) == 0 || b[len(b)-1] != '}' {
		return nil, fmt.Errorf("llm.event: unexpected event JSON")
	}
	return append(append(b[:len(b)-1:len(b)-1], extra...), '}'), nil
}

// models serves the models request (getModel, getModels, getProviders).
func models(s *Supervisor, _ *process, params json.RawMessage) (any, error) {
	var a protocol.ModelsParams
	if err := jsonUnmarshal(params, &a); err != nil {
		return nil, err
	}
	api := s.latestAPI(a.Gen)
	if api == nil || api.ModelRegistry() == nil {
		if a.Method == "find" {
			return nil, nil
		}
		return []any{}, nil
	}
	reg := api.ModelRegistry()
	switch a.Method {
	case "find":
		if m := reg.Find(a.Provider, a.ID); m != nil {
			return m, nil
		}
		return nil, nil
	case "list":
		out := []*llm.Model{}
		for _, m := range reg.All() {
			if a.Provider == "" || m.Provider == a.Provider {
				out = append(out, m)
			}
		}
		return out, nil
	case "providers":
		return nonNil(reg.Providers()), nil
	}
	return nil, protocol.Errorf(protocol.CodeMethodNotFound, "models.%s is not a method (find, list, providers)", a.Method)
}
