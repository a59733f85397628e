// Package providertest holds the test helpers the provider packages (llm/anthropic, llm/openai)
// share: a loopback server that answers with a canned SSE stream and records the request, a
// one-message request, and a JSON comparison. It is imported by tests only.
package providertest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/atomic-cli/atomic/llm"
)

// Recorded is what the server saw of one request.
type Recorded struct {
	Path   string
	Header http.Header
	Body   []byte
}

// SSEServer answers every request with stream as text/event-stream, recording the request into
// *rec when rec is not nil. The server is closed when the test ends.
func SSEServer(t *testing.T, rec *Recorded, stream string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if rec != nil {
			*rec = Recorded{Path: r.URL.Path, Header: r.Header.Clone(), Body: body}
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, stream)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// UserRequest is a request for model m with one user message.
func UserRequest(m *llm.Model, text string) *llm.Request {
	return &llm.Request{Model: m, Messages: []llm.Message{llm.UserText(text, nil, 1)}}
}

// AssertJSON fails the test unless got and want are equal JSON values (key order ignored).
func AssertJSON(t *testing.T, got []byte, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("body is not JSON: %v\n%s", err, got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad expectation: %v", err)
	}
	if !reflect.DeepEqual(g, w) {
		gi, _ := json.MarshalIndent(g, "", "  ")
		wi, _ := json.MarshalIndent(w, "", "  ")
		t.Fatalf("body =\n%s\nwant\n%s", gi, wi)
	}
}
