package replay

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/atomic-cli/atomic/llm/script"
)

// Recorder is an http.RoundTripper that forwards requests to a base transport and keeps a copy
// of every response, to be written out as a replay file. Request headers and bodies are never
// kept; of the response headers only those a provider parser may read are kept (content type,
// request ids, retry and rate-limit headers), so a recording carries no credentials or cookies.
//
// A Recorder is safe for concurrent use.
type Recorder struct {
	api  string
	base http.RoundTripper

	mu    sync.Mutex // guards calls
	calls []*call
}

// call is one recorded exchange; its fields after count are written by the response body's
// reader and read by File, under Recorder.mu.
type call struct {
	count   int // assistant turns in the request; -1 when the body holds no conversation
	turn    Turn
	body    bytes.Buffer
	settled bool // the body was read to its end, failed, or was closed
}

// NewRecorder returns a Recorder for responses of api (an llm.API* name) sent through base;
// nil base means http.DefaultTransport.
func NewRecorder(api string, base http.RoundTripper) *Recorder {
	if base == nil {
		base = http.DefaultTransport
	}
	return &Recorder{api: api, base: base}
}

// RoundTrip implements http.RoundTripper. Failed round trips are not recorded.
func (r *Recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	count := -1
	if req.Body != nil && req.Body != http.NoBody {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("replay: record: read request body: %w", err)
		}
		if n, ok := script.CountAssistantTurns(b); ok {
			count = n
		}
		req = req.Clone(req.Context())
		req.Body = io.NopCloser(bytes.NewReader(b))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
		req.ContentLength = int64(len(b))
	}
	resp, err := r.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	c := &call{count: count, turn: Turn{Status: resp.StatusCode, Headers: keptHeaders(resp.Header)}}
	r.mu.Lock()
	r.calls = append(r.calls, c)
	r.mu.Unlock()
	resp.Body = &tee{rec: r, call: c, body: resp.Body}
	return resp, nil
}

// File returns the recording as a replay file: the exchanges whose bodies have been read to
// their end, failed or been closed, in call order. A body that failed or was closed early is
// recorded as truncated. The match mode is assistant-count when the requests held 0, 1, 2, ...
// assistant turns in call order, and request-count otherwise (for example after a retry).
func (r *Recorder) File() *File {
	r.mu.Lock()
	defer r.mu.Unlock()
	f := &File{API: r.api, Match: MatchAssistantCount, Turns: []Turn{}}
	for _, c := range r.calls {
		if !c.settled {
			continue
		}
		if c.count != len(f.Turns) {
			f.Match = MatchRequestCount
		}
		t := c.turn
		t.Body = c.body.String()
		f.Turns = append(f.Turns, t)
	}
	return f
}

// tee copies a response body into its call as it is read.
type tee struct {
	rec  *Recorder
	call *call
	body io.ReadCloser
}

// Read reads from the response body and copies what it read into the call.
func (t *tee) Read(p []byte) (int, error) {
	n, err := t.body.Read(p)
	t.rec.mu.Lock()
	defer t.rec.mu.Unlock()
	if t.call.settled {
		return n, err
	}
	t.call.body.Write(p[:n])
	switch {
	case errors.Is(err, io.EOF):
		t.call.settled = true
	case err != nil:
		t.call.settled, t.call.turn.Truncated = true, true
	}
	return n, err
}

// Close closes the response body; a call not read to its end is marked truncated.
func (t *tee) Close() error {
	t.rec.mu.Lock()
	if !t.call.settled {
		t.call.settled, t.call.turn.Truncated = true, true
	}
	t.rec.mu.Unlock()
	return t.body.Close()
}

// keptHeaders returns the response headers worth replaying, with lower-case names.
func keptHeaders(h http.Header) map[string]string {
	m := map[string]string{}
	for k, v := range h {
		name := strings.ToLower(k)
		keep := name == "content-type" || name == "request-id" || name == "x-request-id" ||
			name == "retry-after" || name == "retry-after-ms" || name == "x-should-retry" ||
			strings.HasPrefix(name, "anthropic-ratelimit-") || strings.HasPrefix(name, "x-ratelimit-")
		if keep && len(v) > 0 {
			m[name] = v[0]
		}
	}
	if len(m) == 0 {
		return nil
	}
	return m
}
