package store

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/atomic-cli/atomic/llm"
)

// objw writes one JSON object with its members in call order, the way JSON.stringify writes an
// object literal. Strings are escaped like JSON.stringify (llm.AppendJSONString).
type objw struct {
	buf []byte
	n   int
}

func (w *objw) key(k string) {
	if w.n == 0 {
		w.buf = append(w.buf, '{')
	} else {
		w.buf = append(w.buf, ',')
	}
	w.n++
	w.buf = llm.AppendJSONString(w.buf, k)
	w.buf = append(w.buf, ':')
}

func (w *objw) str(k, v string) {
	w.key(k)
	w.buf = llm.AppendJSONString(w.buf, v)
}

func (w *objw) strPtr(k string, v *string) {
	if v != nil {
		w.str(k, *v)
	}
}

// nullStr writes v, or null when v is nil.
func (w *objw) nullStr(k string, v *string) {
	if v == nil {
		w.raw(k, []byte("null"))
		return
	}
	w.str(k, *v)
}

func (w *objw) int(k string, v int64) {
	w.key(k)
	w.buf = strconv.AppendInt(w.buf, v, 10)
}

func (w *objw) bool(k string, v bool) {
	w.key(k)
	w.buf = strconv.AppendBool(w.buf, v)
}

func (w *objw) boolPtr(k string, v *bool) {
	if v != nil {
		w.bool(k, *v)
	}
}

func (w *objw) raw(k string, v []byte) {
	w.key(k)
	w.buf = append(w.buf, v...)
}

// rawOpt writes v unless it is absent (nil).
func (w *objw) rawOpt(k string, v json.RawMessage) {
	if v != nil {
		w.raw(k, v)
	}
}

func (w *objw) value(k string, v any) error {
	b, err := marshalJS(v)
	if err != nil {
		return err
	}
	w.raw(k, b)
	return nil
}

// marshalJS encodes v like encoding/json but leaves <, > and & unescaped, as JSON.stringify does.
func marshalJS(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func (w *objw) extra(fields []Field) {
	for _, f := range fields {
		w.raw(f.Key, f.Value)
	}
}

func (w *objw) close() []byte {
	if w.n == 0 {
		return append(w.buf, '{', '}')
	}
	return append(w.buf, '}')
}

// toRaw turns a caller-supplied details/data value into raw JSON; nil stays absent.
func toRaw(v any) (json.RawMessage, error) {
	switch t := v.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		if t == nil {
			return nil, nil
		}
		if !json.Valid(t) {
			return nil, errInvalidRaw
		}
		return append(json.RawMessage(nil), t...), nil
	}
	return marshalJS(v)
}
