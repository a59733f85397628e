package store

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/atomic-cli/atomic/llm"
)

// messageCorpus returns raw messages covering the shapes the fast decoder handles and the ones it
// must decline.
func messageCorpus(t *testing.T) [][]byte {
	t.Helper()
	out := [][]byte{
		[]byte(`{"role":"user","content":"plain","timestamp":1}`),
		[]byte(`{"role":"user","content":[],"timestamp":1.9}`),
		[]byte(`{"role":"user","content":null,"timestamp":null,"extra":null}`),
		[]byte(`{"role":"hookMessage","customType":"c","content":"h","display":true,"details":null,"timestamp":2}`),
		[]byte(`{"role":"assistant","content":[{"type":"thinking","thinking":"hm","thinkingSignature":"s","redacted":true},{"type":"text","text":"a \"q\" \\ \/ \b\f\n\r\t \u00e9 \ud83d\ude00 \ud800 x \udc00"},{"type":"toolCall","id":"t","name":"bash","arguments":{"command":"ls","n":1.5,"deep":{"a":[1,null,true]}},"thoughtSignature":"ts"}],"api":"x","provider":"p","model":"m","usage":{"input":1,"output":2,"cacheRead":3,"cacheWrite":4,"totalTokens":10,"cost":{"input":0.1,"output":2e-7,"cacheRead":0,"cacheWrite":0,"total":1}},"stopReason":"error","errorMessage":"boom","timestamp":3,"responseId":"r","endTurn":true}`),
		[]byte(`{"role":"toolResult","toolCallId":"t","toolName":"bash","content":[{"type":"text","text":"out"},{"type":"image","data":"AAAA","mimeType":"image/png"}],"details":{"a":1},"isError":true,"timestamp":4}`),
		[]byte(`{"role":"bashExecution","command":"ls","output":"x","exitCode":2,"cancelled":false,"truncated":true,"fullOutputPath":"/tmp/o","excludeFromContext":true,"timestamp":5}`),
		[]byte(`{"role":"bashExecution","command":"ls","output":"x","exitCode":null,"cancelled":true,"truncated":false,"timestamp":5}`),
		[]byte(`{"role":"branchSummary","summary":"s","fromId":"f","timestamp":6}`),
		[]byte(`{"role":"compactionSummary","summary":"s","tokensBefore":123.7,"timestamp":7}`),
		[]byte(`{"role":"custom","customType":"c","content":[{"type":"text","text":"t","cache_control":{"x":1}}],"display":false,"timestamp":8}`),
		// Shapes the fast path declines (the results must still agree).
		[]byte(`{"role":"user","content":[{"type":"text","Text":"case folded key"}],"timestamp":1}`),
		[]byte(`{"role":"assistant","content":[],"usage":{"input":1.5},"timestamp":1}`),
		[]byte(`{"role":"assistant","content":[],"usage":{"Input":1},"timestamp":1}`),
		[]byte(`{"role":"user","content":[null],"timestamp":1}`),
		[]byte(`{"role":"user","content":"bad utf8 ` + "\xff" + `","timestamp":1}`),
		[]byte(`{"r\u006fle":"user","content":"escaped key","timestamp":1}`),
		[]byte(`{"role":"user","content":7,"timestamp":1}`),
		[]byte(`{"role":"user","content":"x","timestamp":"soon"}`),
		[]byte(`{"role":1}`),
	}
	for _, src := range fixtureSessions(t) {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range splitLines(data)[1:] {
			var raw struct {
				Message json.RawMessage `json:"message"`
			}
			json.Unmarshal(line, &raw)
			if raw.Message != nil {
				out = append(out, raw.Message)
			}
		}
	}
	return out
}

// TestFastDecodeMatchesLLM checks the loader's message decoder against llm.Message.UnmarshalJSON.
func TestFastDecodeMatchesLLM(t *testing.T) {
	fast := 0
	for i, raw := range messageCorpus(t) {
		var want llm.Message
		wantErr := want.UnmarshalJSON(raw)
		got, ok := decodeMessageFast(raw)
		if ok {
			fast++
			if wantErr != nil {
				t.Errorf("%d: fast path accepted what llm rejects (%v): %s", i, wantErr, raw)
			} else if !reflect.DeepEqual(*got, want) {
				t.Errorf("%d: fast path differs:\n got %#v\nwant %#v", i, *got, want)
			}
		}
		e := &Entry{Type: TypeMessage, msgRaw: raw}
		err := e.decodeMessage()
		if (err != nil) != (wantErr != nil) {
			t.Errorf("%d: decodeMessage err %v, llm err %v", i, err, wantErr)
		}
		if err == nil && !reflect.DeepEqual(*e.Message, want) {
			t.Errorf("%d: decodeMessage differs", i)
		}
		if err != nil && !e.Opaque() {
			t.Errorf("%d: an undecodable message must make the entry opaque", i)
		}
	}
	if fast < 10 {
		t.Errorf("only %d messages took the fast path", fast)
	}
}

// scannerCorpus mixes valid and invalid JSON texts.
var scannerCorpus = []string{
	`{}`, ` { } `, `{"a":1}`, `{"a":-0.5e+10,"b":[true,false,null,{"c":"d"}],"e":""}`, `{"a":"\u00e9\n"}`,
	`{"a":1,}`, `{"a" 1}`, `{"a":01}`, `{"a":1.}`, `{"a":-}`, `{"a":.5}`, `{"a":1e}`, `{"a":"\x"}`, `{"a":"\u12"}`,
	"{\"a\":\"\x01\"}", "{\"a\":\"\t\"}", `{"a":tru}`, `{"a":nul}`, `{"a":[1,]}`, `{"a":[1 2]}`, `{"a":{}`, `{"a":1}}`,
	`[1]`, `"s"`, `{"a":"x"} x`, `{'a':1}`, `{"a":"unterminated}`, `{"a":"\"}`, `{"a":"\\"}`, `{"a":1e5}`,
	`{"a":"ok \\ \" \/ \b \f \n \r \t \uABCD"}`, `{"a":[[[[]]]]}`, `{"a":"é€😀"}`, "{\"a\":\"\x7f\"}",
}

// TestScannerMatchesEncodingJSON checks that a line parses exactly when encoding/json accepts it
// as one object.
func TestScannerMatchesEncodingJSON(t *testing.T) {
	for _, s := range scannerCorpus {
		checkScanner(t, []byte(s))
	}
}

func checkScanner(t *testing.T, b []byte) {
	t.Helper()
	_, got := parseObject(b, nil)
	var m map[string]json.RawMessage
	want := json.Valid(b) && json.Unmarshal(b, &m) == nil && m != nil
	if got != want {
		t.Errorf("parseObject(%q) = %v, encoding/json says %v", b, got, want)
	}
}

func FuzzParseObject(f *testing.F) {
	for _, s := range scannerCorpus {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkScanner(t, b)
		fields, ok := parseObject(b, nil)
		if !ok {
			return
		}
		for _, fl := range fields {
			if !json.Valid(fl.val) {
				t.Errorf("member value %q is not valid JSON", fl.val)
			}
			lit := append(append([]byte{'"'}, fl.key...), '"')
			got, ok := unquote(lit, false)
			var want string
			if !ok || json.Unmarshal(lit, &want) != nil {
				t.Fatalf("key %s does not decode", lit)
			}
			if utf8.Valid(fl.key) && got != want {
				t.Errorf("unquote(%s) = %q, encoding/json %q", lit, got, want)
			}
		}
	})
}

// TestUnquoteMatchesEncodingJSON compares string decoding on valid UTF-8 input.
func TestUnquoteMatchesEncodingJSON(t *testing.T) {
	for _, lit := range []string{`""`, `"abc"`, `"a\"b\\c\/d\be\ff\ng\rh\ti"`, `"\u0041\u00e9\u20ac"`,
		`"\ud83d\ude00"`, `"\ud83d"`, `"\ude00x"`, `"\ud83dx"`, `"\ud83d\u0041"`, `"\ud83d\ud83d\ude00"`, `"tail\n"`} {
		got, ok := unquote([]byte(lit), false)
		var want string
		if err := json.Unmarshal([]byte(lit), &want); err != nil {
			t.Fatal(err)
		}
		if !ok || got != want {
			t.Errorf("unquote(%s) = %q, want %q", lit, got, want)
		}
	}
}
