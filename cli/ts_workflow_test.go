package cli

import (
	"encoding/json"
	"testing"

	"github.com/atomic-cli/atomic/internal/fakellm"
)

// wfSeen is what the workflow.ts probe reports: the observer's frames in order (snapshot first,
// FIFO, a new epoch with an unavailable snapshot for the second publisher, the fenced
// publication absent, cursors with string epochs), the workflow_activity_changed hook with the
// changed frame's revision, workflow_stage_completed of the lifecycle event (status and previous
// status from its target, the host's cursor) and workflow_heartbeat, and no overlapping
// callbacks.
const wfSeen = "WF snapshot unavailable [-] e1r0:string | snapshot ready [A=working] e1r1:string | changed B=idle e1r2:string | removed A e1r3:string" +
	" | snapshot unavailable [-] e2r0:string | snapshot ready [] e2r1:string" +
	" || hook B r2:string | stage ev-1 s1 completed/running live r4:string owner 1700000000123 | heartbeat B 1700000000000 5 || overlap=false"

func wfTurns() []fakellm.Turn {
	return []fakellm.Turn{{ToolCalls: []fakellm.ToolCall{fakellm.Call("wf", map[string]any{})}}, {Text: "done"}}
}

// Issue 13 item 9: pi.registerWorkflowActivityPublisher and ctx.observeWorkflowActivity from a
// TypeScript extension, through the binary in print mode.
func TestTSWorkflowActivityPrint(t *testing.T) {
	p := newTSProbe(t, wfTurns(), "workflow.ts")
	out, _ := p.print("--no-session", "-e", "workflow.ts", "-p", "publish")
	if out != "done\n" {
		t.Fatalf("stdout %q", out)
	}
	p.requestHas(1, wfSeen)
}

// The same probe in RPC mode.
func TestTSWorkflowActivityRPC(t *testing.T) {
	p := newTSProbe(t, wfTurns(), "workflow.ts")
	r := p.rpc("--no-session", "-e", "workflow.ts")
	r.prompt("1", "publish")
	p.requestHas(1, wfSeen)
	r.in.Close()
	r.wait()
}

// Issue 13 item 10: a TypeScript command's argument completions keep label and description
// through the host and RPC's get_command_completions.
func TestTSCommandCompletionItems(t *testing.T) {
	p := newTSProbe(t, nil, "completions.ts")
	r := p.rpc("--no-session", "-e", "completions.ts")
	r.send(`{"id":"c1","type":"get_command_completions","commandName":"deploy","argumentPrefix":""}`)
	m := r.next(func(m map[string]any) bool { return m["id"] == "c1" })
	got, err := json.Marshal(m["data"])
	if err != nil {
		t.Fatal(err)
	}
	want := `{"completions":[{"description":"the live cluster","label":"Production","value":"prod"},{"label":"staging","value":"staging"},{"label":"dev","value":"dev"}]}`
	if string(got) != want {
		t.Fatalf("completions %s, want %s", got, want)
	}
	r.send(`{"id":"c2","type":"get_command_completions","commandName":"deploy","argumentPrefix":"st"}`)
	m = r.next(func(m map[string]any) bool { return m["id"] == "c2" })
	if got, _ := json.Marshal(m["data"]); string(got) != `{"completions":[{"label":"staging","value":"staging"}]}` {
		t.Fatalf("completions for st: %s", got)
	}
	r.in.Close()
	r.wait()
}
