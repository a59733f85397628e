package sse

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

type got struct{ typ, data, id string }

func readAll(t *testing.T, r io.Reader) ([]got, error) {
	t.Helper()
	rd := NewReader(r)
	var out []got
	for {
		ev, err := rd.Next()
		if err != nil {
			return out, err
		}
		out = append(out, got{ev.Type, string(ev.Data), ev.ID})
	}
}

func TestReaderFraming(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []got
		wantErr error
	}{
		{
			name: "data only",
			in:   "data: {\"a\":1}\n\ndata: [DONE]\n\n",
			want: []got{{"", `{"a":1}`, ""}, {"", "[DONE]", ""}},
		},
		{
			name: "event and data",
			in:   "event: message_start\ndata: {}\n\nevent: ping\ndata: {\"type\":\"ping\"}\n\n",
			want: []got{{"message_start", "{}", ""}, {"ping", `{"type":"ping"}`, ""}},
		},
		{
			name: "multi-line data joined with LF",
			in:   "data: one\ndata: two\ndata:three\n\n",
			want: []got{{"", "one\ntwo\nthree", ""}},
		},
		{
			name: "CRLF lines strip one CR",
			in:   "event: x\r\ndata: a\r\r\n\r\n",
			want: []got{{"x", "a\r", ""}},
		},
		{
			name: "comments and unknown fields ignored",
			in:   ": keep-alive\nretry: 1000\nfoo: bar\ndata: x\n\n:another\n\n",
			want: []got{{"", "x", ""}},
		},
		{
			name: "only one leading space is stripped",
			in:   "data:  two spaces\n\n",
			want: []got{{"", " two spaces", ""}},
		},
		{
			name: "field without colon",
			in:   "data\n\n",
			want: []got{{"", "", ""}},
		},
		{
			name: "event without data is not dispatched and its type does not leak",
			in:   "event: lonely\n\ndata: x\n\n",
			want: []got{{"", "x", ""}},
		},
		{
			name: "id persists",
			in:   "id: 7\ndata: a\n\ndata: b\n\n",
			want: []got{{"", "a", "7"}, {"", "b", "7"}},
		},
		{
			name:    "unterminated event is discarded",
			in:      "data: a\n\ndata: {\"cut",
			want:    []got{{"", "a", ""}},
			wantErr: io.ErrUnexpectedEOF,
		},
		{
			name:    "event without final blank line is discarded",
			in:      "data: a\n\ndata: b\n",
			want:    []got{{"", "a", ""}},
			wantErr: io.ErrUnexpectedEOF,
		},
		{
			name: "empty stream",
			in:   "",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantErr := tt.wantErr
			if wantErr == nil {
				wantErr = io.EOF
			}
			// One byte at a time exercises every split point.
			for _, r := range []io.Reader{strings.NewReader(tt.in), iotest.OneByteReader(strings.NewReader(tt.in))} {
				out, err := readAll(t, r)
				if !errors.Is(err, wantErr) {
					t.Fatalf("err = %v, want %v", err, wantErr)
				}
				if len(out) != len(tt.want) {
					t.Fatalf("events = %q, want %q", out, tt.want)
				}
				for i := range out {
					if out[i] != tt.want[i] {
						t.Fatalf("event %d = %q, want %q", i, out[i], tt.want[i])
					}
				}
			}
		})
	}
}

func TestReaderLongLine(t *testing.T) {
	long := strings.Repeat("x", 200<<10)
	out, err := readAll(t, strings.NewReader("data: "+long+"\n\ndata: after\n\n"))
	if err != io.EOF {
		t.Fatalf("err = %v", err)
	}
	if len(out) != 2 || out[0].data != long || out[1].data != "after" {
		t.Fatalf("long line not read whole: %d events", len(out))
	}
}

func TestReaderReadError(t *testing.T) {
	boom := errors.New("connection reset")
	r := io.MultiReader(strings.NewReader("data: a\n\ndata: b"), iotest.ErrReader(boom))
	out, err := readAll(t, r)
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want %v", err, boom)
	}
	if len(out) != 1 {
		t.Fatalf("events = %q", out)
	}
}

func BenchmarkReader(b *testing.B) {
	var sb strings.Builder
	for range 1000 {
		sb.WriteString("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"hello \"}}\n\n")
	}
	in := sb.String()
	b.ReportAllocs()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		rd := NewReader(strings.NewReader(in))
		for {
			if _, err := rd.Next(); err != nil {
				break
			}
		}
	}
}
