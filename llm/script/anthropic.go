package script

import "strconv"

// anthropicFrames renders t as an Anthropic Messages event stream: message_start, ping, one
// content block per part (thinking, text, tool_use), then message_delta and message_stop, or an
// error event when the turn has a StreamError.
func anthropicFrames(t Turn, info Info) []Frame {
	u := usage(t, info)
	var fs []Frame
	add := func(event string, kind FrameKind, data obj) {
		fs = append(fs, Frame{Event: event, Data: string(marshal(data)), Kind: kind})
	}
	id := "msg_fake_" + strconv.Itoa(info.Turn) + "_" + strconv.Itoa(info.Seq)
	add("message_start", FrameMeta, obj{"type", "message_start", "message", obj{
		"id", id, "type", "message", "role", "assistant", "model", info.Model,
		"content", []any{}, "stop_reason", nil, "stop_sequence", nil,
		"usage", obj{
			"input_tokens", u.Input, "cache_creation_input_tokens", u.CacheWrite,
			"cache_read_input_tokens", u.CacheRead, "output_tokens", 1,
		},
	}})
	add("ping", FrameMeta, obj{"type", "ping"})

	index := 0
	block := func(start obj, deltaType, deltaKey, text string, extra ...obj) {
		add("content_block_start", FrameMeta, obj{"type", "content_block_start", "index", index, "content_block", start})
		for _, piece := range split(text, t.Chunks) {
			add("content_block_delta", FrameDelta, obj{"type", "content_block_delta", "index", index,
				"delta", obj{"type", deltaType, deltaKey, piece}})
		}
		for _, d := range extra {
			add("content_block_delta", FrameMeta, obj{"type", "content_block_delta", "index", index, "delta", d})
		}
		add("content_block_stop", FrameMeta, obj{"type", "content_block_stop", "index", index})
		index++
	}
	if t.Thinking != "" {
		sig := t.ThinkingSignature
		if sig == "" {
			sig = "sig_fake_" + strconv.Itoa(info.Turn)
		}
		if t.UnsignedThinking {
			// An Anthropic-compatible server that does not sign: no signature_delta at all.
			block(obj{"type", "thinking", "thinking", "", "signature", ""}, "thinking_delta", "thinking", t.Thinking)
		} else {
			block(obj{"type", "thinking", "thinking", "", "signature", ""}, "thinking_delta", "thinking", t.Thinking,
				obj{"type", "signature_delta", "signature", sig})
		}
	}
	if t.Text != "" {
		block(obj{"type", "text", "text", ""}, "text_delta", "text", t.Text)
	}
	for i, c := range t.ToolCalls {
		block(obj{"type", "tool_use", "id", toolCallID(c, "toolu_", info.Turn, i), "name", c.Name, "input", obj{}},
			"input_json_delta", "partial_json", arguments(c))
	}

	if e := t.StreamError; e != nil {
		typ := e.Type
		if typ == "" {
			typ = "overloaded_error"
		}
		msg := e.Message
		if msg == "" {
			msg = "fakellm: scripted stream error"
		}
		add("error", FrameEnd, obj{"type", "error", "error", obj{"type", typ, "message", msg}})
		return fs
	}
	reason := map[string]string{StopStop: "end_turn", StopLength: "max_tokens", StopToolUse: "tool_use"}[stopReason(t)]
	add("message_delta", FrameEnd, obj{"type", "message_delta",
		"delta", obj{"stop_reason", reason, "stop_sequence", nil},
		"usage", obj{
			"input_tokens", u.Input, "cache_creation_input_tokens", u.CacheWrite,
			"cache_read_input_tokens", u.CacheRead, "output_tokens", u.Output,
		},
	})
	add("message_stop", FrameEnd, obj{"type", "message_stop"})
	return fs
}
