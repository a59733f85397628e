package anthropic

import (
	"encoding/json"
	"testing"
)

// TestFastTextDelta: the reflection-free path decodes exactly what json.Unmarshal decodes for
// text deltas, and declines every other shape.
func TestFastTextDelta(t *testing.T) {
	for _, text := range []string{"Hello", "", "with \"quotes\" and \\ and\nnewline", "unicode é ✓ 😀 \u2028", "tab\there", "<html>&"} {
		b, _ := json.Marshal(text)
		data := []byte(`{"type":"content_block_delta","index":12,"delta":{"type":"text_delta","text":` + string(b) + `}}`)
		idx, got, ok := fastTextDelta(data)
		var ev streamEvent
		if err := json.Unmarshal(data, &ev); err != nil {
			t.Fatal(err)
		}
		if !ok || idx != 12 || got != ev.Delta.Text || got != text {
			t.Fatalf("fastTextDelta(%s) = %d %q %v; want 12 %q", data, idx, got, ok, ev.Delta.Text)
		}
	}
	for _, data := range []string{
		`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"x"}}`,
		`{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "x"}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x","extra":1}}`,
		`{"type":"content_block_delta","index":x,"delta":{"type":"text_delta","text":"x"}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"b"}}`,
		`{"type":"message_stop"}`,
	} {
		if _, _, ok := fastTextDelta([]byte(data)); ok {
			t.Fatalf("fastTextDelta accepted %s", data)
		}
	}
}
