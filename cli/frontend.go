package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/atomic-cli/atomic/ext"
	jsonmode "github.com/atomic-cli/atomic/mode/json"
	printmode "github.com/atomic-cli/atomic/mode/print"
	rpcmode "github.com/atomic-cli/atomic/mode/rpc"
	"github.com/atomic-cli/atomic/session"
)

// frontEnd is one way atomic talks to its user: print mode, JSON mode, RPC mode, or the
// interactive terminal. run asks the front-end chosen by chooseFrontEnd for everything that
// differs between them, in this order: prompts (before anything is opened), start (just before
// the session runtime is built), mode, ui and extensionErrors (the runtime's options), then run.
type frontEnd interface {
	// prompts checks the command line for this front-end and returns the prompts to run, in
	// order; an error (such as "no prompt given") ends atomic before any session is opened.
	prompts(o *Options) ([]printmode.Prompt, error)
	// start prepares the front-end just before the session runtime is built.
	start(o *Options)
	// mode is ctx.mode of extensions: "print", "json", "rpc" or "tui" (Atomic's run-mode discriminant;
	// spec tui.md §4.5).
	mode() string
	// ui is ctx.ui; nil when the front-end has no user interface.
	ui() ext.UI
	// extensionErrors returns where extension errors go: fallback (stderr) unless the
	// front-end shows them itself.
	extensionErrors(fallback func(*ext.Error)) func(*ext.Error)
	// run runs the session until the front-end is done and returns the process exit code.
	run(ctx context.Context, rt *session.Runtime, prompts []printmode.Prompt, o *Options) int
}

// stderrRouter is the optional capability of a front-end that owns the terminal: run gives it
// atomic's stderr before anything else captures it, and writes to stderr from then on go to
// the writer it returns, until release is called (run defers it, so the error run returns is
// printed on the terminal).
type stderrRouter interface {
	routeStderr(stderr io.Writer) (w io.Writer, release func())
}

// PrintStreamReadInterval is print mode's stream read interval (session.Options.StreamReadInterval).
// JSON and RPC mode read every delta as it arrives: their consumers see each event.
const PrintStreamReadInterval = 16 * time.Millisecond

// streamPacer is the optional capability of a front-end that shows streamed answers at a frame
// rate rather than delta by delta: the interval at which provider streams are read
// (session.Options.StreamReadInterval). A front-end without it reads every delta as it arrives.
type streamPacer interface {
	streamReadInterval() time.Duration
}

// streamReadInterval returns f's stream read interval, 0 when it has none.
func streamReadInterval(f frontEnd) time.Duration {
	if p, ok := f.(streamPacer); ok {
		return p.streamReadInterval()
	}
	return 0
}

// chooseFrontEnd picks the front-end for the command line: --mode json or rpc, the interactive
// terminal when both stdin and stdout are terminals and neither -p nor --mode is given, else
// print mode.
func chooseFrontEnd(o *Options) (frontEnd, error) {
	switch o.Mode {
	case "json":
		return jsonFront{}, nil
	case "rpc":
		return &rpcFront{}, nil
	case "", "text":
		if o.Mode == "" && !o.Print && o.StdinIsTTY && o.StdoutIsTTY {
			return &interactiveFront{}, nil // interactive.go
		}
		return printFront{}, nil
	}
	return nil, fmt.Errorf("unknown --mode %q (use text, json or rpc)", o.Mode)
}

// printFront is print mode (-p): it runs the prompts and prints the final answer.
type printFront struct{}

func (printFront) prompts(o *Options) ([]printmode.Prompt, error) {
	p, err := o.prompts()
	if err == nil && len(p) == 0 {
		err = errors.New("no prompt given: pass a message as an argument or pipe it on stdin")
	}
	return p, err
}

func (printFront) start(*Options)                                      {}
func (printFront) mode() string                                        { return "print" }
func (printFront) ui() ext.UI                                          { return nil }
func (printFront) extensionErrors(f func(*ext.Error)) func(*ext.Error) { return f }

// streamReadInterval: print mode writes only the final answer, so nobody sees a delta arrive;
// reading the stream in batches halves the CPU of a long answer (bench/tui-vs-pi.sh's -p row).
func (printFront) streamReadInterval() time.Duration { return PrintStreamReadInterval }

func (printFront) run(ctx context.Context, rt *session.Runtime, prompts []printmode.Prompt, o *Options) int {
	return printmode.Run(ctx, rt, prompts, o.Stdout, o.Stderr)
}

// jsonFront is JSON mode (--mode json): print mode's prompts, every event as a JSON line.
type jsonFront struct{ printFront }

func (jsonFront) mode() string { return "json" }

// streamReadInterval is 0: a JSON consumer sees every message_update as it arrives.
func (jsonFront) streamReadInterval() time.Duration { return 0 }
func (jsonFront) run(ctx context.Context, rt *session.Runtime, prompts []printmode.Prompt, o *Options) int {
	return jsonmode.Run(ctx, rt, prompts, o.Stdout, o.Stderr)
}

// rpcFront is RPC mode (--mode rpc, rpc-and-json.md §1–§6): commands come as JSON lines on
// stdin and responses and events go out on stdout.
type rpcFront struct{ srv *rpcmode.Server }

// prompts refuses @file and message arguments: stdin is the command channel, prompts come
// as prompt commands (rpc-and-json.md §1).
func (*rpcFront) prompts(o *Options) ([]printmode.Prompt, error) {
	if len(o.Files) > 0 {
		return nil, errors.New("@file arguments are not supported in RPC mode: send the text in a prompt command on stdin")
	}
	// An argument after an extension flag may be its value: decided once extensions loaded.
	if len(o.Messages) > len(flagCandidates(o.ExtensionFlags)) {
		return nil, errors.New("messages are not taken as arguments in RPC mode: send them as prompt commands on stdin")
	}
	return nil, nil
}

// start begins reading commands from stdin, so dialogs shown while extensions load can be
// answered. It runs once: earlyUI may have started the server already.
func (f *rpcFront) start(o *Options) {
	if f.srv == nil {
		f.srv = rpcmode.NewServer(rpcmode.Config{In: o.Stdin, Out: o.Stdout, Err: o.Stderr})
	}
}

// earlyUI is ctx.ui for extensions that run before the session (the project_trust handlers):
// the RPC client's dialogs, answered by extension_ui_response frames read from then on.
func (f *rpcFront) earlyUI(o *Options) ext.UI {
	f.start(o)
	return f.srv.UI()
}

func (*rpcFront) mode() string { return "rpc" }

// ui is the RPC client's: dialogs become extension_ui_request frames.
func (f *rpcFront) ui() ext.UI { return f.srv.UI() }

// extensionErrors sends extension errors to the client as extension_error lines.
func (f *rpcFront) extensionErrors(func(*ext.Error)) func(*ext.Error) { return f.srv.ExtensionError }

// run serves the protocol until stdin ends, a signal arrives or an extension shuts down.
func (f *rpcFront) run(ctx context.Context, rt *session.Runtime, _ []printmode.Prompt, _ *Options) int {
	return f.srv.Serve(ctx, rt)
}

// modeName is ctx.mode of the front-end the command line chooses ("print" when --mode is
// unknown), for extensions that run before the front-end starts (the project_trust runner).
func (o *Options) modeName() string {
	f, err := chooseFrontEnd(o)
	if err != nil {
		return "print"
	}
	return f.mode()
}
