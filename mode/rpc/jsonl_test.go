package rpc

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// splitRecords is the reference framing: split on LF, drop one CR per record, keep a last record
// without LF, drop nothing else.
func splitRecords(data []byte) [][]byte {
	var out [][]byte
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			out = append(out, trimCR(data))
			break
		}
		out = append(out, trimCR(data[:i]))
		data = data[i+1:]
	}
	return out
}

func readAll(t testing.TB, r io.Reader, size int) [][]byte {
	lr := newLineReader(r, size)
	var out [][]byte
	for {
		line, err := lr.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				t.Fatalf("Next: %v", err)
			}
			if _, err2 := lr.Next(); !errors.Is(err2, io.EOF) {
				t.Fatalf("Next after EOF: %v", err2)
			}
			return out
		}
		out = append(out, append([]byte(nil), line...))
	}
}

func TestLineReader(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"\n", []string{""}},
		{"a\nb\n", []string{"a", "b"}},
		{"a\r\nb\r\n", []string{"a", "b"}},
		{"a\r\r\n", []string{"a\r"}},
		{"a\rb\n", []string{"a\rb"}},
		{"last", []string{"last"}},
		{"last\r", []string{"last"}},
		{"x\u2028y\u2029z\n", []string{"x\u2028y\u2029z"}},
		{"{\"a\":\"\u0085\"}\n", []string{"{\"a\":\"\u0085\"}"}},
		{strings.Repeat("long", 100) + "\n" + strings.Repeat("z", 70) + "\r\n", []string{strings.Repeat("long", 100), strings.Repeat("z", 70)}},
	}
	for _, c := range cases {
		for _, size := range []int{16, 64 << 10} {
			for _, r := range []io.Reader{strings.NewReader(c.in), iotest.OneByteReader(strings.NewReader(c.in)), iotest.DataErrReader(strings.NewReader(c.in))} {
				got := readAll(t, r, size)
				if len(got) != len(c.want) {
					t.Fatalf("%q (buffer %d): %d records %q, want %q", c.in, size, len(got), got, c.want)
				}
				for i := range got {
					if string(got[i]) != c.want[i] {
						t.Fatalf("%q (buffer %d): record %d = %q, want %q", c.in, size, i, got[i], c.want[i])
					}
				}
			}
		}
	}
}

// No record size limit: a 20 MiB record arrives whole.
func TestLineReaderHugeRecord(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789"), 2<<20)
	got := readAll(t, io.MultiReader(bytes.NewReader(big), strings.NewReader("\nnext\n")), 64<<10)
	if len(got) != 2 || !bytes.Equal(got[0], big) || string(got[1]) != "next" {
		t.Fatalf("got %d records", len(got))
	}
}

func TestLineReaderError(t *testing.T) {
	boom := errors.New("boom")
	lr := NewLineReader(io.MultiReader(strings.NewReader("a\nb"), iotest.ErrReader(boom)))
	for _, want := range []string{"a", "b"} {
		line, err := lr.Next()
		if err != nil || string(line) != want {
			t.Fatalf("Next = %q, %v; want %q", line, err, want)
		}
	}
	if _, err := lr.Next(); !errors.Is(err, boom) {
		t.Fatalf("Next = %v, want boom", err)
	}
}

// FuzzLineReader: the streaming reader, with any buffer size and read chunking, yields exactly
// the reference records.
func FuzzLineReader(f *testing.F) {
	for _, s := range []string{"", "\n", "a\r\nb", "x\u2028y\n\r\n", "{\"type\":\"get_state\"}\n", strings.Repeat("ab\r", 40)} {
		f.Add([]byte(s), uint8(0), false)
	}
	f.Fuzz(func(t *testing.T, data []byte, size uint8, oneByte bool) {
		var r io.Reader = bytes.NewReader(data)
		if oneByte {
			r = iotest.OneByteReader(r)
		}
		got := readAll(t, r, 16+int(size))
		want := splitRecords(data)
		if len(got) != len(want) {
			t.Fatalf("%d records, want %d", len(got), len(want))
		}
		for i := range got {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("record %d = %q, want %q", i, got[i], want[i])
			}
			if bytes.IndexByte(got[i], '\n') >= 0 {
				t.Fatalf("record %d holds a LF", i)
			}
		}
	})
}
