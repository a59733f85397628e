package openai

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"strings"

	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/llm/sse"
)

// DefaultBaseURL is the base URL used when the model has none.
const DefaultBaseURL = "https://api.openai.com/v1"

const defaultMaxTokens = 32000 // cap of the default output limit taken from the model

// eventStream turns the events of one response into calls of its Builder (completionsStream,
// responsesStream).
type eventStream interface {
	run(ctx context.Context, r *sse.Reader) llm.Message
}

// stream is the Stream of both APIs: it fails a request without a model, else posts the body
// payload returns to path below the model's base URL and reads the answer with the eventStream
// that newStream makes for the message's Builder (see sse.Stream).
func stream(ctx context.Context, req *llm.Request, emit func(llm.Event), path string, payload func() any,
	newStream func(*llm.Builder, *llm.Model) eventStream) llm.Message {
	m := req.Model
	b := llm.NewBuilder(m, emit)
	if m == nil {
		return b.Fail("openai: the request has no model", false, nil)
	}
	call := &sse.Call{
		Client:  req.HTTPClient,
		URL:     endpoint(m.BaseURL, path),
		Headers: headers(req),
		Payload: payload,
		Hooks:   req.Hooks,

		StreamDeadline: req.StreamDeadline,
		ReadInterval:   req.ReadInterval,
	}
	return sse.Stream(ctx, call, b, m, newStream(b, m).run)
}

// endpoint joins the model's base URL (DefaultBaseURL when empty) and path.
func endpoint(baseURL, path string) string {
	base := strings.TrimRight(baseURL, "/")
	if base == "" {
		base = DefaultBaseURL
	}
	return base + path
}

// headers layers the request headers: content type, accept and "Authorization: Bearer <key>"
// (omitted for an empty key, which local servers accept), then the model's, then the request's.
func headers(req *llm.Request) map[string]string {
	h := map[string]string{
		"content-type": "application/json",
		"accept":       "text/event-stream",
	}
	if req.APIKey != "" {
		h["authorization"] = "Bearer " + req.APIKey
	}
	return sse.MergeHeaders(h, req.Model.Headers, req.Headers)
}

// maxTokens is the output limit to send: the request's, else the model's capped at 32000; 0 means
// none is sent.
func maxTokens(req *llm.Request) int {
	if req.MaxTokens > 0 {
		return req.MaxTokens
	}
	return min(req.Model.MaxTokens, defaultMaxTokens)
}

// systemRole is "developer" for a reasoning model unless compat supportsDeveloperRole is false,
// else "system".
func systemRole(m *llm.Model) string {
	if m.Reasoning && m.CompatBool("supportsDeveloperRole", true) {
		return "developer"
	}
	return "system"
}

// reasoningEffort maps a thinking level (already clamped to the model) to the effort value the
// server takes: compat reasoningEffortMap[level] when it is a string, else the level itself.
func reasoningEffort(m *llm.Model, level string) string {
	if mp, ok := m.Compat["reasoningEffortMap"].(map[string]any); ok {
		if v, ok := mp[level].(string); ok {
			return v
		}
	}
	return level
}

func dataURL(c llm.Content) string { return "data:" + c.MimeType + ";base64," + c.Data }

const imageOmitted = "(image omitted: the model does not accept images)"

// sameModel reports whether msg was produced by m, so its provider-specific fields (reasoning,
// item ids) can be sent back.
func sameModel(m *llm.Model, msg *llm.Message) bool {
	return msg.API == m.API && msg.Provider == m.Provider && msg.Model == m.ID
}

// callID is the provider's tool call id part of a stored id: Responses ids are stored as
// "<call_id>|<item id>" (the pi convention).
func callID(id string) string {
	if i := strings.IndexByte(id, '|'); i >= 0 {
		return id[:i]
	}
	return id
}

// newCallID makes a tool call id for a server that sent none.
func newCallID() string { return "call_" + strings.ToLower(rand.Text()[:24]) }

// toolResult returns the text of a tool result and its image blocks, which both APIs take only in
// a user message after the run of tool results. When the model takes no images, they are left
// out and the text says so.
func toolResult(msg *llm.Message, images bool) (text string, imgs []llm.Content) {
	text = llm.TextOf(msg.Content, "\n")
	for _, c := range msg.Content {
		if c.Type == llm.ContentImage {
			imgs = append(imgs, c)
		}
	}
	if len(imgs) > 0 && !images {
		return text + "\n" + imageOmitted, nil
	}
	return text, imgs
}

// setUsage records the token counts of a usage object in u. OpenAI counts the cached prompt
// tokens in the input; here they are cache reads only.
func setUsage(u *llm.Usage, input, cached, output int64) {
	u.Input = input - cached
	u.CacheRead = cached
	u.Output = output
	u.TotalTokens = u.Input + u.Output + u.CacheRead + u.CacheWrite
}

// partMaker makes the content parts of one API's user messages.
type partMaker struct {
	text  func(text string) any
	image func(c llm.Content) any
}

// user converts the blocks of a user message; an image becomes the imageOmitted text when the
// model takes no images (images false).
func (pm partMaker) user(blocks []llm.Content, images bool) []any {
	var parts []any
	for _, c := range blocks {
		switch {
		case c.Type == llm.ContentText:
			parts = append(parts, pm.text(c.Text))
		case c.Type == llm.ContentImage && images:
			parts = append(parts, pm.image(c))
		case c.Type == llm.ContentImage:
			parts = append(parts, pm.text(imageOmitted))
		}
	}
	return parts
}

// toolImages returns the parts of the user message that carries the images of a run of tool
// results: toolImagesIntro, then the images.
func (pm partMaker) toolImages(imgs []llm.Content) []any {
	parts := []any{pm.text(toolImagesIntro)}
	for _, c := range imgs {
		parts = append(parts, pm.image(c))
	}
	return parts
}

// strictParam is the strict value of a tool definition: false, as pi sends it, unless compat
// supportsStrictMode is false, then none.
func strictParam(m *llm.Model) *bool {
	if m.CompatBool("supportsStrictMode", true) {
		return new(bool)
	}
	return nil
}

// argumentsJSON is the arguments of tool call block c as a JSON object text; "{}" when it has
// none or they cannot be encoded.
func argumentsJSON(c llm.Content) string {
	args, err := json.Marshal(c.Arguments)
	if err != nil || c.Arguments == nil {
		return "{}"
	}
	return string(args)
}

const toolImagesIntro = "Attached image(s) from tool result:"
