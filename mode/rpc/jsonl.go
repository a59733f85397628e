package rpc

import (
	"bufio"
	"io"
)

// LineReader splits a stream into strict JSONL records (rpc-and-json.md §1): records end at LF
// only; one CR before the LF is dropped; U+2028, U+2029 and every other byte are data; a record
// has no size limit; an unterminated last record is still delivered. It is not safe for
// concurrent use.
type LineReader struct {
	r   *bufio.Reader
	buf []byte
	err error
}

// maxKeep bounds the buffer kept between records, so one huge record does not pin its memory.
const maxKeep = 1 << 20

// NewLineReader returns a LineReader on r.
func NewLineReader(r io.Reader) *LineReader { return newLineReader(r, 64<<10) }

func newLineReader(r io.Reader, size int) *LineReader {
	return &LineReader{r: bufio.NewReaderSize(r, size)}
}

// Next returns the next record without its terminator. The slice is valid until the next call.
// After the last record it returns io.EOF, or the read error that ended the stream.
func (l *LineReader) Next() ([]byte, error) {
	if l.err != nil {
		return nil, l.err
	}
	if cap(l.buf) > maxKeep {
		l.buf = nil
	}
	l.buf = l.buf[:0]
	for {
		chunk, err := l.r.ReadSlice('\n')
		switch err {
		case nil:
			chunk = chunk[:len(chunk)-1]
			if len(l.buf) == 0 {
				return trimCR(chunk), nil
			}
			l.buf = append(l.buf, chunk...)
			return trimCR(l.buf), nil
		case bufio.ErrBufferFull:
			l.buf = append(l.buf, chunk...)
		default:
			l.buf = append(l.buf, chunk...)
			l.err = err
			if len(l.buf) > 0 {
				return trimCR(l.buf), nil
			}
			return nil, err
		}
	}
}

func trimCR(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\r' {
		return b[:n-1]
	}
	return b
}
