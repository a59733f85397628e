package session

// User shell commands: the `!cmd` / `!!cmd` path of the TUI and the `bash` / `user_bash` commands
// of RPC mode (rpc-and-json.md §3.5; events.md user_bash).

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/tool"
)

// BashOptions qualify ExecuteBash.
type BashOptions struct {
	// ExcludeFromContext records the run without sending it to the model (`!!cmd`).
	ExcludeFromContext bool
	// OnChunk receives the cleaned output as it arrives (never concurrently); nil ignores it.
	OnChunk func(text string)
}

// BashResult is the outcome of a user shell command (rpc-and-json.md §3.5, BashResult).
type BashResult struct {
	// Output is the merged stdout and stderr, ANSI escapes and control characters removed, CRs
	// dropped, tail-truncated to tool.DefaultMaxLines lines or tool.DefaultMaxBytes bytes.
	Output string `json:"output"`
	// ExitCode is nil when the command was cancelled or killed by a signal.
	ExitCode  *int `json:"exitCode,omitempty"`
	Cancelled bool `json:"cancelled"`
	Truncated bool `json:"truncated"`
	// FullOutputPath is the temp file holding the whole output, when it exceeded the limits.
	FullOutputPath string `json:"fullOutputPath,omitempty"`
}

// ExecuteBash runs a command the user typed (not the model) in the session's working directory
// and records it as a bashExecution message, which reaches the model with the next prompt unless
// o.ExcludeFromContext (session-format.md §7.1). The `user_bash` event goes first: the first
// handler that returns a result replaces the execution (that result is recorded), one that
// returns tool.BashOperations runs the command through them. Cancelling ctx kills the command's
// process tree; the result then has Cancelled set. While the agent streams, the record waits for
// the next prompt, as pi's does, so the tool-call/result order of the running turn is kept.
//
// The error is a stale session, or a command that could not be started (missing cwd or shell).
func (s *Session) ExecuteBash(ctx context.Context, command string, o BashOptions) (BashResult, error) {
	if err := s.live("bash"); err != nil {
		return BashResult{}, err
	}
	var ops tool.BashOperations = tool.LocalShell{ShellPath: s.opts.ShellPath}
	if s.runner.Has(ext.IDUserBash) {
		_, res, _ := emit[*ext.UserExecResult](s, ctx, ext.UserBash{Command: command, Cwd: s.opts.Cwd, ExcludeFromContext: o.ExcludeFromContext})
		if res != nil && res.Result != nil {
			r := BashResult{Output: res.Result.Output, ExitCode: res.Result.ExitCode, Cancelled: res.Result.Cancelled, Truncated: res.Result.Truncated, FullOutputPath: res.Result.FullOutputPath}
			s.recordBash(command, r, o.ExcludeFromContext)
			return r, nil
		}
		if res != nil && res.Operations != nil {
			custom, ok := res.Operations.(tool.BashOperations)
			if !ok {
				return BashResult{}, fmt.Errorf("bash: a user_bash handler returned operations of type %T, which is not a tool.BashOperations", res.Operations)
			}
			ops = custom
		}
	}
	out := &userBashOutput{onChunk: o.OnChunk, dir: s.spillDir()}
	run := command
	if p := s.opts.ShellCommandPrefix; p != "" {
		run = p + "\n" + command
	}
	code, err := ops.Exec(ctx, run, s.opts.Cwd, tool.ExecOptions{OnData: out.write})
	cancelled := ctx.Err() != nil
	if err != nil && !cancelled {
		return BashResult{}, err
	}
	r := out.result()
	r.Cancelled = cancelled
	if !cancelled && code != tool.NoExitCode {
		r.ExitCode = &code
	}
	s.recordBash(command, r, o.ExcludeFromContext)
	return r, nil
}

// recordBash adds the bashExecution message to the context and the session file now, or with
// the next prompt while a run is active; no event announces it (rpc-and-json.md §3.5). A session
// replaced meanwhile records nothing: its store now belongs to the replacement.
func (s *Session) recordBash(command string, r BashResult, exclude bool) {
	if s.live("bash") != nil {
		return
	}
	m := llm.Message{
		Role: llm.RoleBashExecution, Command: command, Output: r.Output, ExitCode: r.ExitCode,
		Cancelled: r.Cancelled, Truncated: r.Truncated, FullOutputPath: r.FullOutputPath,
		ExcludeFromContext: exclude, Timestamp: s.now().UnixMilli(),
	}
	if err := s.agent.SetMessages(append(s.agent.Messages(), m)); err != nil {
		// A run is active: the record goes with the next prompt.
		s.mu.Lock()
		s.nextTurn = append(s.nextTurn, m)
		s.mu.Unlock()
		return
	}
	s.persist(&m)
}

// userBashOutput collects the output of one user command. mu guards every field: write runs on
// the reader goroutine of Exec, result after Exec returned.
type userBashOutput struct {
	mu      sync.Mutex
	onChunk func(string)
	carry   []byte            // an incomplete UTF-8 sequence at the end of the previous chunk
	window  []byte            // the most recent cleaned output, at most 4*tool.DefaultMaxBytes
	total   int               // raw bytes seen
	spill   *tool.SpillWriter // capped at tool.SpillMaxBytes
	dir     string            // where the spill file goes; "" is os.TempDir()
	path    string
	tried   bool
}

func (o *userBashOutput) write(p []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.total += len(p)
	buf := append(o.carry, p...)
	o.carry = nil
	if n := incompleteTail(buf); n > 0 {
		o.carry = append([]byte(nil), buf[len(buf)-n:]...)
		buf = buf[:len(buf)-n]
	}
	text := cleanOutput(string(buf))
	if text == "" {
		return
	}
	if o.total > tool.DefaultMaxBytes {
		o.startSpill()
	}
	if o.spill != nil {
		o.spill.Write([]byte(text))
	}
	o.window = append(o.window, text...)
	if keep := 2 * tool.DefaultMaxBytes; len(o.window) > 2*keep {
		n := copy(o.window, o.window[len(o.window)-keep:])
		o.window = o.window[:n]
	}
	if o.onChunk != nil {
		o.onChunk(text)
	}
}

// startSpill opens the full-output file once and writes the window into it (which still holds
// everything the first time the limit is passed).
func (o *userBashOutput) startSpill() {
	if o.tried {
		return
	}
	o.tried = true
	f, err := tool.CreateSpill(o.dir)
	if err != nil {
		return
	}
	f.Write(o.window)
	o.spill, o.path = f, f.Path()
}

// spillDir is the session's spill directory (tool.SpillDir), or "" (os.TempDir()) when it cannot
// be made.
func (s *Session) spillDir() string {
	dir, err := tool.SpillDir(s.store.SessionID())
	if err != nil {
		return ""
	}
	return dir
}

func (o *userBashOutput) result() BashResult {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.carry) > 0 {
		o.window = append(o.window, cleanOutput(strings.ToValidUTF8(string(o.carry), "\uFFFD"))...)
		o.carry = nil
	}
	tr := tool.TruncateTail(string(o.window), tool.TruncateOptions{})
	if tr.Truncated {
		o.startSpill()
	}
	if o.spill != nil {
		_ = o.spill.Close()
		o.spill = nil
	}
	r := BashResult{Output: string(o.window), Truncated: tr.Truncated}
	if tr.Truncated {
		r.Output, r.FullOutputPath = tr.Content, o.path
	}
	return r
}

// incompleteTail returns how many bytes at the end of b start a UTF-8 sequence that the next
// chunk may complete (0 when b ends on a boundary or with an invalid byte).
func incompleteTail(b []byte) int {
	for n := 1; n <= 3 && n <= len(b); n++ {
		c := b[len(b)-n]
		if c < 0x80 {
			return 0
		}
		if utf8.RuneStart(c) {
			if utf8.FullRune(b[len(b)-n:]) {
				return 0
			}
			return n
		}
	}
	return 0
}

// cleanOutput makes command output safe to show and store, as pi's executor does: ANSI escape
// sequences are removed, CRs dropped, other C0 controls except tab and newline removed, the
// Unicode interlinear annotation characters (U+FFF9–U+FFFB) removed and invalid UTF-8 replaced.
func cleanOutput(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 && c != '\t' && c != '\n' || c >= 0x80 {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		if n := ansiLen(s[i:]); n > 0 {
			i += n
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteRune(utf8.RuneError)
		case r == '\t' || r == '\n':
			b.WriteRune(r)
		case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0, r >= 0xfff9 && r <= 0xfffb:
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// ansiLen returns the length of the ANSI escape sequence at the start of s, 0 when there is none:
// CSI (ESC [ or U+009B, parameters, intermediates, a final byte), OSC (ESC ] … BEL or ST), the
// string controls DCS/SOS/PM/APC (ESC P, X, ^, _ … ST) and two-byte escapes.
func ansiLen(s string) int {
	var body string
	var head int
	switch {
	case strings.HasPrefix(s, "\x1b["):
		body, head = s[2:], 2
	case strings.HasPrefix(s, "\u009b"):
		body, head = s[2:], 2
	case strings.HasPrefix(s, "\x1b]"), strings.HasPrefix(s, "\x1bP"), strings.HasPrefix(s, "\x1bX"),
		strings.HasPrefix(s, "\x1b^"), strings.HasPrefix(s, "\x1b_"):
		for i := 2; i < len(s); i++ {
			switch {
			case s[i] == 0x07:
				return i + 1
			case s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\':
				return i + 2
			case s[i] == 0x1b:
				return i
			}
		}
		return len(s)
	case len(s) >= 2 && s[0] == 0x1b:
		i := 1
		for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f {
			i++
		}
		if i < len(s) && s[i] >= 0x30 && s[i] <= 0x7e {
			return i + 1
		}
		return 1
	case s != "" && s[0] == 0x1b:
		return 1
	default:
		return 0
	}
	i := 0
	for i < len(body) && body[i] >= 0x30 && body[i] <= 0x3f {
		i++
	}
	for i < len(body) && body[i] >= 0x20 && body[i] <= 0x2f {
		i++
	}
	if i < len(body) && body[i] >= 0x40 && body[i] <= 0x7e {
		return head + i + 1
	}
	return head + i
}
