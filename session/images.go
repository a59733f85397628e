package session

import (
	"context"
	"encoding/base64"

	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/tool"
)

// afterTool is the agent's AfterToolCall: the tool_result event, then the images of the final
// result fitted into the provider limits (tools.md §13: after the hooks, for every tool).
func (s *Session) afterTool(ctx context.Context, call tool.Call, res tool.Result) tool.Result {
	res = s.afterToolCall(ctx, call, res)
	if s.opts.ImageResizer != nil {
		res.Content = fitImages(ctx, s.opts.ImageResizer, res.Content)
	}
	return res
}

// fitImages returns content with each image that is over the limits replaced by its resized
// form; an image that cannot be decoded or shrunk is kept (the provider's answer decides, and a
// rejection becomes a placeholder: retry.go). content is not modified.
func fitImages(ctx context.Context, r tool.ImageResizer, content []llm.Content) []llm.Content {
	var out []llm.Content
	for i, c := range content {
		if c.Type != llm.ContentImage {
			continue
		}
		data, err := base64.StdEncoding.DecodeString(c.Data)
		if err != nil {
			continue
		}
		res, err := r.ResizeImage(ctx, data, c.MimeType)
		if err != nil || !res.WasResized {
			continue
		}
		if out == nil {
			out = append([]llm.Content(nil), content...)
		}
		out[i] = llm.Image(base64.StdEncoding.EncodeToString(res.Data), res.MimeType)
	}
	if out == nil {
		return content
	}
	return out
}
