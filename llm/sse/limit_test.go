package sse

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/atomic-cli/atomic/llm"
)

// endless is a reader that never ends and never sends a line break after its prefix.
type endless struct {
	prefix string
	n      int64 // bytes served
}

func (e *endless) Read(p []byte) (int, error) {
	if e.prefix != "" {
		n := copy(p, e.prefix)
		e.prefix = e.prefix[n:]
		e.n += int64(n)
		return n, nil
	}
	for i := range p {
		p[i] = 'a'
	}
	e.n += int64(len(p))
	return len(p), nil
}

func TestReaderRefusesEndlessLine(t *testing.T) {
	src := &endless{prefix: "data: "}
	r := NewReaderLimit(src, 1<<20)
	_, err := r.Next()
	if !errors.Is(err, ErrLineTooLong) {
		t.Fatalf("Next = %v, want ErrLineTooLong", err)
	}
	if src.n > 2<<20 {
		t.Errorf("read %d bytes for a 1 MiB cap", src.n)
	}
	if !strings.Contains(err.Error(), "1048576 bytes") {
		t.Errorf("error %q does not name the cap", err)
	}
}

func TestReaderRefusesEndlessEventData(t *testing.T) {
	// Many short data lines without the blank line that ends the event.
	line := "data: " + strings.Repeat("x", 1000) + "\n"
	r := NewReaderLimit(io.MultiReader(strings.NewReader(strings.Repeat(line, 2000))), 256<<10)
	_, err := r.Next()
	if !errors.Is(err, ErrLineTooLong) {
		t.Fatalf("Next = %v, want ErrLineTooLong", err)
	}
}

func TestReaderDefaultCapBoundsMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 64 MiB")
	}
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	src := &endless{prefix: "data: "}
	_, err := NewReader(src).Next()
	if !errors.Is(err, ErrLineTooLong) {
		t.Fatalf("Next = %v, want ErrLineTooLong", err)
	}
	if src.n > MaxLine+1<<20 {
		t.Errorf("read %d bytes past the %d cap", src.n, MaxLine)
	}
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if grown := after.TotalAlloc - before.TotalAlloc; grown > 1<<30 {
		t.Errorf("allocated %d bytes for one refused line, want < 1 GiB", grown)
	}
}

func TestStreamFailsOnEndlessLine(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "event: message_start\ndata: ")
		chunk := []byte(strings.Repeat("a", 64<<10))
		for i := 0; i < (MaxLine/len(chunk))+64; i++ {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	m := &llm.Model{ID: "m", Provider: "p"}
	b := llm.NewBuilder(m, func(llm.Event) {})
	msg := Stream(context.Background(), &Call{URL: srv.URL}, b, m, func(ctx context.Context, r *Reader) llm.Message {
		b.Start()
		for {
			if _, err := r.Next(); err != nil {
				return b.Fail(StreamError(err, "message_stop").Error(), false, m)
			}
		}
	})
	if msg.StopReason != llm.StopError || !strings.Contains(msg.ErrorMessage, "line too long") {
		t.Fatalf("message = %v %q, want an error naming the long line", msg.StopReason, msg.ErrorMessage)
	}
	if strings.Contains(msg.ErrorMessage, ErrIncomplete.Error()) {
		t.Errorf("error %q reads like a retryable cut", msg.ErrorMessage)
	}
}
