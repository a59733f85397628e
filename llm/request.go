package llm

import (
	"context"
	"encoding/json"
	"net/http"
	"time"
)

// ToolSpec is a tool as the model sees it: name, description and JSON Schema of its arguments.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// emptySchema is the schema of a tool without arguments.
var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// Schema returns Parameters, or the schema of an empty arguments object when it is empty: the
// provider APIs require a schema for every tool.
func (t ToolSpec) Schema() json.RawMessage {
	if len(t.Parameters) == 0 {
		return emptySchema
	}
	return t.Parameters
}

// Request is one call to a provider: the conversation so far (already converted to the roles a
// provider accepts: user, assistant, toolResult), the system prompt, the tools and the options.
type Request struct {
	Model         *Model
	SystemPrompt  string
	Messages      []Message
	Tools         []ToolSpec
	ThinkingLevel string // one of ThinkingLevels; "" or "off" disables reasoning
	APIKey        string
	Headers       map[string]string // extra headers, applied after the provider's own and the model's
	MaxTokens     int               // 0: the model's MaxTokens
	SessionID     string            // for providers that key caching on it; may be empty
	// Temperature is the sampling temperature; nil leaves it to the API. Anthropic ignores it
	// when thinking is on (the API rejects the pair).
	Temperature *float64
	// CacheRetention is pi-ai's prompt-cache preference: "none" sends no cache markers (and no
	// prompt_cache_key), "long" asks for the long retention where the model's compat
	// supportsLongCacheRetention (default true): a 1 h TTL on Anthropic, 24 h on OpenAI
	// Responses; "" and "short" are the default.
	CacheRetention string
	// Metadata is pi-ai's StreamOptions.metadata: each provider takes the members it understands
	// and ignores the rest. Anthropic sends a string user_id as the request's metadata.user_id
	// (abuse tracking and rate limiting); the other wire APIs take none.
	Metadata map[string]any
	// Transport is pi-ai's transport preference ("sse", "websocket" or "auto"). Every wire API
	// atomic speaks streams over SSE only, so it ignores the preference, as pi-ai's providers
	// other than openai-codex-responses do; it reaches an extension's streamSimple provider.
	Transport string

	// HTTPClient sends the request; nil means http.DefaultClient. The replay provider and tests
	// plug in their transports here.
	HTTPClient *http.Client

	// Hooks are the extension seams of the HTTP path; nil fields are skipped.
	Hooks *Hooks

	// StreamDeadline is the longest gap without data from the server, before the response
	// headers and between two stream events (settings.json streamDeadlineMs); past it the stream
	// is cut and the message fails with a "stream stalled" error. 0 means no deadline.
	StreamDeadline time.Duration

	// ReadInterval coalesces the reads of the streamed answer (sse.Call.ReadInterval): events
	// that arrive less than this apart are read together, at most this much later, which saves
	// a wakeup per event when nobody looks at each one as it comes (a terminal UI painting
	// 30 frames a second). The first event and the end of an abort are not delayed. 0 reads every
	// event as it arrives.
	ReadInterval time.Duration
}

// Hooks are the points of the provider HTTP path where extensions act (events.md §3.4). Each is
// called at most once per request, synchronously, in this order: BeforeHeaders, BeforeRequest,
// OnRequest, AfterResponse.
type Hooks struct {
	// BeforeHeaders may edit the assembled request headers in place; deleting a key suppresses a
	// default header. Called before the payload is built.
	BeforeHeaders func(ctx context.Context, headers map[string]string)
	// BeforeRequest receives the provider-specific payload (decoded JSON) and returns the payload
	// to send: the same value to keep it, another to replace it.
	BeforeRequest func(ctx context.Context, payload any) any
	// OnRequest observes the final JSON body that is sent.
	OnRequest func(ctx context.Context, body []byte)
	// AfterResponse observes the HTTP status and headers before the body is read.
	AfterResponse func(ctx context.Context, status int, headers http.Header)
}

// Provider streams one assistant message for a Request. It is implemented once per wire API.
//
// Stream calls emit for every stream event in order (start, block events, then exactly one done
// or error), from the calling goroutine, and returns the final assistant message. It never returns
// a Go error: a failed request is an assistant message with StopReason StopError and an
// ErrorMessage naming the provider's message; a cancelled ctx gives StopAborted with the partial
// content streamed so far.
type Provider interface {
	Stream(ctx context.Context, req *Request, emit func(Event)) Message
}

// ProviderFunc adapts a function to Provider.
type ProviderFunc func(ctx context.Context, req *Request, emit func(Event)) Message

// Stream implements Provider.
func (f ProviderFunc) Stream(ctx context.Context, req *Request, emit func(Event)) Message {
	return f(ctx, req, emit)
}
