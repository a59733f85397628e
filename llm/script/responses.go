package script

import "strconv"

// responsesFrames renders t as an OpenAI Responses event stream: response.created and
// response.in_progress, one output item per part (reasoning with a summary, an assistant message,
// function calls) each framed by output_item.added/done, then response.completed (or
// response.incomplete for StopLength, response.failed for a StreamError). Every event carries a
// sequence_number counting from 0.
func responsesFrames(t Turn, info Info) []Frame {
	turn := strconv.Itoa(info.Turn)
	id := "resp_fake_" + turn + "_" + strconv.Itoa(info.Seq)
	var fs []Frame
	add := func(kind FrameKind, typ string, fields ...any) {
		data := append(obj{"type", typ, "sequence_number", len(fs)}, fields...)
		fs = append(fs, Frame{Event: typ, Data: string(marshal(data)), Kind: kind})
	}
	response := func(status string, output []obj, rest ...any) obj {
		return append(obj{"id", id, "object", "response", "created_at", created, "status", status,
			"model", info.Model, "output", output}, rest...)
	}
	add(FrameMeta, "response.created", "response", response("in_progress", []obj{}, "usage", nil))
	add(FrameMeta, "response.in_progress", "response", response("in_progress", []obj{}, "usage", nil))

	var output []obj
	if t.Thinking != "" {
		itemID, oi := "rs_fake_"+turn, len(output)
		add(FrameMeta, "response.output_item.added", "output_index", oi,
			"item", obj{"id", itemID, "type", "reasoning", "summary", []obj{}})
		at := []any{"item_id", itemID, "output_index", oi, "summary_index", 0}
		add(FrameMeta, "response.reasoning_summary_part.added", append(at, "part", obj{"type", "summary_text", "text", ""})...)
		for _, piece := range split(t.Thinking, t.Chunks) {
			add(FrameDelta, "response.reasoning_summary_text.delta", append(at, "delta", piece)...)
		}
		add(FrameMeta, "response.reasoning_summary_text.done", append(at, "text", t.Thinking)...)
		part := obj{"type", "summary_text", "text", t.Thinking}
		add(FrameMeta, "response.reasoning_summary_part.done", append(at, "part", part)...)
		item := obj{"id", itemID, "type", "reasoning", "summary", []obj{part}}
		add(FrameMeta, "response.output_item.done", "output_index", oi, "item", item)
		output = append(output, item)
	}
	if t.Text != "" {
		itemID, oi := "msg_fake_"+turn, len(output)
		add(FrameMeta, "response.output_item.added", "output_index", oi, "item", obj{"id", itemID,
			"type", "message", "status", "in_progress", "content", []obj{}, "role", "assistant"})
		at := []any{"item_id", itemID, "output_index", oi, "content_index", 0}
		add(FrameMeta, "response.content_part.added", append(at, "part",
			obj{"type", "output_text", "annotations", []obj{}, "logprobs", []obj{}, "text", ""})...)
		for _, piece := range split(t.Text, t.Chunks) {
			add(FrameDelta, "response.output_text.delta", append(at, "delta", piece, "logprobs", []obj{})...)
		}
		add(FrameMeta, "response.output_text.done", append(at, "text", t.Text, "logprobs", []obj{})...)
		part := obj{"type", "output_text", "annotations", []obj{}, "logprobs", []obj{}, "text", t.Text}
		add(FrameMeta, "response.content_part.done", append(at, "part", part)...)
		item := obj{"id", itemID, "type", "message", "status", "completed", "content", []obj{part}, "role", "assistant"}
		add(FrameMeta, "response.output_item.done", "output_index", oi, "item", item)
		output = append(output, item)
	}
	for i, c := range t.ToolCalls {
		itemID, oi := "fc_fake_"+turn+"_"+strconv.Itoa(i), len(output)
		callID, args := toolCallID(c, "call_", info.Turn, i), arguments(c)
		add(FrameMeta, "response.output_item.added", "output_index", oi, "item", obj{"id", itemID,
			"type", "function_call", "status", "in_progress", "arguments", "", "call_id", callID, "name", c.Name})
		for _, piece := range split(args, t.Chunks) {
			add(FrameDelta, "response.function_call_arguments.delta", "item_id", itemID, "output_index", oi, "delta", piece)
		}
		add(FrameMeta, "response.function_call_arguments.done", "item_id", itemID, "output_index", oi, "arguments", args)
		item := obj{"id", itemID, "type", "function_call", "status", "completed", "arguments", args,
			"call_id", callID, "name", c.Name}
		add(FrameMeta, "response.output_item.done", "output_index", oi, "item", item)
		output = append(output, item)
	}
	if output == nil {
		output = []obj{}
	}

	if e := t.StreamError; e != nil {
		code := e.Code
		if code == "" {
			code = e.Type
		}
		if code == "" {
			code = "server_error"
		}
		msg := e.Message
		if msg == "" {
			msg = "fakellm: scripted stream error"
		}
		add(FrameEnd, "response.failed", "response", response("failed", output,
			"error", obj{"code", code, "message", msg}, "usage", nil))
		return fs
	}
	u := usage(t, info)
	in := u.Input + u.CacheRead
	usage := obj{"input_tokens", in, "input_tokens_details", obj{"cached_tokens", u.CacheRead},
		"output_tokens", u.Output, "output_tokens_details", obj{"reasoning_tokens", u.Reasoning},
		"total_tokens", in + u.Output}
	if stopReason(t) == StopLength {
		add(FrameEnd, "response.incomplete", "response", response("incomplete", output,
			"incomplete_details", obj{"reason", "max_output_tokens"}, "usage", usage))
		return fs
	}
	add(FrameEnd, "response.completed", "response", response("completed", output, "usage", usage))
	return fs
}
