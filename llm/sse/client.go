package sse

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/atomic-cli/atomic/llm"
)

// ErrIncomplete is the cause of a stream that ended (EOF, cut connection, read error) before the
// provider's terminal event. Providers report it as an assistant message with StopReason error,
// keeping the content streamed so far.
var ErrIncomplete = errors.New("stream ended before the response was complete")

// Call describes one streaming POST of a provider.
type Call struct {
	// Client sends the request; nil means http.DefaultClient.
	Client *http.Client
	// URL is the endpoint, e.g. "https://api.anthropic.com/v1/messages".
	URL string
	// Headers are the request headers, already layered with MergeHeaders. Hooks.BeforeHeaders
	// edits this map in place; keys with an empty value are not sent.
	Headers map[string]string
	// Payload builds the request body value. It is called once, after BeforeHeaders, and must
	// return a value encoding/json can marshal (a struct or a map[string]any).
	Payload func() any
	// Hooks are the extension seams; nil or nil fields are skipped.
	Hooks *llm.Hooks
	// StreamDeadline is the longest the server may stay silent: before the response headers and
	// between two reads of the body that bring data. Past it the call is cut with an error
	// wrapping ErrStalled. 0 means no deadline.
	StreamDeadline time.Duration
	// ReadInterval coalesces the reads of the event stream: after a read that brought less than a
	// full buffer, the next one waits until this long has passed since it, so one read returns the
	// events that came meanwhile instead of one wakeup per event. The first event, an event after a
	// longer pause, and an abort are not delayed; any other event waits at most this long. 0 reads
	// as soon as data arrives; values above MaxReadInterval are clamped to it.
	ReadInterval time.Duration
}

// Response is an open event stream whose HTTP status was below 400.
type Response struct {
	watch *watchdog // nil without a StreamDeadline

	// HTTP is the response; its Body is read through Events.
	HTTP *http.Response
	// Events reads the server-sent events of the body.
	Events *Reader
}

// Close closes the response body.
func (r *Response) Close() error {
	if r.watch != nil {
		r.watch.stop()
	}
	return r.HTTP.Body.Close()
}

// StatusError is the error Open returns for an HTTP status of 400 or more.
type StatusError struct {
	StatusCode int         // e.g. 429
	Status     string      // e.g. "429 Too Many Requests"
	Message    string      // the provider's error message, or the clipped body when it has none
	Header     http.Header // the response headers (Retry-After and the like)
}

// Error returns "<status>: <provider message>", e.g. "429 Too Many Requests: Rate limit reached".
func (e *StatusError) Error() string {
	if e.Message == "" {
		return e.Status
	}
	return e.Status + ": " + e.Message
}

// Open runs the HTTP path of one provider call, calling the hooks at their points (events.md
// §3.4): BeforeHeaders with c.Headers, then c.Payload, then BeforeRequest with the payload as
// decoded JSON (its result is what is sent), then OnRequest with the final body, the POST, then
// AfterResponse with the status and headers before the body is read.
//
// The payload is encoded like JSON.stringify (no HTML escaping). When no BeforeRequest hook is set
// the payload is marshalled once, keeping the field order of a struct payload.
//
// On success the caller reads res.Events and must Close res. Errors: *StatusError for a status of
// 400 or more (the body has been read and closed); an error quoting the body when a success
// status comes with an application/json body instead of an event stream; the encoding error of
// a payload that cannot be marshalled; an error wrapping ErrStalled when c.StreamDeadline passed
// without a byte from the server; otherwise the transport's error (a *url.Error naming the
// method, URL and cause, or ctx's error when ctx was cancelled).
func Open(ctx context.Context, c *Call) (*Response, error) {
	hooks := c.Hooks
	if hooks == nil {
		hooks = &llm.Hooks{}
	}
	if c.Headers == nil {
		c.Headers = map[string]string{}
	}
	if hooks.BeforeHeaders != nil {
		before := make(map[string]bool, len(c.Headers))
		for k := range c.Headers {
			before[k] = true
		}
		hooks.BeforeHeaders(ctx, c.Headers)
		preferNew(c.Headers, before)
	}
	var payload any
	if c.Payload != nil {
		payload = c.Payload()
	}
	if hooks.BeforeRequest != nil {
		decoded, err := decode(payload)
		if err != nil {
			return nil, err
		}
		payload = hooks.BeforeRequest(ctx, decoded)
	}
	body, err := Marshal(payload)
	if err != nil {
		return nil, fmt.Errorf("encode the request body: %w", err)
	}
	if hooks.OnRequest != nil {
		hooks.OnRequest(ctx, body)
	}

	watch := newWatchdog(ctx, c.StreamDeadline)
	rctx := ctx
	if watch != nil {
		rctx = watch.ctx
	}
	var conn *connWatch // the connection, for the paced body's low-water mark (lowwater.go)
	reqCtx := rctx
	if c.ReadInterval > 0 {
		conn = &connWatch{}
		reqCtx = conn.trace(rctx)
	}
	req, err := http.NewRequestWithContext(reqCtx, http.MethodPost, c.URL, bytes.NewReader(body))
	if err != nil {
		if watch != nil {
			watch.stop()
		}
		return nil, fmt.Errorf("build the request to %q: %w", c.URL, err)
	}
	for k, v := range c.Headers {
		if v != "" {
			req.Header.Set(k, v)
		}
	}
	client := c.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		if watch != nil {
			err = watch.cause(err)
			watch.stop()
		}
		return nil, err
	}
	if watch != nil {
		watch.kick("between two stream events")
		resp.Body = &watchedBody{ReadCloser: resp.Body, w: watch}
	}
	if hooks.AfterResponse != nil {
		hooks.AfterResponse(ctx, resp.StatusCode, resp.Header)
	}
	if resp.StatusCode >= 400 {
		defer resp.Body.Close()
		raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		if err != nil && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &StatusError{
			StatusCode: resp.StatusCode,
			Status:     statusLine(resp),
			Message:    ErrorMessage(raw),
			Header:     resp.Header,
		}
	}
	if ct := resp.Header.Get("Content-Type"); strings.HasPrefix(ct, "application/json") {
		// A proxy or a server that ignored "stream": true; its body usually says why.
		defer resp.Body.Close()
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		return nil, fmt.Errorf("the server answered %s with %s instead of an event stream: %s",
			statusLine(resp), ct, ErrorMessage(raw))
	}
	if conn != nil {
		resp.Body = pace(rctx, resp.Body, c.ReadInterval, conn.lowWater())
	}
	return &Response{HTTP: resp, Events: NewReader(resp.Body), watch: watch}, nil
}

// statusLine returns "<code> <reason>", preferring the standard reason phrase; a code without one
// (Anthropic's 529) keeps the server's phrase unless it is Go's "status code N" filler.
func statusLine(resp *http.Response) string {
	code := strconv.Itoa(resp.StatusCode)
	if text := http.StatusText(resp.StatusCode); text != "" {
		return code + " " + text
	}
	reason := strings.TrimSpace(strings.TrimPrefix(resp.Status, code))
	if reason == "" || reason == "status code "+code {
		return code
	}
	return code + " " + reason
}

// ErrorMessage extracts the human-readable message of a provider's error body: error.message of
// {"error":{"message":…}} (OpenAI) and {"type":"error","error":{"type":…,"message":…}}
// (Anthropic), a string "error" or a top-level "message". A body that is not such JSON is
// returned trimmed and clipped to 1000 bytes; an empty body gives "".
func ErrorMessage(body []byte) string {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return ""
	}
	var obj struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  string          `json:"detail"`
	}
	if json.Unmarshal(body, &obj) == nil {
		if len(obj.Error) > 0 {
			var inner struct {
				Message string `json:"message"`
			}
			if json.Unmarshal(obj.Error, &inner) == nil && inner.Message != "" {
				return inner.Message
			}
			var s string
			if json.Unmarshal(obj.Error, &s) == nil && s != "" {
				return s
			}
		}
		if obj.Message != "" {
			return obj.Message
		}
		if obj.Detail != "" {
			return obj.Detail
		}
	}
	return clip(string(body), 1000)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// StreamError returns the error of a stream that stopped with err (from Reader.Next) before the
// terminal event, which the provider names in terminal (e.g. "message_stop"). It wraps
// ErrIncomplete, except for a line past the Reader's cap (ErrLineTooLong), which is not a
// transient cut.
func StreamError(err error, terminal string) error {
	if errors.Is(err, ErrStalled) {
		return fmt.Errorf("%w: %w", ErrIncomplete, err)
	}
	if errors.Is(err, ErrLineTooLong) {
		return fmt.Errorf("stream refused: %w", err) // not ErrIncomplete: retrying gets the same line
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%w: the server closed the stream without %s", ErrIncomplete, terminal)
	}
	return fmt.Errorf("%w: %v", ErrIncomplete, err)
}

// Failure turns the error of a provider call into the ErrorMessage of the failed assistant message
// and whether the call was aborted: a cancelled ctx means aborted, whatever err says.
func Failure(ctx context.Context, err error) (msg string, aborted bool) {
	if ctx.Err() != nil {
		return "", true
	}
	if err == nil {
		return "unknown error", false
	}
	return err.Error(), false
}

// Stream is the part of a provider's llm.Provider.Stream that every wire API shares: it opens c
// and returns what read makes of the events. When Open fails it returns b's failed message for
// model m instead, aborted when ctx was cancelled (see Failure). The response is closed before
// Stream returns.
func Stream(ctx context.Context, c *Call, b *llm.Builder, m *llm.Model, read func(context.Context, *Reader) llm.Message) llm.Message {
	res, err := Open(ctx, c)
	if err != nil {
		msg, aborted := Failure(ctx, err)
		return b.Fail(msg, aborted, m)
	}
	defer res.Close()
	return read(ctx, res.Events)
}

// BodyAppender is a payload that encodes itself: AppendRequestBody appends exactly the bytes
// Marshal's encoding/json path would write for it (a provider's long conversation is encoded
// without reflection and without regrowing the buffer).
type BodyAppender interface {
	AppendRequestBody(dst []byte) ([]byte, error)
}

// Marshal encodes v like JSON.stringify: compact, without escaping <, > and &. A BodyAppender
// encodes itself.
func Marshal(v any) ([]byte, error) {
	if a, ok := v.(BodyAppender); ok {
		return a.AppendRequestBody(nil)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// decode turns a payload into the JSON-shaped value hooks receive (maps, slices, float64, string,
// bool, nil).
func decode(payload any) (any, error) {
	switch payload.(type) {
	case map[string]any, nil:
		return payload, nil
	}
	b, err := Marshal(payload)
	if err != nil {
		return nil, fmt.Errorf("encode the request body: %w", err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, fmt.Errorf("decode the request body for hooks: %w", err)
	}
	return v, nil
}

// MergeHeaders copies the headers of each layer into dst in order; a name matches an existing
// one case-insensitively, and the later value (and spelling) replaces it. It returns dst, which
// is allocated when nil.
func MergeHeaders(dst map[string]string, layers ...map[string]string) map[string]string {
	if dst == nil {
		dst = map[string]string{}
	}
	for _, layer := range layers {
		for k, v := range layer {
			if old, ok := LookupHeader(dst, k); ok {
				delete(dst, old)
			}
			dst[k] = v
		}
	}
	return dst
}

// preferNew drops the keys of h that a hook re-added in another letter case (a new key equal to
// an old one case-insensitively), so the hook's value is the one sent whatever the map order.
func preferNew(h map[string]string, before map[string]bool) {
	for k := range h {
		if before[k] {
			continue
		}
		for old := range before {
			if old != k && strings.EqualFold(old, k) {
				delete(h, old)
			}
		}
	}
}

// LookupHeader returns the key of h that equals name case-insensitively.
func LookupHeader(h map[string]string, name string) (key string, ok bool) {
	if _, ok := h[name]; ok {
		return name, true
	}
	for k := range h {
		if strings.EqualFold(k, name) {
			return k, true
		}
	}
	return "", false
}
