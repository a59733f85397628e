package store

import (
	"bytes"
	"encoding/binary"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// scanner is a validating JSON scanner that finds value boundaries without building values. The
// loader uses it to split an entry line into its top-level fields in one pass, so that only the
// fields it needs are decoded and everything else stays as raw bytes of the file buffer.
//
// It accepts exactly the JSON grammar (RFC 8259) that JSON.parse accepts, except that it does not
// check UTF-8 validity (neither does JSON.parse on an already decoded string).
type scanner struct {
	b     []byte
	i     int
	depth int
}

// maxDepth bounds nesting so a hostile line cannot exhaust the stack.
const maxDepth = 10000

// field is one top-level member of an object: the key as written between the quotes (escaped
// when esc is set) and the raw bytes of its value.
type field struct {
	key []byte
	esc bool
	val []byte
}

// name returns the decoded key.
func (f *field) name() string {
	if !f.esc {
		return string(f.key)
	}
	s, _ := unquote(f.key, true)
	return s
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// str advances over the string starting at s.i and reports whether it holds escapes. The next
// quote and backslash are found with bytes.IndexByte (vectorised) and each stretch between them
// is checked for raw control characters eight bytes at a time, so long strings cost about one
// pass over their bytes.
func (s *scanner) str() (esc, ok bool) {
	b := s.b
	i := s.i + 1
	q := -1 // position of the next '"' at or after i, once searched
	for {
		if q < i {
			k := bytes.IndexByte(b[i:], '"')
			if k < 0 {
				return esc, false
			}
			q = i + k
		}
		k := bytes.IndexByte(b[i:q], '\\')
		if k < 0 {
			if hasCtrl(b[i:q]) {
				return esc, false
			}
			s.i = q + 1
			return esc, true
		}
		e := i + k
		if hasCtrl(b[i:e]) || e+1 >= len(b) {
			return esc, false
		}
		esc = true
		switch b[e+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			i = e + 2
		case 'u':
			if e+6 > len(b) || !isHex(b[e+2]) || !isHex(b[e+3]) || !isHex(b[e+4]) || !isHex(b[e+5]) {
				return esc, false
			}
			i = e + 6
		default:
			return esc, false
		}
	}
}

// hasCtrl reports whether b holds a byte below 0x20, which JSON forbids raw inside strings.
func hasCtrl(b []byte) bool {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	i := 0
	for ; i+8 <= len(b); i += 8 {
		// Exact per word: a borrow can only come from a byte that is itself below 0x20.
		if w := binary.LittleEndian.Uint64(b[i:]); (w-ones*0x20)&^w&highs != 0 {
			return true
		}
	}
	for ; i < len(b); i++ {
		if b[i] < 0x20 {
			return true
		}
	}
	return false
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (s *scanner) digits() bool {
	start := s.i
	for s.i < len(s.b) && isDigit(s.b[s.i]) {
		s.i++
	}
	return s.i > start
}

func (s *scanner) number() bool {
	b := s.b
	if s.i < len(b) && b[s.i] == '-' {
		s.i++
	}
	if s.i >= len(b) {
		return false
	}
	switch c := b[s.i]; {
	case c == '0':
		s.i++
	case c >= '1' && c <= '9':
		s.digits()
	default:
		return false
	}
	if s.i < len(b) && b[s.i] == '.' {
		s.i++
		if !s.digits() {
			return false
		}
	}
	if s.i < len(b) && (b[s.i] == 'e' || b[s.i] == 'E') {
		s.i++
		if s.i < len(b) && (b[s.i] == '+' || b[s.i] == '-') {
			s.i++
		}
		if !s.digits() {
			return false
		}
	}
	return true
}

func (s *scanner) lit(word string) bool {
	if len(s.b)-s.i < len(word) || string(s.b[s.i:s.i+len(word)]) != word {
		return false
	}
	s.i += len(word)
	return true
}

// value advances over one value, leading whitespace included.
func (s *scanner) value() bool {
	s.ws()
	if s.i >= len(s.b) {
		return false
	}
	switch s.b[s.i] {
	case '"':
		_, ok := s.str()
		return ok
	case '{':
		return s.object()
	case '[':
		return s.array()
	case 't':
		return s.lit("true")
	case 'f':
		return s.lit("false")
	case 'n':
		return s.lit("null")
	default:
		return s.number()
	}
}

// object advances over the object starting at s.i.
func (s *scanner) object() bool {
	_, _, ok := s.members(nil, false, nil, false)
	return ok
}

// members advances over the object starting at s.i; with collect its members are appended to
// out, and with inner the members of its "message" member (when that is an object) are appended
// to in, in the same pass. It is not recursive itself (nested values go through value), so a
// caller's stack buffers do not escape.
func (s *scanner) members(out []field, collect bool, in []field, inner bool) ([]field, []field, bool) {
	s.depth++
	if s.depth > maxDepth {
		return out, in, false
	}
	s.i++ // '{'
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		s.depth--
		return out, in, true
	}
	for {
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != '"' {
			return out, in, false
		}
		kStart := s.i
		esc, ok := s.str()
		if !ok {
			return out, in, false
		}
		kEnd := s.i
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return out, in, false
		}
		s.i++
		s.ws()
		vStart := s.i
		key := s.b[kStart+1 : kEnd-1]
		if inner && !esc && s.i < len(s.b) && s.b[s.i] == '{' && string(key) == "message" {
			in, _, ok = s.members(in, true, nil, false)
		} else {
			ok = s.value()
		}
		if !ok {
			return out, in, false
		}
		if collect {
			out = append(out, field{key: key, esc: esc, val: s.b[vStart:s.i]})
		}
		s.ws()
		if s.i >= len(s.b) {
			return out, in, false
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case '}':
			s.i++
			s.depth--
			return out, in, true
		default:
			return out, in, false
		}
	}
}

func (s *scanner) array() bool {
	s.depth++
	if s.depth > maxDepth {
		return false
	}
	s.i++ // '['
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
		s.depth--
		return true
	}
	for {
		if !s.value() {
			return false
		}
		s.ws()
		if s.i >= len(s.b) {
			return false
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case ']':
			s.i++
			s.depth--
			return true
		default:
			return false
		}
	}
}

// parseObject splits a complete JSON text that must be one object into its members, appending
// them to buf[:0]. It reports false when b is not exactly one valid JSON object (surrounding
// whitespace allowed).
func parseObject(b []byte, buf []field) ([]field, bool) {
	buf, _, ok := parseLine(b, buf, nil, false)
	return buf, ok
}

// parseLine is parseObject that, with inner, also collects the members of a "message" object
// member into msg (reset to msg[:0]) in the same pass.
func parseLine(b []byte, buf, msg []field, inner bool) ([]field, []field, bool) {
	s := scanner{b: b}
	buf, msg = buf[:0], msg[:0]
	s.ws()
	if s.i >= len(b) || b[s.i] != '{' {
		return buf, msg, false
	}
	buf, msg, ok := s.members(buf, true, msg, inner)
	if !ok {
		return buf, msg, false
	}
	s.ws()
	return buf, msg, s.i == len(b)
}

// elements iterates over the values of a raw JSON array that was already validated.
type elements struct {
	s     scanner
	begun bool
}

func newElements(b []byte) elements { return elements{s: scanner{b: b}} }

// next returns the next element value, or false at the end.
func (it *elements) next() ([]byte, bool) {
	s := &it.s
	if !it.begun {
		it.begun = true
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != '[' {
			s.i = len(s.b)
			return nil, false
		}
		s.i++
	}
	s.ws()
	if s.i >= len(s.b) || s.b[s.i] == ']' {
		return nil, false
	}
	start := s.i
	if !s.value() {
		s.i = len(s.b)
		return nil, false
	}
	v := s.b[start:s.i]
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == ',' {
		s.i++
	}
	return v, true
}

// unquote decodes a JSON string. raw is the text between the quotes when inner is set, else the
// whole literal including quotes. Escapes are decoded like encoding/json does (a lone surrogate
// becomes U+FFFD); raw bytes are copied as they are, invalid UTF-8 included.
func unquote(raw []byte, inner bool) (string, bool) {
	body := raw
	if !inner {
		if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
			return "", false
		}
		body = raw[1 : len(raw)-1]
	}
	k := bytes.IndexByte(body, '\\')
	if k < 0 {
		return string(body), true
	}
	var sb strings.Builder
	sb.Grow(len(body))
	for {
		sb.Write(body[:k])
		body = body[k:]
		if len(body) < 2 {
			return "", false
		}
		switch c := body[1]; c {
		case '"', '\\', '/':
			sb.WriteByte(c)
		case 'b':
			sb.WriteByte('\b')
		case 'f':
			sb.WriteByte('\f')
		case 'n':
			sb.WriteByte('\n')
		case 'r':
			sb.WriteByte('\r')
		case 't':
			sb.WriteByte('\t')
		case 'u':
			r, ok := hex4(body[2:])
			if !ok {
				return "", false
			}
			body = body[6:]
			if utf16.IsSurrogate(r) {
				r2, ok := rune(-1), false
				if len(body) >= 2 && body[0] == '\\' && body[1] == 'u' {
					r2, ok = hex4(body[2:])
				}
				if d := utf16.DecodeRune(r, r2); ok && d != utf8.RuneError {
					r = d
					body = body[6:]
				} else {
					r = utf8.RuneError
				}
			}
			sb.WriteRune(r)
			k = bytes.IndexByte(body, '\\')
			if k < 0 {
				sb.Write(body)
				return sb.String(), true
			}
			continue
		default:
			return "", false
		}
		body = body[2:]
		k = bytes.IndexByte(body, '\\')
		if k < 0 {
			sb.Write(body)
			return sb.String(), true
		}
	}
}

// hex4 reads the four hex digits of a \u escape.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// Typed readers for raw values. Each reports false when the value has another JSON type.

func rawString(v []byte) (string, bool) {
	if len(v) == 0 || v[0] != '"' {
		return "", false
	}
	return unquote(v, false)
}

// rawStringShared is rawString for a value inside a buffer that is never modified and that the
// result may keep alive (a loaded session file, whose entries hold it anyway): a string without
// escapes shares the buffer's bytes instead of copying them.
func rawStringShared(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", false
	}
	body := v[1 : len(v)-1]
	if len(body) == 0 {
		return "", true
	}
	if bytes.IndexByte(body, '\\') >= 0 {
		return unquote(v, false)
	}
	return unsafe.String(unsafe.SliceData(body), len(body)), true
}

func rawBool(v []byte) (bool, bool) {
	switch string(v) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

func rawInt(v []byte) (int64, bool) {
	if len(v) == 0 || !(v[0] == '-' || isDigit(v[0])) {
		return 0, false
	}
	if n, err := strconv.ParseInt(string(v), 10, 64); err == nil {
		return n, true
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil {
		return 0, false
	}
	return int64(f), true
}

func isNull(v []byte) bool { return string(v) == "null" }

func isObject(v []byte) bool { return len(v) > 0 && v[0] == '{' }
