package script

import (
	"encoding/json"
	"strings"
)

// CountAssistantTurns returns the number of assistant turns in a provider request body, the turn
// index of MatchAssistantCount:
//
//   - "messages" array (Anthropic Messages, Chat Completions): the messages with role "assistant";
//   - "input" array (Responses): the runs of consecutive assistant-side items (role "assistant",
//     reasoning and *_call items other than *_call_output), since one assistant turn is sent as
//     several items;
//   - "input" string: 0;
//   - "contents" array (Google Generative AI): the contents with role "model".
//
// ok is false when the body is not a JSON object holding any of these fields.
func CountAssistantTurns(body []byte) (n int, ok bool) {
	var req struct {
		Messages []struct {
			Role string `json:"role"`
		} `json:"messages"`
		Input    json.RawMessage `json:"input"`
		Contents []struct {
			Role string `json:"role"`
		} `json:"contents"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return 0, false
	}
	if req.Messages != nil {
		for _, m := range req.Messages {
			if m.Role == "assistant" {
				n++
			}
		}
		return n, true
	}
	if req.Contents != nil {
		for _, c := range req.Contents {
			if c.Role == "model" {
				n++
			}
		}
		return n, true
	}
	if len(req.Input) == 0 {
		return 0, false
	}
	if req.Input[0] == '"' {
		return 0, true
	}
	var items []struct {
		Role string `json:"role"`
		Type string `json:"type"`
	}
	if err := json.Unmarshal(req.Input, &items); err != nil {
		return 0, false
	}
	inRun := false
	for _, it := range items {
		assistant := it.Role == "assistant" || it.Type == "reasoning" ||
			strings.HasSuffix(it.Type, "_call")
		if assistant && !inRun {
			n++
		}
		inRun = assistant
	}
	return n, true
}
