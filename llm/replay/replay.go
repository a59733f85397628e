// Package replay is the offline provider transport: it answers provider HTTP requests with
// recorded raw responses, so the real provider code (llm/anthropic, llm/openai) parses real
// stream bytes with no network and no API key. The newcomer demo runs on it.
//
// A replay file is JSON:
//
//	{
//	  "api": "anthropic-messages",         // llm.API* name of the recorded wire API
//	  "match": "assistant-count",          // or "request-count"; "" means assistant-count
//	  "comment": "free text for humans",   // optional
//	  "turns": [
//	    {
//	      "status": 200,                   // HTTP status; 0 means 200
//	      "headers": {"content-type": "text/event-stream; charset=utf-8"},
//	      "body": "event: message_start\ndata: {...}\n\n...",
//	      "truncated": false,              // true: the body ends in an unexpected EOF
//	      "delay_ms": 0                    // pause before every SSE event after the first
//	    }
//	  ]
//	}
//
// Request i is answered with turns[i], where i is the number of assistant turns in the
// request's conversation (script.CountAssistantTurns: "assistant" roles of the messages array,
// runs of assistant items of a Responses input array), so the same file answers a conversation
// that is resumed or replayed. When the body holds no conversation, or "match" is
// "request-count", i is the number of requests the transport has answered before.
//
// Package replay imports llm and llm/script (for the encode layer), nothing else of
// atomic. A File must not be changed while a transport made from it is in use; transports and
// Recorders are safe for concurrent use.
package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/llm/script"
)

// Turn selection modes of a File.
const (
	MatchAssistantCount = script.MatchAssistantCount
	MatchRequestCount   = script.MatchRequestCount
)

// File is a replay file: the recorded responses of one wire API.
type File struct {
	// API is the llm.API* name of the recorded wire API.
	API string `json:"api"`
	// Match is MatchAssistantCount ("" too) or MatchRequestCount.
	Match string `json:"match,omitempty"`
	// Comment is free text for humans.
	Comment string `json:"comment,omitempty"`
	// Turns are the recorded responses, indexed as Match says.
	Turns []Turn `json:"turns"`
}

// Turn is one recorded HTTP response.
type Turn struct {
	Status    int               `json:"status"`              // HTTP status; 0 means 200
	Headers   map[string]string `json:"headers,omitempty"`   // response headers
	Body      string            `json:"body"`                // the raw response body
	Truncated bool              `json:"truncated,omitempty"` // the body ends in io.ErrUnexpectedEOF
	DelayMS   int               `json:"delay_ms,omitempty"`  // pause before each SSE event after the first
}

// ErrNoTurn is returned (wrapped) by a transport asked for a turn the file does not hold.
var ErrNoTurn = errors.New("no recorded response")

// Load reads and validates a replay file.
func Load(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("replay: load: %w", err)
	}
	f, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("replay: load %s: %w", path, err)
	}
	return f, nil
}

// Parse decodes and validates a replay file. Unknown fields are rejected.
func Parse(data []byte) (*File, error) {
	var f File
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("replay: parse: %w", err)
	}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	return &f, nil
}

// Validate reports the first thing wrong with the file.
func (f *File) Validate() error {
	switch f.API {
	case llm.APIAnthropicMessages, llm.APIOpenAICompletions, llm.APIOpenAIResponses, llm.APIGoogleGenerativeAI:
	default:
		return fmt.Errorf("replay: api %q: want one of %s, %s, %s, %s", f.API, llm.APIAnthropicMessages,
			llm.APIOpenAICompletions, llm.APIOpenAIResponses, llm.APIGoogleGenerativeAI)
	}
	switch f.Match {
	case "", MatchAssistantCount, MatchRequestCount:
	default:
		return fmt.Errorf("replay: match %q: want %q or %q", f.Match, MatchAssistantCount, MatchRequestCount)
	}
	for i, t := range f.Turns {
		if t.Status != 0 && (t.Status < 100 || t.Status > 599) {
			return fmt.Errorf("replay: turn %d: status %d is not an HTTP status", i, t.Status)
		}
		if t.DelayMS < 0 {
			return fmt.Errorf("replay: turn %d: delay_ms %d is negative", i, t.DelayMS)
		}
	}
	return nil
}

// Marshal returns the file's JSON, indented for review in a diff.
func (f *File) Marshal() ([]byte, error) {
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("replay: marshal: %w", err)
	}
	return append(b, '\n'), nil
}

// Save writes the file to path.
func (f *File) Save(path string) error {
	b, err := f.Marshal()
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("replay: save: %w", err)
	}
	return nil
}

// Transport returns a RoundTripper that answers from the file. Each call returns a transport
// with its own request counter (the fallback turn index). The transport reads and closes the
// request body; it returns an error wrapping ErrNoTurn when the selected turn is past the end
// of the file, and the request context's error when it is cancelled.
func (f *File) Transport() http.RoundTripper { return &transport{file: f} }

// HTTPClient returns a client whose transport is f.Transport(), for llm.Request.HTTPClient.
func (f *File) HTTPClient() *http.Client { return &http.Client{Transport: f.Transport()} }

type transport struct {
	file *File

	mu    sync.Mutex // guards calls
	calls int        // requests answered so far
}

// RoundTrip answers req with the file's turn for it.
func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("replay: read request body: %w", err)
		}
		body = b
	}
	if err := req.Context().Err(); err != nil {
		return nil, err
	}
	t.mu.Lock()
	index := t.calls
	t.calls++
	t.mu.Unlock()
	if t.file.Match != MatchRequestCount {
		if n, ok := script.CountAssistantTurns(body); ok {
			index = n
		}
	}
	if index >= len(t.file.Turns) {
		return nil, fmt.Errorf("replay: %s %s: turn %d: %w (the file holds %d turns)",
			req.Method, req.URL.Path, index, ErrNoTurn, len(t.file.Turns))
	}
	turn := t.file.Turns[index]
	status := turn.Status
	if status == 0 {
		status = http.StatusOK
	}
	header := http.Header{}
	for k, v := range turn.Headers {
		header.Set(k, v)
	}
	return &http.Response{
		Status:        strconv.Itoa(status) + " " + http.StatusText(status),
		StatusCode:    status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        header,
		Body:          newBody(req.Context(), turn),
		ContentLength: -1,
		Request:       req,
	}, nil
}

// body plays a recorded body: event by event with the turn's delay, ending in
// io.ErrUnexpectedEOF when the turn is truncated and in the context's error once it is done.
type body struct {
	ctx       context.Context
	events    []string // the body split after each blank line
	pending   string   // rest of the event being read
	next      int      // index of the next event in events
	delay     time.Duration
	truncated bool
	closed    bool
}

func newBody(ctx context.Context, t Turn) *body {
	b := &body{ctx: ctx, delay: time.Duration(t.DelayMS) * time.Millisecond, truncated: t.Truncated}
	if b.delay > 0 {
		b.events = strings.SplitAfter(t.Body, "\n\n")
	} else {
		b.events = []string{t.Body}
	}
	return b
}

// Read returns the next bytes of the body, pausing before each event after the first.
func (b *body) Read(p []byte) (int, error) {
	if b.closed {
		return 0, errors.New("replay: read on closed body")
	}
	if err := b.ctx.Err(); err != nil {
		return 0, err
	}
	for b.pending == "" {
		if b.next == len(b.events) {
			if b.truncated {
				return 0, io.ErrUnexpectedEOF
			}
			return 0, io.EOF
		}
		if b.next > 0 && b.delay > 0 {
			timer := time.NewTimer(b.delay)
			select {
			case <-b.ctx.Done():
				timer.Stop()
				return 0, b.ctx.Err()
			case <-timer.C:
			}
		}
		b.pending = b.events[b.next]
		b.next++
	}
	n := copy(p, b.pending)
	b.pending = b.pending[n:]
	return n, nil
}

// Close marks the body closed; later reads fail.
func (b *body) Close() error {
	b.closed = true
	return nil
}
