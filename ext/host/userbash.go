package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/ext/protocol"
	"github.com/atomic-cli/atomic/tool"
)

// user_bash's { operations } from a host (seed 004, "User Bash Events", options 1 and 2): the
// handler's BashOperations object stays in the host, which answers its id as
// operations.hostOps; the session runs the user's command through hostBashOps, which calls the
// object's exec over bashOps.exec and streams its output back as tool.update text blocks.

// hostBashOps are BashOperations living in a host. Each is used for one command.
type hostBashOps struct {
	p    *process
	id   int
	what string
}

// Exec runs command through the host's exec; cancelling ctx aborts its AbortSignal.
func (o *hostBashOps) Exec(ctx context.Context, command, cwd string, opts tool.ExecOptions) (int, error) {
	raw, err := o.p.call(ctx, protocol.MethodBashOpsExec, protocol.BashOpsExecParams{Ops: o.id, Command: command, Cwd: cwd}, o.what, func(u json.RawMessage) {
		if opts.OnData == nil {
			return
		}
		var r struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		}
		if json.Unmarshal(u, &r) != nil {
			return
		}
		for _, b := range r.Content {
			if b.Text != "" {
				opts.OnData([]byte(b.Text))
			}
		}
	})
	if err != nil {
		if ctx.Err() != nil {
			return tool.NoExitCode, context.Cause(ctx)
		}
		return tool.NoExitCode, errors.New(errorText(err))
	}
	var res protocol.BashOpsExecResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return tool.NoExitCode, fmt.Errorf("%s: the host answered %.200s: %v", o.what, raw, err)
	}
	if res.ExitCode == nil {
		return tool.NoExitCode, nil
	}
	return *res.ExitCode, nil
}

// bindUserBash replaces the operations of a user_bash result that live in the host by the
// hostBashOps that call them.
func bindUserBash(p *process, what string, res any) any {
	r, ok := res.(*ext.UserExecResult)
	if !ok || r == nil || r.Operations == nil {
		return res
	}
	m, ok := r.Operations.(map[string]any)
	if !ok {
		return res
	}
	id, ok := m["hostOps"].(float64)
	if !ok {
		return res
	}
	r.Operations = &hostBashOps{p: p, id: int(id), what: "the user_bash operations of " + what}
	return r
}
