package compact

// Rungs say where the compacted text came from.
const (
	RungPlanned   = "planned"   // the planner's validated ranges, rebuilt mechanically
	RungExtension = "extension" // session_before_compact supplied compactedText
)

// PlannerModel names the model that planned a compaction.
type PlannerModel struct {
	Provider      string `json:"provider"`
	ID            string `json:"id"`
	ThinkingLevel string `json:"thinkingLevel,omitempty"`
}

// Details is the details member of an Atomic compaction entry (session-format.md §5.4).
type Details struct {
	Strategy      string        `json:"strategy"`
	PromptVersion int           `json:"promptVersion"`
	Parameters    Parameters    `json:"parameters"`
	Stats         Stats         `json:"stats"`
	Rung          string        `json:"rung"`
	PlannerModel  *PlannerModel `json:"plannerModel,omitempty"`
}

// Result is Atomic's VerbatimCompactionResult (rpc-and-json.md §3.4): the answer of the RPC
// `compact` command, compaction_end.result, session_compact.result and ctx.compact's onComplete.
type Result struct {
	CompactedText    string        `json:"compactedText"`
	FirstKeptEntryID *string       `json:"firstKeptEntryId"`
	TokensBefore     int64         `json:"tokensBefore"`
	PromptVersion    int           `json:"promptVersion"`
	Parameters       Parameters    `json:"parameters"`
	Rung             string        `json:"rung"`
	Stats            Stats         `json:"stats"`
	PlannerModel     *PlannerModel `json:"plannerModel,omitempty"`
}
