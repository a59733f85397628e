package replay

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/atomic-cli/atomic/llm/script"
)

// FromScript builds a replay file that answers like the fake LLM server (internal/fakellm) playing sc for api:
// each turn is rendered with script.Render (turn i as the answer to the i-th request, Chat
// Completions usage chunks included). Turns without Usage report 0 input tokens, since there is
// no request to estimate from. A script with match "" or "request-count" gives a
// "request-count" file.
func FromScript(api string, sc script.Script) (*File, error) {
	if err := sc.Validate(); err != nil {
		return nil, fmt.Errorf("replay: from script: %w", err)
	}
	f := &File{API: api, Match: sc.Match, Turns: make([]Turn, len(sc.Turns))}
	if f.Match == "" {
		f.Match = MatchRequestCount
	}
	for i, t := range sc.Turns {
		r, err := script.Render(api, t, script.Info{Turn: i, IncludeUsage: true})
		if err != nil {
			return nil, fmt.Errorf("replay: from script: %w", err)
		}
		f.Turns[i] = Turn{
			Status:    r.Status,
			Headers:   headerMap(r.Header),
			Body:      string(r.Body),
			Truncated: r.Truncated,
			DelayMS:   r.DelayMS,
		}
	}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	return f, nil
}

// headerMap flattens h to lower-case names with their first value.
func headerMap(h http.Header) map[string]string {
	if len(h) == 0 {
		return nil
	}
	m := make(map[string]string, len(h))
	for k, v := range h {
		if len(v) > 0 {
			m[strings.ToLower(k)] = v[0]
		}
	}
	return m
}
