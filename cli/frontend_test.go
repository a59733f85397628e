package cli

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/atomic-cli/atomic/mode/tui"
)

// TestChooseFrontEnd: the command line picks one front-end, and each answers for its mode.
func TestChooseFrontEnd(t *testing.T) {
	cases := []struct {
		name     string
		o        Options
		want     string // the front-end's type
		wantMode string // ctx.mode
	}{
		{"pipe", Options{}, "cli.printFront", "print"},
		{"text", Options{Mode: "text"}, "cli.printFront", "print"},
		{"json", Options{Mode: "json"}, "cli.jsonFront", "json"},
		{"rpc on a terminal", Options{Mode: "rpc", StdinIsTTY: true, StdoutIsTTY: true}, "*cli.rpcFront", "rpc"},
		{"terminal", Options{StdinIsTTY: true, StdoutIsTTY: true}, "*cli.interactiveFront", "tui"},
		{"terminal -p", Options{Print: true, StdinIsTTY: true, StdoutIsTTY: true}, "cli.printFront", "print"},
		{"terminal --mode text", Options{Mode: "text", StdinIsTTY: true, StdoutIsTTY: true}, "cli.printFront", "print"},
		{"stdout piped", Options{StdinIsTTY: true}, "cli.printFront", "print"},
	}
	for i := range cases {
		c := &cases[i]
		t.Run(c.name, func(t *testing.T) {
			f, err := chooseFrontEnd(&c.o)
			if err != nil {
				t.Fatal(err)
			}
			if got := typeName(f); got != c.want || f.mode() != c.wantMode {
				t.Fatalf("front-end %s (mode %q); want %s (mode %q)", got, f.mode(), c.want, c.wantMode)
			}
			// The screen, painting 30 frames a second, and print mode, showing only the final
			// answer, read provider streams in batches; JSON and RPC consumers see every delta.
			wantPace := time.Duration(0)
			switch c.wantMode {
			case "tui":
				wantPace = tui.StreamReadInterval
			case "print":
				wantPace = PrintStreamReadInterval
			}
			if got := streamReadInterval(f); got != wantPace {
				t.Errorf("stream read interval %s, want %s", got, wantPace)
			}
		})
	}
	if _, err := chooseFrontEnd(&Options{Mode: "xml"}); err == nil || !strings.Contains(err.Error(), `unknown --mode "xml"`) {
		t.Fatalf("unknown mode: err %v", err)
	}
}

// TestFrontEndWithoutPrompt: with nothing to run, -p on a terminal and a pipe say no prompt was
// given and exit 1 before any session is opened (a terminal without -p opens the UI, which
// mode/tui/tuitest drives).
func TestFrontEndWithoutPrompt(t *testing.T) {
	for _, c := range []struct {
		tty  bool
		args []string
		want string
	}{
		{true, []string{"-p"}, "Error: no prompt given"},
		{false, nil, "Error: no prompt given"},
	} {
		var stdout, stderr bytes.Buffer
		dir := t.TempDir()
		o := &Options{
			Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr,
			StdinIsTTY: c.tty, StdoutIsTTY: c.tty,
			Getenv: func(k string) string {
				if k == "ATOMIC_CODING_AGENT_DIR" {
					return dir
				}
				return ""
			},
		}
		if code := execute(o, c.args); code != 1 || !strings.HasPrefix(stderr.String(), c.want) {
			t.Errorf("tty=%v %q: exit %d, stderr %q; want 1 and %q", c.tty, c.args, code, stderr.String(), c.want)
		}
	}
}

func typeName(v any) string { return fmt.Sprintf("%T", v) }
