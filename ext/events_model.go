package ext

import "github.com/atomic-cli/atomic/llm"

// Model events (events.md §3.7).

// ModelSelect fires when the model actually changed.
type ModelSelect struct {
	Model         *llm.Model `json:"model"`
	PreviousModel *llm.Model `json:"previousModel"`
	Source        string     `json:"source"` // set|cycle|restore|fallback
}

// ThinkingLevelSelect fires (fire-and-forget) when the effective thinking level changed.
type ThinkingLevelSelect struct {
	Level         string `json:"level"`
	PreviousLevel string `json:"previousLevel"`
}

func (*ModelSelect) eventID() EventID         { return IDModelSelect }
func (*ThinkingLevelSelect) eventID() EventID { return IDThinkingLevelSelect }
func (*ModelSelect) resultOf(None)            {}
func (*ThinkingLevelSelect) resultOf(None)    {}

var modelRows = []Spec{
	{Name: "model_select", Stream: "model_changed", Systems: "AP", Family: "model", Combine: Notify, Errors: Isolate, Awaited: true, Emitted: true, Doc: "the model actually changed (set, cycle, restore, fallback)", Payload: typeOf[ModelSelect]()},
	{Name: "thinking_level_select", Stream: "thinking_level_changed", Systems: "A", Family: "model", Combine: Notify, Errors: Isolate, Awaited: false, Emitted: true, Doc: "the effective thinking level changed", Payload: typeOf[ThinkingLevelSelect]()},
}
