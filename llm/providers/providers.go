// Package providers links every wire API atomic ships: importing it (for its side effect)
// registers anthropic-messages (llm/anthropic) and openai-completions and openai-responses
// (llm/openai) with llm.RegisterAPI. A binary that imports the session package without it
// speaks no API; cli imports it.
//
// providers imports llm/anthropic and llm/openai, nothing else.
package providers

import (
	_ "github.com/atomic-cli/atomic/llm/anthropic" // anthropic-messages
	_ "github.com/atomic-cli/atomic/llm/openai"    // openai-completions, openai-responses
)
