package sse

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// MaxLine is the default cap, in bytes, on one line of the stream and on the data of one event
// (64 MiB). A server that sends more without a line break or a blank line fails the stream with
// ErrLineTooLong instead of growing memory without bound.
const MaxLine = 64 << 20

// ErrLineTooLong is the cause of a stream refused because one line, or one event's data, went
// past the Reader's cap.
var ErrLineTooLong = errors.New("server-sent event line too long")

// Event is one dispatched server-sent event.
type Event struct {
	// Type is the value of the last "event:" field of the event, "" when there was none (the
	// standard's default type "message").
	Type string
	// Data is the event's "data:" lines joined with "\n" (no trailing newline). It aliases the
	// Reader's buffer and is valid only until the next call to Next.
	Data []byte
	// ID is the value of the last "id:" field seen so far in the stream (it persists across
	// events, as the standard says).
	ID string
}

// Reader reads server-sent events from a byte stream. It is not safe for concurrent use.
type Reader struct {
	br      *bufio.Reader
	line    []byte // a line longer than the bufio buffer, assembled
	data    []byte
	typ     string
	lastTyp string // the previous event type, reused to avoid allocating the same string again
	id      string
	hasData bool
	pending bool // a field of an undispatched event was read
	max     int  // cap on one line and on one event's data, bytes
}

// NewReader returns a Reader of the event stream r whose lines and events are capped at MaxLine.
func NewReader(r io.Reader) *Reader {
	return NewReaderLimit(r, MaxLine)
}

// NewReaderLimit returns a Reader of r whose lines, and whose events' joined data, are capped at
// max bytes (max <= 0 means MaxLine). Past the cap Next returns an error wrapping ErrLineTooLong.
func NewReaderLimit(r io.Reader, max int) *Reader {
	if max <= 0 {
		max = MaxLine
	}
	return &Reader{br: bufio.NewReaderSize(r, 32<<10), max: max}
}

// Next returns the next event. An event is dispatched at the blank line that ends it, when it
// has at least one data field; events without data only update Type and ID state and are
// skipped. Comment lines (":…") and unknown fields are ignored; "retry:" is ignored.
//
// At the end of the stream Next returns io.EOF when the stream ended between events, and
// io.ErrUnexpectedEOF when it ended inside an event (the partial event is discarded, as the
// standard requires). A line or an event's data longer than the cap gives an error wrapping
// ErrLineTooLong. Errors of the underlying reader are returned as they are.
func (r *Reader) Next() (Event, error) {
	for {
		line, err := r.readLine()
		if err != nil {
			if errors.Is(err, io.EOF) {
				if r.pending || len(line) > 0 {
					return Event{}, io.ErrUnexpectedEOF
				}
				return Event{}, io.EOF
			}
			return Event{}, err
		}
		if len(line) == 0 {
			if !r.hasData {
				r.reset()
				continue
			}
			ev := Event{Type: r.typ, Data: r.data, ID: r.id}
			r.reset()
			return ev, nil
		}
		if err := r.field(line); err != nil {
			return Event{}, err
		}
	}
}

func (r *Reader) reset() {
	r.data = r.data[:0]
	r.typ = ""
	r.hasData = false
	r.pending = false
}

// field applies one non-empty line to the event being assembled.
func (r *Reader) field(line []byte) error {
	if line[0] == ':' {
		return nil
	}
	name, value := line, []byte(nil)
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		name, value = line[:i], line[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	switch string(name) {
	case "data":
		if len(r.data)+len(value)+1 > r.max {
			return fmt.Errorf("%w: one event's data passed %d bytes", ErrLineTooLong, r.max)
		}
		if r.hasData {
			r.data = append(r.data, '\n')
		}
		r.data = append(r.data, value...)
		r.hasData = true
		r.pending = true
	case "event":
		if string(value) != r.lastTyp {
			r.lastTyp = string(value)
		}
		r.typ = r.lastTyp
		r.pending = true
	case "id":
		if bytes.IndexByte(value, 0) < 0 {
			r.id = string(value)
		}
		r.pending = true
	}
	return nil
}

// readLine returns the next line without its LF and without one CR before it. At the end of the
// stream it returns the unterminated rest (possibly empty) with io.EOF. The result aliases
// internal buffers until the next call.
func (r *Reader) readLine() ([]byte, error) {
	b, err := r.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		r.line = append(r.line[:0], b...)
		for err == bufio.ErrBufferFull {
			if len(r.line) > r.max {
				r.line = nil // let the oversized buffer go
				return nil, fmt.Errorf("%w: a line passed %d bytes without a line break", ErrLineTooLong, r.max)
			}
			b, err = r.br.ReadSlice('\n')
			r.line = append(r.line, b...)
		}
		b = r.line
	}
	if err != nil {
		return b, err
	}
	b = b[:len(b)-1]
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b, nil
}
