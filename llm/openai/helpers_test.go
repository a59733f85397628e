package openai

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/atomic-cli/atomic/internal/providertest"
	"github.com/atomic-cli/atomic/llm"
)

// statusServer answers every request with status and body.
func statusServer(t *testing.T, status int, body string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// cutServer writes stream, then drops the connection in the middle of an event, without the
// chunked-encoding terminator.
func cutServer(t *testing.T, stream string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		io.WriteString(w, stream+"data: {\"id\":\"cut")
		w.(http.Flusher).Flush()
		conn, _, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		conn.Close()
	}))
	t.Cleanup(srv.Close)
	return srv
}

// hangServer writes stream and then keeps the response open until the client goes away.
func hangServer(t *testing.T, stream string) *httptest.Server {
	t.Helper()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, stream)
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(func() { close(release); srv.Close() })
	return srv
}

// collect streams req with p and returns the final message and the event types in order.
func collect(p llm.Provider, req *llm.Request) (llm.Message, []string) {
	var types []string
	msg := p.Stream(context.Background(), req, func(e llm.Event) { types = append(types, e.Type) })
	return msg, types
}

func assertTypes(t *testing.T, got []string, want ...string) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("events =\n%q\nwant\n%q", got, want)
	}
}

func assertPartialError(t *testing.T, msg llm.Message, reason llm.StopReason, text string) {
	t.Helper()
	if msg.StopReason != reason || msg.ErrorMessage == "" {
		t.Fatalf("got %q %q, want %q with a message", msg.StopReason, msg.ErrorMessage, reason)
	}
	if reason == llm.StopError && !strings.Contains(msg.ErrorMessage, "stream ended before the response was complete") {
		t.Fatalf("error message = %q", msg.ErrorMessage)
	}
	if got := llm.TextOf(msg.Content, ""); got != text {
		t.Fatalf("partial text = %q, want %q", got, text)
	}
}

// memTransport answers every request with body, without a network.
type memTransport []byte

func (b memTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		io.Copy(io.Discard, r.Body)
		r.Body.Close()
	}
	return &http.Response{
		StatusCode: 200, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:  http.Header{"Content-Type": {"text/event-stream"}},
		Body:    io.NopCloser(bytes.NewReader(b)),
		Request: r,
	}, nil
}

// The shared provider test helpers (internal/providertest).
type recorded = providertest.Recorded

var (
	sseServer   = providertest.SSEServer
	userRequest = providertest.UserRequest
	assertJSON  = providertest.AssertJSON
)
