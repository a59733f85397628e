package anthropic

import (
	"context"
	"strings"

	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/llm/sse"
)

// DefaultBaseURL is the base URL used when the model has none.
const DefaultBaseURL = "https://api.anthropic.com"

// Version is the anthropic-version header value sent with every request.
const Version = "2023-06-01"

// Provider streams from the Anthropic Messages API. The zero value is ready to use.
type Provider struct{}

// New returns an Anthropic Messages provider.
func New() *Provider { return &Provider{} }

var _ llm.Provider = (*Provider)(nil)

// init registers the anthropic-messages wire API (llm.RegisterAPI).
func init() { llm.RegisterAPI(llm.APIAnthropicMessages, func() llm.Provider { return New() }) }

// Stream sends req to {baseUrl}/v1/messages and streams the answer into emit (llm.Provider).
//
// Headers, in increasing precedence: x-api-key (req.APIKey, omitted when empty),
// anthropic-version, content-type and accept; the model's Headers; req.Headers. When the result
// carries an Authorization header (a provider with authHeader, an OAuth token) x-api-key is not
// sent. Hooks run as sse.Open documents.
//
// Failures never return a Go error: an HTTP status of 400 or more gives StopReason error with
// "<status>: <Anthropic's message>"; an "error" stream event, a refusal or an unknown stop reason
// give StopReason error; a stream that ends before message_stop gives StopReason error with the
// content received so far; a cancelled ctx gives StopReason aborted with the content so far.
func (p *Provider) Stream(ctx context.Context, req *llm.Request, emit func(llm.Event)) llm.Message {
	m := req.Model
	b := llm.NewBuilder(m, emit)
	if m == nil {
		return b.Fail("anthropic: the request has no model", false, nil)
	}
	call := &sse.Call{
		Client:  req.HTTPClient,
		URL:     Endpoint(m.BaseURL),
		Headers: headers(req),
		Payload: func() any { return buildPayload(req) },
		Hooks:   req.Hooks,

		StreamDeadline: req.StreamDeadline,
		ReadInterval:   req.ReadInterval,
	}
	s := &streamState{b: b, m: m}
	return sse.Stream(ctx, call, b, m, s.run)
}

// Endpoint returns the messages URL of baseURL: baseURL + "/v1/messages", or + "/messages" when
// baseURL already ends in "/v1". An empty baseURL means DefaultBaseURL.
func Endpoint(baseURL string) string {
	base := strings.TrimRight(baseURL, "/")
	if base == "" {
		base = DefaultBaseURL
	}
	if strings.HasSuffix(base, "/v1") {
		return base + "/messages"
	}
	return base + "/v1/messages"
}

func headers(req *llm.Request) map[string]string {
	h := map[string]string{
		"anthropic-version": Version,
		"content-type":      "application/json",
		"accept":            "text/event-stream",
	}
	if req.APIKey != "" {
		h["x-api-key"] = req.APIKey
	}
	h = sse.MergeHeaders(h, req.Model.Headers, req.Headers)
	if _, ok := sse.LookupHeader(h, "authorization"); ok {
		if k, ok := sse.LookupHeader(h, "x-api-key"); ok {
			delete(h, k)
		}
	}
	return h
}
