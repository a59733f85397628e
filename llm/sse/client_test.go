package sse

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/atomic-cli/atomic/llm"
)

func TestOpenHooksInOrder(t *testing.T) {
	var gotBody, gotAuth, gotExtra string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		gotBody, gotAuth, gotExtra = string(b), r.Header.Get("Authorization"), r.Header.Get("X-Extra")
		w.Header().Set("X-Request-Id", "req_1")
		io.WriteString(w, "data: hi\n\n")
	}))
	defer srv.Close()

	var order []string
	payloadBuilt := false
	call := &Call{
		URL:     srv.URL,
		Headers: MergeHeaders(nil, map[string]string{"authorization": "Bearer a", "x-drop": "1"}, map[string]string{"X-Extra": "e"}),
		Payload: func() any {
			order = append(order, "payload")
			payloadBuilt = true
			return struct {
				Model string `json:"model"`
				Text  string `json:"text"`
			}{"m", "<b>&"}
		},
		Hooks: &llm.Hooks{
			BeforeHeaders: func(_ context.Context, h map[string]string) {
				order = append(order, "headers")
				if payloadBuilt {
					t.Error("BeforeHeaders ran after the payload was built")
				}
				delete(h, "x-drop")
				h["Authorization"] = "Bearer b"
			},
			BeforeRequest: func(_ context.Context, p any) any {
				order = append(order, "request")
				m, ok := p.(map[string]any)
				if !ok || m["model"] != "m" {
					t.Errorf("BeforeRequest payload = %#v, want decoded JSON", p)
				}
				return map[string]any{"replaced": true, "text": m["text"]}
			},
			OnRequest: func(_ context.Context, body []byte) {
				order = append(order, "onrequest:"+string(body))
			},
			AfterResponse: func(_ context.Context, status int, h http.Header) {
				order = append(order, "response")
				if status != 200 || h.Get("X-Request-Id") != "req_1" {
					t.Errorf("AfterResponse got %d %v", status, h)
				}
			},
		},
	}
	res, err := Open(context.Background(), call)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	ev, err := res.Events.Next()
	if err != nil || string(ev.Data) != "hi" {
		t.Fatalf("event = %q, %v", ev.Data, err)
	}
	want := `{"replaced":true,"text":"<b>&"}`
	wantOrder := []string{"headers", "payload", "request", "onrequest:" + want, "response"}
	if strings.Join(order, "|") != strings.Join(wantOrder, "|") {
		t.Fatalf("hook order = %q, want %q", order, wantOrder)
	}
	if gotBody != want {
		t.Fatalf("body = %s, want %s", gotBody, want)
	}
	if gotAuth != "Bearer b" || gotExtra != "e" {
		t.Fatalf("headers: authorization %q, x-extra %q", gotAuth, gotExtra)
	}
}

func TestOpenKeepsStructFieldOrderWithoutHooks(t *testing.T) {
	var body string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		body = string(b)
	}))
	defer srv.Close()
	res, err := Open(context.Background(), &Call{URL: srv.URL, Payload: func() any {
		return struct {
			Z int `json:"z"`
			A int `json:"a"`
		}{1, 2}
	}})
	if err != nil {
		t.Fatal(err)
	}
	res.Close()
	if body != `{"z":1,"a":2}` {
		t.Fatalf("body = %s", body)
	}
}

func TestOpenStatusErrors(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		want   string
	}{
		{"openai shape", 429, `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`, "429 Too Many Requests: Rate limit reached"},
		{"anthropic shape", 529, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, "529: Overloaded"},
		{"string error", 400, `{"error":"bad model"}`, "400 Bad Request: bad model"},
		{"plain text", 502, "upstream down\n", "502 Bad Gateway: upstream down"},
		{"empty body", 500, "", "500 Internal Server Error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tt.status)
				io.WriteString(w, tt.body)
			}))
			defer srv.Close()
			called := false
			_, err := Open(context.Background(), &Call{URL: srv.URL, Hooks: &llm.Hooks{
				AfterResponse: func(_ context.Context, status int, _ http.Header) { called = status == tt.status },
			}})
			var se *StatusError
			if !errors.As(err, &se) || se.StatusCode != tt.status {
				t.Fatalf("err = %v, want a StatusError %d", err, tt.status)
			}
			if err.Error() != tt.want {
				t.Fatalf("err = %q, want %q", err, tt.want)
			}
			if !called {
				t.Fatal("AfterResponse was not called with the error status")
			}
		})
	}
}

func TestStreamError(t *testing.T) {
	err := StreamError(io.ErrUnexpectedEOF, "message_stop")
	if !errors.Is(err, ErrIncomplete) || !strings.Contains(err.Error(), "message_stop") {
		t.Fatalf("StreamError(EOF) = %v", err)
	}
	err = StreamError(errors.New("connection reset by peer"), "[DONE]")
	if !errors.Is(err, ErrIncomplete) || !strings.Contains(err.Error(), "connection reset by peer") {
		t.Fatalf("StreamError(read error) = %v", err)
	}
}

func TestMergeHeadersCaseInsensitive(t *testing.T) {
	h := MergeHeaders(nil, map[string]string{"x-api-key": "a", "accept": "text/event-stream"}, map[string]string{"X-Api-Key": "b"})
	if len(h) != 2 || h["X-Api-Key"] != "b" {
		t.Fatalf("headers = %v", h)
	}
	if k, ok := LookupHeader(h, "ACCEPT"); !ok || k != "accept" {
		t.Fatalf("LookupHeader = %q, %v", k, ok)
	}
}

func TestOpenJSONInsteadOfStream(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"error":{"message":"streaming is disabled for this key"}}`)
	}))
	defer srv.Close()
	_, err := Open(context.Background(), &Call{URL: srv.URL})
	if err == nil || !strings.Contains(err.Error(), "streaming is disabled for this key") || !strings.Contains(err.Error(), "instead of an event stream") {
		t.Fatalf("err = %v", err)
	}
}
