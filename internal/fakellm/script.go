package fakellm

import (
	"github.com/atomic-cli/atomic/llm/script"
)

// The script format and its wire encoding live in the production package llm/script (the
// replay files of --replay are built with it); these names keep the fake's API whole.

// Script, Turn, ToolCall, APIError, Usage, Info, Frame, FrameKind and Rendered are those of
// package llm/script.
type (
	Script    = script.Script
	Turn      = script.Turn
	ToolCall  = script.ToolCall
	APIError  = script.APIError
	Usage     = script.Usage
	Info      = script.Info
	Frame     = script.Frame
	FrameKind = script.FrameKind
	Rendered  = script.Rendered
)

// Match modes, stop reasons, stall modes, frame kinds and limits of package llm/script.
const (
	MatchRequestCount   = script.MatchRequestCount
	MatchAssistantCount = script.MatchAssistantCount
	StopStop            = script.StopStop
	StopLength          = script.StopLength
	StopToolUse         = script.StopToolUse
	StallHeaders        = script.StallHeaders
	StallEvents         = script.StallEvents
	MaxStall            = script.MaxStall
	FrameMeta           = script.FrameMeta
	FrameDelta          = script.FrameDelta
	FrameEnd            = script.FrameEnd
	DefaultModel        = script.DefaultModel
)

// Call is script.Call: a tool call with args marshalled to JSON.
func Call(name string, args any) ToolCall { return script.Call(name, args) }

// ParseScript is script.ParseScript: a script from its JSON form, validated.
func ParseScript(data []byte) (Script, error) { return script.ParseScript(data) }

// LoadScenario is script.LoadScenario: a script file, such as a pi fixture scenario.
func LoadScenario(path string) (Script, error) { return script.LoadScenario(path) }

// Render is script.Render: the exact response bytes of turn t for api.
func Render(api string, t Turn, info Info) (*Rendered, error) { return script.Render(api, t, info) }

// CountAssistantTurns is script.CountAssistantTurns.
func CountAssistantTurns(body []byte) (n int, ok bool) { return script.CountAssistantTurns(body) }

// EstimateTokens is script.EstimateTokens.
func EstimateTokens(n int) int { return script.EstimateTokens(n) }
