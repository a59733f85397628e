package script

import "strconv"

// chatFrames renders t as an OpenAI Chat Completions stream of data-only chunks: a role chunk,
// reasoning_content and content deltas, tool call fragments by index, a finish_reason chunk, a
// usage chunk when info.IncludeUsage, then [DONE]. A StreamError ends the stream with an error
// object instead, as OpenAI-compatible servers do.
func chatFrames(t Turn, info Info) []Frame {
	id := "chatcmpl-fake-" + strconv.Itoa(info.Turn) + "-" + strconv.Itoa(info.Seq)
	var fs []Frame
	chunk := func(kind FrameKind, delta obj, finish any) {
		c := obj{"id", id, "object", "chat.completion.chunk", "created", created, "model", info.Model,
			"choices", []obj{{"index", 0, "delta", delta, "logprobs", nil, "finish_reason", finish}}}
		if info.IncludeUsage {
			c = append(c, "usage", nil)
		}
		fs = append(fs, Frame{Data: string(marshal(c)), Kind: kind})
	}
	chunk(FrameMeta, obj{"role", "assistant", "content", ""}, nil)
	for _, piece := range split(t.Thinking, t.Chunks) {
		chunk(FrameDelta, obj{"reasoning_content", piece}, nil)
	}
	for _, piece := range split(t.Text, t.Chunks) {
		chunk(FrameDelta, obj{"content", piece}, nil)
	}
	for i, c := range t.ToolCalls {
		chunk(FrameMeta, obj{"tool_calls", []obj{{"index", i, "id", toolCallID(c, "call_", info.Turn, i),
			"type", "function", "function", obj{"name", c.Name, "arguments", ""}}}}, nil)
		for _, piece := range split(arguments(c), t.Chunks) {
			chunk(FrameDelta, obj{"tool_calls", []obj{{"index", i, "function", obj{"arguments", piece}}}}, nil)
		}
	}

	if e := t.StreamError; e != nil {
		typ, code := e.Type, e.Code
		if typ == "" {
			typ = "server_error"
		}
		msg := e.Message
		if msg == "" {
			msg = "fakellm: scripted stream error"
		}
		fs = append(fs, Frame{Data: string(marshal(obj{"error", obj{"message", msg, "type", typ,
			"param", nil, "code", nullable(code)}})), Kind: FrameEnd})
		return fs
	}
	finish := map[string]string{StopStop: "stop", StopLength: "length", StopToolUse: "tool_calls"}[stopReason(t)]
	chunk(FrameEnd, obj{}, finish)
	if info.IncludeUsage {
		u := usage(t, info)
		prompt := u.Input + u.CacheRead
		c := obj{"id", id, "object", "chat.completion.chunk", "created", created, "model", info.Model,
			"choices", []obj{}, "usage", obj{
				"prompt_tokens", prompt, "completion_tokens", u.Output, "total_tokens", prompt + u.Output,
				"prompt_tokens_details", obj{"cached_tokens", u.CacheRead},
				"completion_tokens_details", obj{"reasoning_tokens", u.Reasoning},
			}}
		fs = append(fs, Frame{Data: string(marshal(c)), Kind: FrameEnd})
	}
	fs = append(fs, Frame{Data: "[DONE]", Kind: FrameEnd})
	return fs
}
