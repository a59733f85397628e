package llm

import (
	"encoding/json"
	"testing"
)

func TestToolSpecSchema(t *testing.T) {
	params := json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)
	if got := (ToolSpec{Parameters: params}).Schema(); string(got) != string(params) {
		t.Errorf("Schema() = %s, want the parameters %s", got, params)
	}
	if got := (ToolSpec{}).Schema(); string(got) != `{"type":"object","properties":{}}` {
		t.Errorf("Schema() without parameters = %s, want the empty object schema", got)
	}
}
