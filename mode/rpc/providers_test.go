package rpc

// The tests stream the real wire APIs from the fake LLM: link them, as a binary does.
import _ "github.com/atomic-cli/atomic/llm/providers"
