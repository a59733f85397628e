package anthropic

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/llm/sse"
)

// eventByEventServer sends stream one server-sent event per flush, like a model sending a token
// at a time.
func eventByEventServer(t *testing.T, stream string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, ev := range strings.SplitAfter(stream, "\n\n") {
			io.WriteString(w, ev)
			w.(http.Flusher).Flush()
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// With a ReadInterval the provider reads the same events and builds the same message as without.
func TestReadIntervalSameMessage(t *testing.T) {
	srv := eventByEventServer(t, toolUseStream)
	run := func(interval time.Duration) (llm.Message, []llm.Event) {
		req := userRequest(testModel(srv.URL), "list")
		req.ReadInterval = interval
		var events []llm.Event
		msg := New().Stream(context.Background(), req, func(e llm.Event) {
			e.Partial = nil
			events = append(events, e)
		})
		msg.Timestamp = 0
		return msg, events
	}
	plain, plainEvents := run(0)
	paced, pacedEvents := run(sse.MaxReadInterval)
	if plain.StopReason != llm.StopToolUse {
		t.Fatalf("plain stream stopped with %q %q", plain.StopReason, plain.ErrorMessage)
	}
	if !reflect.DeepEqual(paced, plain) {
		t.Errorf("paced message =\n%+v\nwant\n%+v", paced, plain)
	}
	for i := range pacedEvents {
		if pacedEvents[i].Message != nil {
			pacedEvents[i].Message.Timestamp = 0
		}
	}
	for i := range plainEvents {
		if plainEvents[i].Message != nil {
			plainEvents[i].Message.Timestamp = 0
		}
	}
	if !reflect.DeepEqual(pacedEvents, plainEvents) {
		t.Errorf("paced events =\n%+v\nwant\n%+v", pacedEvents, plainEvents)
	}
}

// An abort while the paced reader waits ends the stream as aborted, with the content so far.
func TestReadIntervalAbort(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, cutStream)
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req := userRequest(testModel(srv.URL), "hi")
	req.ReadInterval = sse.MaxReadInterval
	msg := New().Stream(ctx, req, func(e llm.Event) {
		if e.Type == llm.EventTextDelta && e.Partial.Content[e.ContentIndex].Text == "I'll list the files." {
			cancel()
		}
	})
	if msg.StopReason != llm.StopAborted {
		t.Fatalf("got %q %q, want aborted", msg.StopReason, msg.ErrorMessage)
	}
	if llm.TextOf(msg.Content, "") != "I'll list the files." {
		t.Fatalf("partial content not kept: %+v", msg.Content)
	}
}
