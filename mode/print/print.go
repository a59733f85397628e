// Package print is print mode (`-p`, rpc-and-json.md §8): it runs the prompts one after another
// and writes the final assistant text to stdout; diagnostics go to stderr.
//
// It imports agent and llm only; the session is reached through the Session interface.
package print

import (
	"context"
	"fmt"
	"io"

	"github.com/atomic-cli/atomic/llm"
)

// Session is what print mode needs of a live session.
type Session interface {
	// Prompt runs one prompt to completion (provider failures end it without a Go error).
	Prompt(ctx context.Context, text string, images []llm.Content) error
	// Messages returns the session's current context.
	Messages() []llm.Message
}

// Prompt is one prompt of the run.
type Prompt struct {
	Text   string
	Images []llm.Content
}

// Run sends prompts in order and prints the outcome of the last one (rpc-and-json.md §8): the
// text blocks of the final assistant message, each followed by a newline, on stdout; or, when it
// ended in error or was aborted, its error on stderr. It returns the process exit code: 0 on
// success, 1 on a provider error, an abort or a failed prompt.
func Run(ctx context.Context, s Session, prompts []Prompt, stdout, stderr io.Writer) int {
	for _, p := range prompts {
		if err := s.Prompt(ctx, p.Text, p.Images); err != nil {
			fmt.Fprintf(stderr, "Error: %v\n", err)
			return 1
		}
		if ctx.Err() != nil {
			break
		}
	}
	msgs := s.Messages()
	if len(msgs) == 0 {
		return 0
	}
	last := msgs[len(msgs)-1]
	if last.Role == llm.RoleToolResult {
		// The run ended on a batch that asked to terminate (a structured-output tool): its text is
		// the answer (rpc-and-json.md §8, Atomic).
		for i := len(msgs) - 1; i >= 0 && msgs[i].Role == llm.RoleToolResult; i-- {
			if t := llm.TextOf(msgs[i].Content, "\n"); t != "" && !msgs[i].IsError {
				fmt.Fprintln(stdout, t)
				return 0
			}
		}
		return 0
	}
	if last.Role != llm.RoleAssistant {
		return 0
	}
	if last.StopReason == llm.StopError || last.StopReason == llm.StopAborted {
		msg := last.ErrorMessage
		if msg == "" {
			msg = "Request " + string(last.StopReason)
		}
		fmt.Fprintf(stderr, "Error: %s\n", msg)
		return 1
	}
	for _, c := range last.Content {
		if c.Type == llm.ContentText {
			fmt.Fprintln(stdout, c.Text)
		}
	}
	return 0
}
