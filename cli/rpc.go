package cli

import (
	"context"
	"errors"

	"github.com/atomic-cli/atomic/ext"
	printmode "github.com/atomic-cli/atomic/mode/print"
	rpcmode "github.com/atomic-cli/atomic/mode/rpc"
	"github.com/atomic-cli/atomic/session"
)

// rpcFront is RPC mode while the runtime is built and served (rpc-and-json.md §1–§6); nil in
// the other modes, where its methods fall back to theirs.
type rpcFront struct{ srv *rpcmode.Server }

// newRPCFront starts reading commands from stdin for --mode rpc (so dialogs shown while
// extensions start can be answered); nil for the other modes.
func (o *Options) newRPCFront() *rpcFront {
	if o.Mode != "rpc" {
		return nil
	}
	return &rpcFront{srv: rpcmode.NewServer(rpcmode.Config{In: o.Stdin, Out: o.Stdout, Err: o.Stderr})}
}

// modePrompts returns the prompts of print and JSON mode. RPC mode takes its prompts from stdin,
// which is the command channel: @file and message arguments are refused (rpc-and-json.md §1).
func (o *Options) modePrompts() ([]printmode.Prompt, error) {
	if o.Mode != "rpc" {
		return o.prompts()
	}
	if len(o.Files) > 0 {
		return nil, errors.New("@file arguments are not supported in RPC mode: send the text in a prompt command on stdin")
	}
	if len(o.Messages) > 0 {
		return nil, errors.New("messages are not taken as arguments in RPC mode: send them as prompt commands on stdin")
	}
	return nil, nil
}

// ui is ctx.ui: the RPC client's, nil (no UI) otherwise.
func (f *rpcFront) ui() ext.UI {
	if f == nil {
		return nil
	}
	return f.srv.UI()
}

// extensionErrors sends extension errors to the client as extension_error lines in RPC mode,
// to fallback otherwise.
func (f *rpcFront) extensionErrors(fallback func(*ext.Error)) func(*ext.Error) {
	if f == nil {
		return fallback
	}
	return f.srv.ExtensionError
}

// serve runs the protocol until stdin ends, a signal arrives or an extension shuts down.
func (f *rpcFront) serve(ctx context.Context, rt *session.Runtime) int {
	return f.srv.Serve(ctx, rt)
}
