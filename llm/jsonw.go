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

// AppendJSONString appends s to dst as JSON.stringify writes a string: \b \f \n \r \t \" and
// \\ escaped, other control characters as \u00XX, and (unlike encoding/json) <, >, &, U+2028
// and U+2029 left as they are; invalid UTF-8 becomes \ufffd (Go strings hold no lone
// surrogates to keep).
func AppendJSONString(dst []byte, s string) []byte { return appendJSONString(dst, s, false) }

// AppendGoJSONString appends s to dst as encoding/json writes a string with HTML escaping off
// (json.Encoder.SetEscapeHTML(false)): as AppendJSONString, but U+2028 and U+2029 escaped as
// \u2028 and \u2029. Provider payloads byte-identical to encoding/json's use it.
func AppendGoJSONString(dst []byte, s string) []byte { return appendJSONString(dst, s, true) }

// appendJSONString is AppendJSONString, escaping U+2028 and U+2029 when lineSeps is set.
func appendJSONString(dst []byte, s string, lineSeps bool) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
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
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			start = i + size
		case lineSeps && (r == '\u2028' || r == '\u2029'):
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xf])
			start = i + size
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
