package ext

import (
	"encoding/json"
	"testing"
)

// A lifecycle envelope's other members (ownership, timestamps) survive decoding and encoding,
// beside the named fields; "type" is not kept, and a named field wins over Attribution.
func TestWorkflowLifecycleAttributionRoundTrip(t *testing.T) {
	in := `{"type":"workflow_lifecycle","eventId":"e1","status":"completed","delivery":"live","target":{"kind":"stage","status":"completed"},"ownerSessionId":"o","occurredAt":17,"rootRunId":"r"}`
	var e WorkflowLifecycle
	if err := json.Unmarshal([]byte(in), &e); err != nil {
		t.Fatal(err)
	}
	if e.EventID != "e1" || len(e.Attribution) != 3 || string(e.Attribution["occurredAt"]) != "17" {
		t.Fatalf("decoded %+v", e)
	}
	e.Attribution["eventId"] = json.RawMessage(`"shadow"`)
	out, err := json.Marshal(WorkflowStageCompleted{e})
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatal(err)
	}
	if m["eventId"] != "e1" || m["ownerSessionId"] != "o" || m["occurredAt"] != float64(17) || m["rootRunId"] != "r" || m["type"] != nil {
		t.Fatalf("encoded %s", out)
	}
	if b, _ := json.Marshal(WorkflowLifecycle{EventID: "x"}); string(b) != `{"target":null,"status":"","eventId":"x","cursor":{"epoch":0,"revision":0},"delivery":""}` {
		t.Fatalf("without attribution: %s", b)
	}
}
