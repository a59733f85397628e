// Package json is JSON mode (`--mode json`, rpc-and-json.md §7): the session header as the first
// line, then every event of the session's front-end stream (session.Event) that is on the wire,
// as one JSON object per line, in publication order.
//
// It imports session (for the stream types), llm and mode/print; the session is reached through
// the Session interface.
package json

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/atomic-cli/atomic/llm"
	printmode "github.com/atomic-cli/atomic/mode/print"
	"github.com/atomic-cli/atomic/session"
)

// Session is what JSON mode needs of a live session.
type Session interface {
	printmode.Session
	// Subscribe attaches a subscriber of the front-end stream (session.Runtime.Subscribe).
	Subscribe(fn func(session.Event), o session.SubscribeOptions) *session.Subscriber
	// HeaderJSON is the session header line (without newline).
	HeaderJSON() []byte
}

// Writer writes events as JSON lines. Lines are buffered and flushed after every event except
// message_update and tool_execution_update, which are flushed by the next other event or by
// Flush, so a fast stream costs one write per burst rather than one per delta. It is safe for
// concurrent use.
type Writer struct {
	mu  sync.Mutex // guards w, buf, err
	w   *bufio.Writer
	buf []byte
	err error
}

// NewWriter returns a Writer on w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: bufio.NewWriterSize(w, 64<<10)} }

// WriteLine writes one pre-encoded JSON line and flushes.
func (w *Writer) WriteLine(b []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.w.Write(b)
	w.w.WriteByte('\n')
	if err := w.w.Flush(); err != nil && w.err == nil {
		w.err = err
	}
	return w.err
}

// WriteEvent encodes e as one line; events that are not on the wire (e.Wire) are skipped.
func (w *Writer) WriteEvent(e session.Event) error {
	if !e.Wire() {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	var err error
	w.buf, err = e.AppendJSON(w.buf[:0])
	if err != nil {
		return fmt.Errorf("json mode: encode %s event: %w", e.Type, err)
	}
	w.buf = append(w.buf, '\n')
	if _, err := w.w.Write(w.buf); err != nil && w.err == nil {
		w.err = err
	}
	if !e.Delta() {
		if err := w.w.Flush(); err != nil && w.err == nil {
			w.err = err
		}
	}
	return w.err
}

// Flush writes buffered lines.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.w.Flush(); err != nil && w.err == nil {
		w.err = err
	}
	return w.err
}

// Run writes the header, sends the prompts in order while streaming every event to stdout, and
// returns the exit code: 0, or 1 when the last message is an assistant message that ended in
// error or was aborted (rpc-and-json.md §7, Atomic), or a prompt failed.
func Run(ctx context.Context, s Session, prompts []printmode.Prompt, stdout, stderr io.Writer) int {
	w := NewWriter(stdout)
	if err := w.WriteLine(s.HeaderJSON()); err != nil {
		fmt.Fprintf(stderr, "Error: writing to stdout: %v\n", err)
		return 1
	}
	sub := s.Subscribe(func(e session.Event) {
		if err := w.WriteEvent(e); err != nil {
			fmt.Fprintf(stderr, "Error: %v\n", err)
		}
	}, session.SubscribeOptions{})
	defer sub.Close()
	code := 0
	for _, p := range prompts {
		if err := s.Prompt(ctx, p.Text, p.Images); err != nil {
			fmt.Fprintf(stderr, "Error: %v\n", err)
			code = 1
			break
		}
		if ctx.Err() != nil {
			break
		}
	}
	sub.Sync() // every event of the run is written
	if err := w.Flush(); err != nil {
		fmt.Fprintf(stderr, "Error: writing to stdout: %v\n", err)
		return 1
	}
	if msgs := s.Messages(); code == 0 && len(msgs) > 0 {
		last := msgs[len(msgs)-1]
		if last.Role == llm.RoleAssistant && (last.StopReason == llm.StopError || last.StopReason == llm.StopAborted) {
			code = 1
		}
	}
	return code
}
