// Package contextfilter is an example extension: a context handler that keeps custom messages of
// the "note" type out of what the model is sent (they stay in the session for the user), and
// redacts lines marked "SECRET:" from tool results before they reach the model.
package contextfilter

import (
	"regexp"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/llm"
)

var secret = regexp.MustCompile(`(?m)^SECRET:.*$`)

// Extension registers the context handler.
func Extension(api ext.API) error {
	ext.On(api, func(c ext.Context, e *ext.ContextEvent) (*ext.ContextResult, error) {
		out := make([]llm.Message, 0, len(e.Messages))
		for _, m := range e.Messages {
			if m.Role == llm.RoleCustom && m.CustomType == "note" {
				continue
			}
			if m.Role == llm.RoleToolResult {
				for i, b := range m.Content {
					if b.Type == llm.ContentText {
						m.Content[i].Text = secret.ReplaceAllString(b.Text, "SECRET: [redacted]")
					}
				}
			}
			out = append(out, m)
		}
		return &ext.ContextResult{Messages: out}, nil
	})
	return nil
}
