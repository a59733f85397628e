package llm

import (
	"bytes"
	"encoding/json"
	"testing"
)

// AppendJSONString writes what node's JSON.stringify writes (node -e 'JSON.stringify(s)'), and
// AppendGoJSONString what encoding/json writes with HTML escaping off.
func TestAppendJSONStringForms(t *testing.T) {
	s := "a\b\f\n\r\t\"\\\x01\x1b<>&\u2028\u2029é😀\xffz"
	wantJS := `"a\b\f\n\r\t\"\\\u0001\u001b<>&` + "\u2028\u2029é😀" + `\ufffdz"`
	if got := string(AppendJSONString(nil, s)); got != wantJS {
		t.Errorf("AppendJSONString = %s, want %s", got, wantJS)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	wantGo := string(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	if got := string(AppendGoJSONString(nil, s)); got != wantGo {
		t.Errorf("AppendGoJSONString = %s, want %s", got, wantGo)
	}
}
