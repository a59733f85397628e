package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"
)

// BashOptions configure the bash tool.
type BashOptions struct {
	// Operations run the command; nil means LocalShell{ShellPath: ShellPath}.
	Operations BashOperations
	// ShellPath (setting shellPath) is the shell of the default operations; it must exist, else
	// each command fails with "Custom shell path not found". "" resolves /bin/bash, bash on
	// PATH, then sh (tools.md §5.1).
	ShellPath string
	// CommandPrefix (setting shellCommandPrefix) is prepended to every command as
	// "<prefix>\n<command>".
	CommandPrefix string
	// Env is the base environment ("KEY=value"); nil means the current process environment.
	Env []string
	// SpawnHook may rewrite the command, working directory and environment of each run (seed
	// 004, "Remote Execution").
	SpawnHook func(SpawnContext) SpawnContext
	// TempDir receives the spill files of long outputs (SpillDir of the session); empty means
	// os.TempDir(). Each file is capped at SpillMaxBytes.
	TempDir string
}

// SpawnContext is what BashOptions.SpawnHook sees and returns.
type SpawnContext struct {
	Command string
	Cwd     string
	Env     []string // "KEY=value"
}

// BashDetails is details of a bash result or update (tools.md §5.1); empty unless the output was
// truncated.
type BashDetails struct {
	Truncation *Truncation `json:"truncation,omitempty"`
	// FullOutputPath is the spill file holding the whole output.
	FullOutputPath string `json:"fullOutputPath,omitempty"`
}

// Bash is the bash tool (tools.md §5.1, pi): it runs a command through the shell, streams the
// tail of its output and returns it tail-truncated, spilling the whole output to a temp file.
type Bash struct {
	cwd  string
	opts BashOptions
}

// NewBash returns the bash tool for the session working directory cwd.
func NewBash(cwd string, opts BashOptions) *Bash {
	if opts.Operations == nil {
		opts.Operations = LocalShell{ShellPath: opts.ShellPath}
	}
	return &Bash{cwd: cwd, opts: opts}
}

var bashSchema = json.RawMessage(`{"type":"object","required":["command"],"properties":{` +
	`"command":{"type":"string","description":"Bash command to execute"},` +
	`"timeout":{"type":"number","description":"Timeout in seconds (optional, no default timeout)"}}}`)

// Name implements Tool.
func (*Bash) Name() string { return "bash" }

// Label implements Labeler.
func (*Bash) Label() string { return "bash" }

// Description implements Tool.
func (*Bash) Description() string {
	return "Execute a bash command in the current working directory. Returns stdout and stderr. " +
		"Output is truncated to last " + strconv.Itoa(DefaultMaxLines) + " lines or " +
		strconv.Itoa(DefaultMaxBytes/1024) + "KB (whichever is hit first). If truncated, full " +
		"output is saved to a temp file. Optionally provide a timeout in seconds."
}

// Parameters implements Tool.
func (*Bash) Parameters() json.RawMessage { return bashSchema }

// PromptSnippet implements Prompter.
func (*Bash) PromptSnippet() string { return "Execute bash commands (ls, grep, find, etc.)" }

// PromptGuidelines implements Prompter. The bash guideline of the system prompt depends on which
// other tools are active, so the prompt builder owns it.
func (*Bash) PromptGuidelines() []string { return nil }

type bashParams struct {
	Command string   `json:"command"`
	Timeout *float64 `json:"timeout"`
}

// errBashTimeout is the cancellation cause of a run that hit its timeout.
var errBashTimeout = errors.New("bash: timeout")

// updateInterval bounds how often Execute reports partial output.
const updateInterval = 100 * time.Millisecond

// Execute implements Tool. A non-zero exit code gives a Result with IsError set whose text ends in
// "Command exited with code N". Errors: "Command timed out after S seconds" and "Command
// aborted" (after any output), a missing working directory or shell, ErrAborted.
func (t *Bash) Execute(ctx context.Context, call Call, onUpdate func(Result)) (Result, error) {
	p, err := decodeArgs[bashParams]("bash", call.Args)
	if err != nil {
		return Result{}, err
	}
	if err := checkAborted(ctx); err != nil {
		return Result{}, err
	}
	sc := SpawnContext{Command: p.Command, Cwd: t.cwd, Env: t.opts.Env}
	if t.opts.CommandPrefix != "" {
		sc.Command = t.opts.CommandPrefix + "\n" + sc.Command
	}
	if t.opts.SpawnHook != nil {
		if sc.Env == nil {
			sc.Env = os.Environ()
		}
		sc = t.opts.SpawnHook(sc)
	}

	runCtx := ctx
	var timeout float64
	if p.Timeout != nil && *p.Timeout > 0 {
		timeout = *p.Timeout
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeoutCause(ctx, time.Duration(timeout*float64(time.Second)), errBashTimeout)
		defer cancel()
	}

	out := &bashOutput{tempDir: t.opts.TempDir}
	defer out.close()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	if onUpdate != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tick := time.NewTicker(updateInterval)
			defer tick.Stop()
			for {
				select {
				case <-stop:
					return
				case <-tick.C:
					if r, ok := out.update(); ok {
						onUpdate(r)
					}
				}
			}
		}()
	}
	code, err := t.opts.Operations.Exec(runCtx, sc.Command, sc.Cwd, ExecOptions{Env: sc.Env, OnData: out.write})
	close(stop)
	wg.Wait()
	out.close()

	text, details := out.final()
	if err != nil {
		var reason string
		switch {
		case ctx.Err() != nil:
			reason = "Command aborted"
		case errors.Is(context.Cause(runCtx), errBashTimeout):
			reason = "Command timed out after " + jsNumber(timeout) + " seconds"
		default:
			return Result{}, err
		}
		if text != "" {
			text += "\n\n"
		}
		return Result{}, errors.New(text + reason)
	}
	if text == "" {
		text = "(no output)"
	}
	res := TextResult(text, nil)
	if details != nil {
		res.Details = *details
	}
	if code != 0 && code != NoExitCode {
		res.Content[0].Text += "\n\nCommand exited with code " + strconv.Itoa(code)
		res.IsError = true
	}
	return res, nil
}

// bashOutput accumulates the merged output of one run. All fields are owned by mu: write runs on
// the reader goroutine of Exec, update on the ticker goroutine, final after both have stopped.
type bashOutput struct {
	mu       sync.Mutex
	tempDir  string
	window   []byte // the most recent output, at least 2*DefaultMaxBytes once trimmed
	total    int    // bytes seen
	newlines int    // "\n" seen
	lastLine int    // bytes after the last "\n"
	dirty    bool   // output arrived since the last update

	spill      *spillFile
	spillPath  string
	spillTried bool
}

func (o *bashOutput) write(p []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.total += len(p)
	if n := bytes.Count(p, []byte("\n")); n > 0 {
		o.newlines += n
		o.lastLine = len(p) - 1 - bytes.LastIndexByte(p, '\n')
	} else {
		o.lastLine += len(p)
	}
	o.window = append(o.window, p...)
	switch {
	case o.spill != nil:
		o.spill.Write(p)
	case !o.spillTried && (o.total > DefaultMaxBytes || o.newlines >= DefaultMaxLines):
		// The window still holds everything: trimming starts only after this point.
		o.spillTried = true
		if f, err := createSpill(o.tempDir); err == nil {
			o.spill, o.spillPath = f, f.path
			f.Write(o.window)
		}
	}
	if keep := 2 * DefaultMaxBytes; len(o.window) > 2*keep {
		n := copy(o.window, o.window[len(o.window)-keep:])
		o.window = o.window[:n]
	}
	o.dirty = true
}

// truncation tail-truncates the window and corrects the totals to the whole output.
func (o *bashOutput) truncation() Truncation {
	tr := TruncateTail(string(bytes.ToValidUTF8(o.window, []byte("\uFFFD"))), TruncateOptions{})
	tr.TotalLines, tr.TotalBytes = o.newlines+1, o.total
	return tr
}

// update returns a partial result when output arrived since the previous one.
func (o *bashOutput) update() (Result, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.dirty {
		return Result{}, false
	}
	o.dirty = false
	tr := o.truncation()
	d := BashDetails{FullOutputPath: o.spillPath}
	if tr.Truncated {
		d.Truncation = &tr
	}
	return TextResult(tr.Content, d), true
}

// final returns the output text with pi's truncation notice, and details when truncated.
func (o *bashOutput) final() (string, *BashDetails) {
	o.mu.Lock()
	defer o.mu.Unlock()
	tr := o.truncation()
	if !tr.Truncated {
		return tr.Content, nil
	}
	full := ""
	if o.spillPath != "" {
		full = ". Full output: " + o.spillPath
	}
	start, end := tr.TotalLines-tr.OutputLines+1, tr.TotalLines
	var notice string
	switch {
	case tr.LastLinePartial:
		notice = fmt.Sprintf("[Showing last %s of line %d (line is %s)%s]",
			FormatSize(tr.OutputBytes), end, FormatSize(o.lastLine), full)
	case tr.TruncatedBy == TruncatedByLines:
		notice = fmt.Sprintf("[Showing lines %d-%d of %d%s]", start, end, tr.TotalLines, full)
	default:
		notice = fmt.Sprintf("[Showing lines %d-%d of %d (%s limit)%s]",
			start, end, tr.TotalLines, FormatSize(DefaultMaxBytes), full)
	}
	return tr.Content + "\n\n" + notice, &BashDetails{Truncation: &tr, FullOutputPath: o.spillPath}
}

func (o *bashOutput) close() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.spill != nil {
		_ = o.spill.Close()
		o.spill = nil
	}
}
