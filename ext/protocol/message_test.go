package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestReaderFraming(t *testing.T) {
	long := strings.Repeat("x", 200_000)
	in := "{\"jsonrpc\":\"2.0\",\"method\":\"a\"}\r\n\n   \n{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":\"" + long + "\"}\n{\"jsonrpc\":\"2.0\",\"method\":\"tail\"}"
	r := NewReader(strings.NewReader(in))
	m, err := r.Read()
	if err != nil || m.Method != "a" || !m.IsNotification() {
		t.Fatalf("first: %+v %v", m, err)
	}
	m, err = r.Read()
	if err != nil || !m.IsResponse() || len(m.Result) != len(long)+2 {
		t.Fatalf("long line: %v", err)
	}
	if id, ok := m.IntID(); !ok || id != 7 {
		t.Fatalf("id %s", m.ID)
	}
	m, err = r.Read()
	if err != nil || m.Method != "tail" {
		t.Fatalf("unterminated last line: %+v %v", m, err)
	}
	if _, err := r.Read(); !errors.Is(err, io.EOF) {
		t.Fatalf("end: %v", err)
	}
	if _, err := NewReader(strings.NewReader("not json\n")).Read(); err == nil {
		t.Fatal("a bad line is an error")
	}
}

func TestWriterShapes(t *testing.T) {
	var b bytes.Buffer
	w := NewWriter(&b)
	_ = w.Request(1, MethodEvent, EventParams{ExtRef: ExtRef{Ext: 2, Gen: 3}, Handler: 4, Event: "tool_call", Payload: json.RawMessage(`{"toolName":"bash"}`), Ctx: 5})
	_ = w.Notify(MethodCancelRequest, CancelParams{ID: json.RawMessage("1")})
	_ = w.Reply(json.RawMessage(`"s"`), nil, nil)
	_ = w.Reply(json.RawMessage(`9`), nil, Errorf(CodeStaleContext, "stale"))
	_ = w.Reply(json.RawMessage(`10`), nil, errors.New("plain"))
	want := `{"jsonrpc":"2.0","id":1,"method":"event","params":{"ext":2,"gen":3,"handler":4,"event":"tool_call","payload":{"toolName":"bash"},"ctx":5}}
{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}
{"jsonrpc":"2.0","id":"s","result":null}
{"jsonrpc":"2.0","id":9,"error":{"code":-32001,"message":"stale"}}
{"jsonrpc":"2.0","id":10,"error":{"code":-32603,"message":"plain"}}
`
	if b.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", b.String(), want)
	}
	if w.Count() != 5 {
		t.Fatalf("count %d", w.Count())
	}
}

// countingWriter records each Write as one chunk.
type countingWriter struct {
	mu     sync.Mutex
	chunks []string
}

func (c *countingWriter) Write(b []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.chunks = append(c.chunks, string(b))
	return len(b), nil
}

// TestWriterHold: held lines are written before the next message, in one write with it, and by
// Flush; epoch tells a holder whether its last line is still held; Count counts held messages.
func TestWriterHold(t *testing.T) {
	var out countingWriter
	w := NewWriter(&out)
	w.SetHoldDelay(time.Hour) // only Flush and the next message write them here
	var seen uint64
	hold := func(line string, extend bool) {
		if err := w.Hold(func(held []byte, epoch uint64) ([]byte, int) {
			if extend && epoch == seen && len(held) > 0 {
				held = append(held[:len(held)-1], line+"\n"...)
				return held, 0
			}
			seen = epoch
			return append(held, line+"\n"...), 1
		}); err != nil {
			t.Fatal(err)
		}
	}
	hold(`{"a":1`, false)
	hold(`,"b":2}`, true)
	hold(`{"c":3}`, false)
	if len(out.chunks) != 0 {
		t.Fatalf("held lines were written at once: %q", out.chunks)
	}
	if err := w.Notify("m", nil); err != nil {
		t.Fatal(err)
	}
	want := "{\"a\":1,\"b\":2}\n{\"c\":3}\n{\"jsonrpc\":\"2.0\",\"method\":\"m\"}\n"
	if len(out.chunks) != 1 || out.chunks[0] != want {
		t.Fatalf("writes %q, want one %q", out.chunks, want)
	}
	if n := w.Count(); n != 3 {
		t.Fatalf("Count %d, want 3", n)
	}
	hold(`{"d":4}`, true) // the epoch moved on: a new line
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if len(out.chunks) != 2 || out.chunks[1] != "{\"d\":4}\n" {
		t.Fatalf("writes %q", out.chunks)
	}
	if err := w.Flush(); err != nil || len(out.chunks) != 2 {
		t.Fatalf("an empty flush wrote: %q, %v", out.chunks, err)
	}
}
