package host

// The model API of extensions (docs/extension-protocol.md §4, "Model calls"): llm.stream runs a
// model call of an extension through the runtime's providers and credentials, streaming its
// events back as llm.event notifications; models reads the model registry for pi-ai's
// getModel, getModels and getProviders.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

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
		MaxTokens: a.Options.MaxTokens, Headers: a.Options.Headers, SessionID: a.Options.SessionID,
		Temperature: a.Options.Temperature, CacheRetention: a.Options.CacheRetention,
		Metadata: a.Options.Metadata, Transport: a.Options.Transport}
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
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ctx = ext.WithModelCallOptions(ctx, callOptions(&a.Options))
	// A failing onPayload or onResponse ends the call with its error, as in pi: the attempt is
	// cancelled and its terminal event and message carry the error (hooks and emit run on this
	// call's provider goroutine, so hookErr needs no lock).
	var hookErr error
	fail := func(err error) {
		if hookErr == nil {
			hookErr = err
		}
		cancel()
	}
	req.Hooks = s.callbackHooks(p, id, &a, fail)
	asError := func(m *llm.Message) {
		if hookErr != nil && m != nil {
			m.StopReason, m.ErrorMessage = llm.StopError, hookErr.Error()
		}
	}
	emit := func(ev llm.Event) {
		if ev.Type == llm.EventError && hookErr != nil {
			ev.Reason = llm.StopError
			if ev.Message != nil {
				m := *ev.Message
				asError(&m)
				ev.Message = &m
			}
		}
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
	asError(&out)
	b, err := out.AppendJSON(nil)
	if err != nil {
		return nil, err
	}
	return json.RawMessage(b), nil
}

// callOptions are the ext.ModelCallOptions of an llm.stream call's options (maxRetries,
// maxRetryDelayMs, timeoutMs).
func callOptions(o *protocol.LLMStreamOptions) ext.ModelCallOptions {
	var c ext.ModelCallOptions
	c.MaxRetries = o.MaxRetries
	if o.MaxRetryDelayMs != nil {
		d := time.Duration(*o.MaxRetryDelayMs) * time.Millisecond
		c.MaxRetryDelay = &d
	}
	if o.TimeoutMs > 0 {
		c.Timeout = time.Duration(o.TimeoutMs) * time.Millisecond
	}
	return c
}

// callbackHooks are the provider hooks of an llm.stream call whose options name pi's onPayload
// or onResponse (nil when neither): the provider payload goes to the host as an llm.payload
// request before it is sent (the answer may replace it), the status and headers of a response
// below 400 as an llm.response request before its body is read. Both are bounded by the
// handler timeout; a failure is passed to fail and the payload is sent unchanged.
func (s *Supervisor) callbackHooks(p *process, id json.RawMessage, a *protocol.LLMStreamParams, fail func(error)) *llm.Hooks {
	if !a.Options.OnPayload && !a.Options.OnResponse {
		return nil
	}
	h := &llm.Hooks{}
	if a.Options.OnPayload {
		h.BeforeRequest = func(ctx context.Context, payload any) any {
			raw, err := p.callWithin(ctx, s.opts.HandlerTimeout, 0, protocol.MethodLLMPayload,
				protocol.LLMPayloadParams{ID: id, Payload: payload, Model: a.Model}, "the onPayload of a model call", nil)
			if err != nil {
				fail(fmt.Errorf("onPayload: %s", errorText(err)))
				return payload
			}
			var res protocol.LLMPayloadResult
			if err := json.Unmarshal(raw, &res); err != nil {
				fail(fmt.Errorf("onPayload: the host's answer is not {payload?}: %v", err))
				return payload
			}
			if len(res.Payload) > 0 {
				return res.Payload
			}
			return payload
		}
	}
	if a.Options.OnResponse {
		h.AfterResponse = func(ctx context.Context, status int, header http.Header) {
			if status >= 400 {
				return // pi's providers call onResponse only for the response they stream
			}
			headers := make(map[string]string, len(header))
			for k, v := range header {
				headers[strings.ToLower(k)] = strings.Join(v, ", ")
			}
			if _, err := p.callWithin(ctx, s.opts.HandlerTimeout, 0, protocol.MethodLLMResponse,
				protocol.LLMResponseParams{ID: id, Status: status, Headers: headers, Model: a.Model}, "the onResponse of a model call", nil); err != nil {
				fail(fmt.Errorf("onResponse: %s", errorText(err)))
			}
		}
	}
	return h
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

// streamProvider is the llm.Provider of an extension provider that streams itself: each request
// is a provider.stream call to the host (the current process, so it survives restarts and
// reloads, which register the provider again), whose events are replayed through an
// llm.Builder so the agent sees the usual events with their partial message.
func (s *Supervisor) streamProvider(name, api string) llm.Provider {
	what := fmt.Sprintf("the streamSimple of provider %s", name)
	return llm.ProviderFunc(func(ctx context.Context, req *llm.Request, emit func(llm.Event)) llm.Message {
		b := llm.NewBuilder(req.Model, emit)
		fail := func(err error) llm.Message { return b.Fail(errorText(err), ctx.Err() != nil, req.Model) }
		p, err := s.ensure()
		if err != nil {
			return fail(err)
		}
		model, err := json.Marshal(req.Model)
		if err != nil {
			return fail(err)
		}
		msgs := req.Messages
		if msgs == nil {
			msgs = []llm.Message{}
		}
		tools := make([]protocol.LLMTool, 0, len(req.Tools))
		for _, t := range req.Tools {
			tools = append(tools, protocol.LLMTool{Name: t.Name, Description: t.Description, Parameters: t.Schema()})
		}
		pctx, err := json.Marshal(struct {
			SystemPrompt string             `json:"systemPrompt,omitempty"`
			Messages     []llm.Message      `json:"messages"`
			Tools        []protocol.LLMTool `json:"tools,omitempty"`
		}{req.SystemPrompt, msgs, tools})
		if err != nil {
			return fail(err)
		}
		reasoning := req.ThinkingLevel
		if reasoning == llm.ThinkingOff {
			reasoning = ""
		}
		params := protocol.ProviderStreamParams{API: api, Model: model, Context: pctx, Options: protocol.LLMStreamOptions{
			APIKey: req.APIKey, MaxTokens: req.MaxTokens, Reasoning: reasoning, Headers: req.Headers, SessionID: req.SessionID,
			Temperature: req.Temperature, CacheRetention: req.CacheRetention,
			Metadata: req.Metadata, Transport: req.Transport}}
		idx := map[int]int{}
		args := map[int]bool{}
		raw, err := p.call(ctx, protocol.MethodProviderStream, params, what, func(u json.RawMessage) {
			replayEvent(b, u, idx, args)
		})
		if err != nil {
			return fail(err)
		}
		var final llm.Message
		if json.Unmarshal(raw, &final) != nil || final.Role != llm.RoleAssistant {
			return fail(fmt.Errorf("%s returned no assistant message", what))
		}
		b.Start()
		ev := llm.Event{Type: llm.EventDone, Reason: final.StopReason, Message: &final, Partial: &final}
		if final.StopReason == llm.StopError || final.StopReason == llm.StopAborted {
			ev.Type = llm.EventError
		}
		emit(ev)
		return final
	})
}

// replayEvent applies one pi stream event of a host provider to b (idx maps the provider's
// content indices to b's; args records which tool calls streamed their arguments).
func replayEvent(b *llm.Builder, raw json.RawMessage, idx map[int]int, args map[int]bool) {
	var ev struct {
		Type         string `json:"type"`
		ContentIndex int    `json:"contentIndex"`
		Delta        string `json:"delta"`
		Content      string `json:"content"`
		ToolCall     *struct {
			ID        string          `json:"id"`
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"toolCall"`
	}
	if json.Unmarshal(raw, &ev) != nil {
		return
	}
	i, open := idx[ev.ContentIndex]
	switch ev.Type {
	case llm.EventStart:
		b.Start()
	case llm.EventTextStart:
		idx[ev.ContentIndex] = b.StartText()
	case llm.EventThinkingStart:
		idx[ev.ContentIndex] = b.StartThinking()
	case llm.EventToolCallStart:
		var id, name string
		if ev.ToolCall != nil {
			id, name = ev.ToolCall.ID, ev.ToolCall.Name
		}
		idx[ev.ContentIndex] = b.StartToolCall(id, name)
	case llm.EventTextDelta:
		if open {
			b.AppendText(i, ev.Delta)
		}
	case llm.EventThinkingDelta:
		if open {
			b.AppendThinking(i, ev.Delta)
		}
	case llm.EventToolCallDelta:
		if open {
			args[ev.ContentIndex] = true
			b.AppendToolArgs(i, ev.Delta)
		}
	case llm.EventToolCallEnd:
		if !open && ev.ToolCall != nil {
			i, open = b.StartToolCall(ev.ToolCall.ID, ev.ToolCall.Name), true
			idx[ev.ContentIndex] = i
		}
		if open && !args[ev.ContentIndex] && ev.ToolCall != nil && len(ev.ToolCall.Arguments) > 0 {
			b.AppendToolArgs(i, string(ev.ToolCall.Arguments))
		}
		if open {
			b.End(i)
		}
	case llm.EventTextEnd, llm.EventThinkingEnd:
		if open {
			b.End(i)
		}
	}
}

// providerRefresh returns the token refresh of provider name: provider.refresh to the host (the
// provider's oauth.refreshToken), bounded by ctx and the handler timeout.
func (s *Supervisor) providerRefresh(name string) func(ctx context.Context, credential json.RawMessage) (json.RawMessage, error) {
	return func(ctx context.Context, credential json.RawMessage) (json.RawMessage, error) {
		p, err := s.ensure()
		if err != nil {
			return nil, err
		}
		raw, err := p.callWithin(ctx, s.opts.HandlerTimeout, 0, protocol.MethodProviderRefresh,
			protocol.ProviderRefreshParams{Name: name, Credential: credential}, "the oauth.refreshToken of provider "+name, nil)
		if err != nil {
			return nil, errors.New(errorText(err))
		}
		var res protocol.ProviderLoginResult
		if err := json.Unmarshal(raw, &res); err != nil || len(res.Credential) == 0 {
			return nil, fmt.Errorf("the oauth.refreshToken of provider %s returned no credential", name)
		}
		return res.Credential, nil
	}
}

// providerLogin returns the login function of provider name: provider.login to the host, with
// the prompts as dialogs of the context the caller gave (ext.WithDispatchContext), else of the
// newest generation's latest one.
func (s *Supervisor) providerLogin(name string) func(ctx context.Context, kind string) (json.RawMessage, error) {
	return func(ctx context.Context, kind string) (json.RawMessage, error) {
		p, err := s.ensure()
		if err != nil {
			return nil, err
		}
		var id int64
		s.mu.Lock()
		g := s.gen
		s.mu.Unlock()
		if g != nil {
			c := ext.DispatchContext(ctx)
			if c == nil {
				g.mu.Lock()
				c = g.last
				g.mu.Unlock()
			}
			if c != nil {
				id = g.enter(c)
				defer g.leave(id)
			}
		}
		raw, err := p.call(ctx, protocol.MethodProviderLogin, protocol.ProviderLoginParams{Name: name, Kind: kind, Ctx: id}, "the "+kind+" login of provider "+name, nil)
		if err != nil {
			return nil, errors.New(errorText(err))
		}
		var res protocol.ProviderLoginResult
		if err := json.Unmarshal(raw, &res); err != nil || len(res.Credential) == 0 {
			return nil, fmt.Errorf("the %s login of provider %s returned no credential", kind, name)
		}
		return res.Credential, nil
	}
}
