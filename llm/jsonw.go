package llm

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// objWriter writes a JSON object with fields in call order. The first error sticks in err.
type objWriter struct {
	buf []byte
	n   int
	err error
}

func (w *objWriter) key(k string) {
	if w.n == 0 {
		w.buf = append(w.buf, '{')
	} else {
		w.buf = append(w.buf, ',')
	}
	w.n++
	w.buf = strconv.AppendQuote(w.buf, k)
	w.buf = append(w.buf, ':')
}

func (w *objWriter) str(k, v string) {
	w.key(k)
	w.buf = AppendJSONString(w.buf, v)
}

func (w *objWriter) strOpt(k, v string) {
	if v != "" {
		w.str(k, v)
	}
}

func (w *objWriter) int(k string, v int64) {
	w.key(k)
	w.buf = strconv.AppendInt(w.buf, v, 10)
}

func (w *objWriter) bool(k string, v bool) {
	w.key(k)
	w.buf = strconv.AppendBool(w.buf, v)
}

func (w *objWriter) raw(k string, v []byte) {
	w.key(k)
	w.buf = append(w.buf, v...)
}

func (w *objWriter) value(k string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		if w.err == nil {
			w.err = err
		}
		return err
	}
	w.raw(k, b)
	return nil
}

func (w *objWriter) close() []byte {
	if w.n == 0 {
		return []byte("{}")
	}
	return append(w.buf, '}')
}

// AppendJSONString appends s to dst as a JSON string literal. Unlike encoding/json it does not
// escape <, >, &, U+2028 or U+2029, matching JSON.stringify; invalid UTF-8 becomes U+FFFD.
func AppendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, "\\ufffd"...)
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
