package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
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
