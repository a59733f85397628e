package openai

import (
	"crypto/rand"
	"strings"

	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/llm/sse"
)

// DefaultBaseURL is the base URL used when the model has none.
const DefaultBaseURL = "https://api.openai.com/v1"

const defaultMaxTokens = 32000 // cap of the default output limit taken from the model

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

// toolResultImages returns the image blocks of a tool result, which both APIs take only in a
// user message.
func toolResultImages(msg *llm.Message) []llm.Content {
	var out []llm.Content
	for _, c := range msg.Content {
		if c.Type == llm.ContentImage {
			out = append(out, c)
		}
	}
	return out
}

const toolImagesIntro = "Attached image(s) from tool result:"
