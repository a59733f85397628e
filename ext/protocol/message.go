package protocol

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"
)

// Version is the protocol version the core speaks; initialize exchanges it. Version 2 moved the
// main channel from stdin/stdout to fds MainIn and MainOut.
const Version = 2

// The file descriptors of the host process (docs/extension-protocol.md §1): the main channel
// on MainIn (core -> host) and MainOut (host -> core), the sync channel on SyncRequest and
// SyncResponse. stdin is empty, stdout and stderr are the host's log.
const (
	SyncRequest  = 3
	SyncResponse = 4
	MainIn       = 5
	MainOut      = 6
)

// Error codes (docs/extension-protocol.md, "Errors"): the JSON-RPC 2.0 ones, then atomic's.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternal       = -32603
	// CodeHandlerFailed: the extension's handler, tool or command threw.
	CodeHandlerFailed = -32000
	// CodeStaleContext: a context id of a session that was replaced or reloaded.
	CodeStaleContext = -32001
	// CodeHostUnavailable: the host crashed, hung or is restarting.
	CodeHostUnavailable = -32002
	// CodeRequestCancelled: the request was cancelled with $/cancelRequest.
	CodeRequestCancelled = -32800
)

// Message is one JSON-RPC 2.0 message: a request (ID and Method), a notification (Method only)
// or a response (ID and Result or Error). After is the sync channel's ordering member (see
// SyncRequest).
type Message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
	// After, on a sync-channel request, is the number of main-channel messages the host had
	// written before it; the core answers only after it has processed that many.
	After int64 `json:"after,omitempty"`
}

// IsRequest reports whether m is a request: a method and an id.
func (m *Message) IsRequest() bool { return m.Method != "" && len(m.ID) > 0 }

// IsNotification reports whether m is a notification: a method and no id.
func (m *Message) IsNotification() bool { return m.Method != "" && len(m.ID) == 0 }

// IsResponse reports whether m is a response: an id and no method.
func (m *Message) IsResponse() bool { return m.Method == "" && len(m.ID) > 0 }

// IntID returns the message id as an integer; ok is false for a string or missing id.
func (m *Message) IntID() (id int64, ok bool) {
	n, err := strconv.ParseInt(string(m.ID), 10, 64)
	return n, err == nil
}

// Error is a JSON-RPC error object.
type Error struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Error returns the error's message.
func (e *Error) Error() string { return e.Message }

// Errorf returns an *Error with code and a formatted message.
func Errorf(code int, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Reader reads messages, one per line (LF; one trailing CR is stripped), with no size limit.
// Blank lines are skipped.
type Reader struct {
	r *bufio.Reader
}

// NewReader returns a Reader of r.
func NewReader(r io.Reader) *Reader { return &Reader{r: bufio.NewReaderSize(r, 64*1024)} }

// ReadLine returns the next non-blank line without its terminator; io.EOF at the end. The slice
// is valid until the next call.
func (r *Reader) ReadLine() ([]byte, error) {
	for {
		line, err := r.r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// A long line: collect it whole.
			buf := append([]byte(nil), line...)
			for err == bufio.ErrBufferFull {
				line, err = r.r.ReadSlice('\n')
				buf = append(buf, line...)
			}
			line = buf
		}
		if len(line) == 0 && err != nil {
			return nil, err
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(bytes.TrimSpace(line)) == 0 {
			if err != nil {
				return nil, err
			}
			continue
		}
		return line, nil
	}
}

// Read returns the next message; a line that is not a JSON object is returned as an error
// wrapping the parse failure (the stream stays usable).
func (r *Reader) Read() (*Message, error) {
	line, err := r.ReadLine()
	if err != nil {
		return nil, err
	}
	m := new(Message)
	if err := json.Unmarshal(line, m); err != nil {
		return nil, fmt.Errorf("protocol: bad message %.200q: %w", line, err)
	}
	return m, nil
}

// Writer writes messages, one per line. Safe for concurrent use. Lines may be held back (Hold)
// and written together with the next message, by Flush, once they reach HoldLimit bytes, or
// after HoldDelay, whichever comes first: never reordered, one write for many.
type Writer struct {
	mu  sync.Mutex // guards the fields below
	w   io.Writer
	buf []byte
	n   int64

	held  []byte      // the lines held back, written before anything else
	epoch uint64      // counts the writes of held lines (Hold)
	timer *time.Timer // writes the held lines after delay
	delay time.Duration
}

// SetHoldDelay replaces HoldDelay for this writer (before any Hold).
func (w *Writer) SetHoldDelay(d time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.delay = d
}

// HoldLimit is how many bytes of held lines a Writer keeps before it writes them.
const HoldLimit = 64 << 10

// HoldDelay bounds how long a held line waits to be written.
const HoldDelay = 5 * time.Millisecond

// Count returns the number of messages written.
func (w *Writer) Count() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.n
}

// NewWriter returns a Writer to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w, delay: HoldDelay} }

// Request writes a request with an integer id.
func (w *Writer) Request(id int64, method string, params any) error {
	return w.write(func(b []byte) ([]byte, error) {
		b = append(b, `{"jsonrpc":"2.0","id":`...)
		b = strconv.AppendInt(b, id, 10)
		b = append(b, `,"method":`...)
		b = strconv.AppendQuote(b, method)
		return appendMember(b, "params", params)
	})
}

// Notify writes a notification.
func (w *Writer) Notify(method string, params any) error {
	return w.write(func(b []byte) ([]byte, error) {
		b = append(b, `{"jsonrpc":"2.0","method":`...)
		b = strconv.AppendQuote(b, method)
		return appendMember(b, "params", params)
	})
}

// Reply writes the response to the request with id (raw, as received): result, or err when it
// is not nil. An error that is not an *Error is sent with CodeInternal.
func (w *Writer) Reply(id json.RawMessage, result any, err error) error {
	return w.write(func(b []byte) ([]byte, error) {
		b = append(b, `{"jsonrpc":"2.0","id":`...)
		if len(id) == 0 {
			id = json.RawMessage("null")
		}
		b = append(b, id...)
		if err != nil {
			pe, ok := err.(*Error)
			if !ok {
				pe = &Error{Code: CodeInternal, Message: err.Error()}
			}
			return appendMember(b, "error", pe)
		}
		if result == nil {
			return append(b, `,"result":null}`...), nil
		}
		return appendMember(b, "result", result)
	})
}

func appendMember(b []byte, name string, v any) ([]byte, error) {
	if v == nil {
		return append(b, '}'), nil
	}
	var raw []byte
	switch v := v.(type) {
	case json.RawMessage:
		raw = v
	default:
		var err error
		if raw, err = json.Marshal(v); err != nil {
			return nil, err
		}
	}
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	b = append(b, raw...)
	return append(b, '}'), nil
}

func (w *Writer) write(build func([]byte) ([]byte, error)) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.held) > 0 {
		// The held lines go first, in the same write.
		held := w.held
		b, err := build(held)
		if err != nil {
			w.held = held // what build appended is dropped
			return fmt.Errorf("protocol: encode: %w", err)
		}
		w.held = append(b, '\n')
		if err := w.flushLocked(); err != nil {
			return err
		}
		w.n++
		return nil
	}
	b, err := build(w.buf[:0])
	if err != nil {
		return fmt.Errorf("protocol: encode: %w", err)
	}
	b = append(b, '\n')
	w.buf = b[:0]
	if cap(w.buf) > 1<<20 {
		w.buf = nil
	}
	_, err = w.w.Write(b)
	if err == nil {
		w.n++
	}
	return err
}

// Hold holds back what edit appends to the held lines: whole lines, each ending in a newline;
// edit may also change the last line it held itself, if epoch is still the one it saw then (the
// held lines were not written since). edit returns the held lines and how many messages it
// added (for Count). The held lines are written before the next message, by Flush, once they
// reach HoldLimit bytes, or after HoldDelay (SetHoldDelay).
func (w *Writer) Hold(edit func(held []byte, epoch uint64) ([]byte, int)) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	was := len(w.held)
	held, n := edit(w.held, w.epoch)
	w.held = held
	w.n += int64(n)
	if len(held) >= HoldLimit {
		return w.flushLocked()
	}
	if was == 0 && len(held) > 0 {
		if w.timer == nil {
			w.timer = time.AfterFunc(w.delay, func() { _ = w.Flush() })
		} else {
			w.timer.Reset(w.delay)
		}
	}
	return nil
}

// Flush writes the held lines now.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.flushLocked()
}

func (w *Writer) flushLocked() error {
	if len(w.held) == 0 {
		return nil
	}
	if w.timer != nil {
		w.timer.Stop()
	}
	_, err := w.w.Write(w.held)
	w.epoch++
	w.held = w.held[:0]
	if cap(w.held) > 1<<20 {
		w.held = nil
	}
	return err
}
