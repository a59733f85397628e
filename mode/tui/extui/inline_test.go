package extui

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/atomic-cli/atomic/mode/tui/slot"
)

// TestInlineSelectReadsKeysFromTheTerminal drives the pre-screen dialog with raw terminal bytes:
// arrow down, then Enter.
func TestInlineSelectReadsKeysFromTheTerminal(t *testing.T) {
	pr, pw := io.Pipe()
	var out bytes.Buffer
	u := &Inline{In: pr, Out: &out, Env: []string{"TERM=xterm-256color"}, Theme: slot.Plain(), Keys: slot.DefaultKeys()}
	got := make(chan string, 1)
	go func() {
		v, _ := u.Select(context.Background(), "Trust this project?", []string{"Trust", "Do not trust"})
		got <- v
	}()
	if _, err := pw.Write([]byte("\x1b[B")); err != nil {
		t.Fatal(err)
	}
	if _, err := pw.Write([]byte("\r")); err != nil {
		t.Fatal(err)
	}
	select {
	case v := <-got:
		if v != "Do not trust" {
			t.Fatalf("Select = %q, want Do not trust", v)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the inline dialog did not answer")
	}
	pw.Close()
	if !strings.Contains(out.String(), "\x1b[?2004h") {
		t.Fatalf("the terminal was not set up for the dialog: %q", out.String())
	}
}

func TestInlineConfirmEndsWithItsContext(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	u := &Inline{In: pr, Out: io.Discard, Env: []string{"TERM=xterm-256color"}, Theme: slot.Plain(), Keys: slot.DefaultKeys()}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if u.Confirm(ctx, "Proceed?", "") {
		t.Fatal("an expired confirm said yes")
	}
}
