package sse

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// scriptedTransport answers every request inside the test's bubble: it waits headerDelay (or
// forever when negative) before the headers, then the body sends each part after its delay (a
// negative delay: never). Like http.Transport, a cancelled request context ends a pending wait
// and the body's reads.
type scriptedTransport struct {
	headerDelay time.Duration
	parts       []part
}

type part struct {
	delay time.Duration
	data  string
}

func wait(ctx context.Context, d time.Duration) error {
	if d < 0 {
		<-ctx.Done()
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *scriptedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	if err := wait(ctx, s.headerDelay); err != nil {
		return nil, err
	}
	pr, pw := io.Pipe()
	go func() {
		for _, p := range s.parts {
			if err := wait(ctx, p.delay); err != nil {
				pw.CloseWithError(err)
				return
			}
			if _, err := pw.Write([]byte(p.data)); err != nil {
				return
			}
		}
		pw.Close()
	}()
	return &http.Response{StatusCode: 200, Status: "200 OK", Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: pr}, nil
}

func readEvents(t *testing.T, tr *scriptedTransport, deadline time.Duration) ([]string, error) {
	t.Helper()
	res, err := Open(context.Background(), &Call{Client: &http.Client{Transport: tr}, URL: "http://fake/v1/messages", StreamDeadline: deadline})
	if err != nil {
		return nil, err
	}
	defer res.Close()
	var got []string
	for {
		ev, err := res.Events.Next()
		if err == io.EOF {
			return got, nil
		}
		if err != nil {
			return got, err
		}
		got = append(got, string(ev.Data))
	}
}

func TestStreamDeadlineBeforeHeaders(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		_, err := readEvents(t, &scriptedTransport{headerDelay: -1}, 2*time.Second)
		if !errors.Is(err, ErrStalled) || !strings.Contains(err.Error(), "before the response headers") {
			t.Fatalf("Open = %v, want a stall before the headers", err)
		}
		if d := time.Since(start); d != 2*time.Second {
			t.Errorf("cut after %s, want the 2s deadline", d)
		}
	})
}

func TestStreamDeadlineAfterFirstEvent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := &scriptedTransport{parts: []part{{0, "data: one\n\n"}, {-1, ""}}}
		got, err := readEvents(t, tr, 2*time.Second)
		if !errors.Is(err, ErrStalled) || !strings.Contains(err.Error(), "between two stream events") {
			t.Fatalf("Next = %v, want a stall between events", err)
		}
		if len(got) != 1 || got[0] != "one" {
			t.Errorf("events before the stall = %q", got)
		}
		if se := StreamError(err, "message_stop"); !errors.Is(se, ErrIncomplete) || !errors.Is(se, ErrStalled) {
			t.Errorf("StreamError = %v, want ErrIncomplete and ErrStalled", se)
		}
	})
}

func TestStreamDeadlineMidLine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := &scriptedTransport{parts: []part{{0, "data: one\n\ndata: hal"}, {-1, ""}}}
		_, err := readEvents(t, tr, 2*time.Second)
		if !errors.Is(err, ErrStalled) {
			t.Fatalf("Next = %v, want a stall", err)
		}
	})
}

// The deadline bounds the gap between events, not the length of the stream.
func TestStreamDeadlineSlowSteadyStream(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var parts []part
		for i := 0; i < 10; i++ {
			parts = append(parts, part{1500 * time.Millisecond, "data: x\n\n"})
		}
		tr := &scriptedTransport{headerDelay: 1500 * time.Millisecond, parts: parts}
		got, err := readEvents(t, tr, 2*time.Second)
		if err != nil || len(got) != 10 {
			t.Fatalf("got %d events, err %v; want 10 and EOF", len(got), err)
		}
	})
}

func TestStreamDeadlineZeroIsOff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := &scriptedTransport{headerDelay: time.Hour, parts: []part{{time.Hour, "data: late\n\n"}}}
		got, err := readEvents(t, tr, 0)
		if err != nil || len(got) != 1 {
			t.Fatalf("got %q, %v; want the late event", got, err)
		}
	})
}
