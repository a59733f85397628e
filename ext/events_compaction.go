package ext

import (
	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/store"
)

// Compaction and tree events (events.md §3.3). Compaction is emitted by session/compaction.go
// (the verbatim-lines compactor is package compact); /tree summaries arrive with a later issue.

// CompactionParameters are the verbatim-lines compaction parameters (Atomic).
type CompactionParameters struct {
	CompressionRatio float64 `json:"compression_ratio"`
	PreserveRecent   int     `json:"preserve_recent"`
	Query            string  `json:"query,omitempty"`
}

// CompactionRegion is the compactable part of the transcript (seed 004 preparation.region).
type CompactionRegion struct {
	// Lines are the unnumbered transcript lines of the region.
	Lines []string `json:"lines"`
}

// CompactionPreparation is the prepared region of a compaction. Region is the seed's shape
// (preparation.region.lines); Lines holds the same lines, as earlier payloads had them. The
// message fields are pi's CompactionPreparation (pi's custom-compaction example summarises
// MessagesToSummarize + TurnPrefixMessages itself): atomic's cut never splits a turn, so
// TurnPrefixMessages is always empty and IsSplitTurn false.
type CompactionPreparation struct {
	Region           CompactionRegion `json:"region"`
	Lines            []string         `json:"lines,omitempty"`
	FirstKeptEntryID *string          `json:"firstKeptEntryId"`
	TokensBefore     int64            `json:"tokensBefore"`
	// MessagesToSummarize are the context messages of the region (the ones Lines render),
	// without the previous compaction's summary, which is PreviousSummary.
	MessagesToSummarize []llm.Message `json:"messagesToSummarize"`
	// TurnPrefixMessages are the messages of a split turn's prefix: always empty in atomic.
	TurnPrefixMessages []llm.Message `json:"turnPrefixMessages"`
	// IsSplitTurn is always false: the kept tail never starts inside a turn's tool pairs.
	IsSplitTurn bool `json:"isSplitTurn"`
	// PreviousSummary is the summary of the compaction the region starts with, if any.
	PreviousSummary string `json:"previousSummary,omitempty"`
	// FileOps are the paths the region's read, write and edit tool calls named (pi's
	// FileOperations; the Node host hands them to handlers as Sets).
	FileOps CompactionFileOps `json:"fileOps"`
	// Settings are the compaction settings in pi's shape.
	Settings CompactionSettings `json:"settings"`
}

// CompactionFileOps are the file paths a compaction region's tool calls touched, each list in
// first-use order without duplicates (pi's FileOperations).
type CompactionFileOps struct {
	Read    []string `json:"read"`
	Written []string `json:"written"`
	Edited  []string `json:"edited"`
}

// CompactionSettings are the compaction settings as pi's preparation carries them: whether
// automatic compaction is on, the reserved headroom in tokens, and the number of tokens kept
// (atomic keeps messages, not tokens: KeepRecentTokens is the estimate of the kept tail).
type CompactionSettings struct {
	Enabled          bool  `json:"enabled"`
	ReserveTokens    int64 `json:"reserveTokens"`
	KeepRecentTokens int64 `json:"keepRecentTokens"`
}

// SessionBeforeCompact fires before a compaction runs; a handler may cancel or supply the text.
type SessionBeforeCompact struct {
	Reason             string                `json:"reason"` // manual|threshold|overflow
	Parameters         CompactionParameters  `json:"parameters"`
	Preparation        CompactionPreparation `json:"preparation"`
	BranchEntries      []*store.Entry        `json:"branchEntries"`
	CustomInstructions string                `json:"customInstructions,omitempty"`
}

// CompactionResult is a summary-style compaction result (oh-my-pi / pi).
type CompactionResult struct {
	Summary          string `json:"summary"`
	FirstKeptEntryID string `json:"firstKeptEntryId"`
	TokensBefore     int64  `json:"tokensBefore"`
	Details          any    `json:"details,omitempty"`
}

// BeforeCompactResult accepts both historical shapes (events.md §4 row 1).
type BeforeCompactResult struct {
	Cancel        bool              `json:"cancel,omitempty"`
	CompactedText *string           `json:"compactedText,omitempty"`
	Compaction    *CompactionResult `json:"compaction,omitempty"`
}

func (r *BeforeCompactResult) isSet() bool {
	return r != nil && (r.Cancel || r.CompactedText != nil || r.Compaction != nil)
}
func (r *BeforeCompactResult) vetoes() bool { return r.Cancel }

// SessionCompacting customises the summarisation prompt (oh-my-pi).
type SessionCompacting struct {
	SessionID string        `json:"sessionId"`
	Messages  []llm.Message `json:"messages"`
}

// SessionCompactingResult is the last-wins customisation.
type SessionCompactingResult struct {
	Context      []string       `json:"context,omitempty"`
	Prompt       string         `json:"prompt,omitempty"`
	PreserveData map[string]any `json:"preserveData,omitempty"`
}

func (r *SessionCompactingResult) isSet() bool {
	return r != nil && (r.Context != nil || r.Prompt != "" || r.PreserveData != nil)
}

// SessionCompact fires after the compaction entry is persisted.
type SessionCompact struct {
	Reason          string               `json:"reason,omitempty"`
	Parameters      CompactionParameters `json:"parameters"`
	Result          any                  `json:"result,omitempty"`
	CompactionEntry *store.Entry         `json:"compactionEntry"`
	FromExtension   bool                 `json:"fromExtension"`
}

// SessionCompactFailed fires when a compaction failed or was cancelled.
type SessionCompactFailed struct {
	Reason        string `json:"reason"`
	ErrorMessage  string `json:"errorMessage,omitempty"`
	Aborted       bool   `json:"aborted"`
	WillRetry     bool   `json:"willRetry"`
	FromExtension bool   `json:"fromExtension"`
}

// CompactionStatus is the payload of compaction_start/end and auto_compaction_start/end: the
// superset of the historical shapes (events.md §4 row 13).
type CompactionStatus struct {
	Reason             string `json:"reason"`
	Action             string `json:"action,omitempty"`
	MidTurn            bool   `json:"midTurn,omitempty"`
	Result             any    `json:"result,omitempty"`
	Aborted            bool   `json:"aborted,omitempty"`
	WillRetry          bool   `json:"willRetry,omitempty"`
	ErrorMessage       string `json:"errorMessage,omitempty"`
	Skipped            bool   `json:"skipped,omitempty"`
	UnresolvedOverflow bool   `json:"unresolvedOverflow,omitempty"`
}

// CompactionStart is compaction_start.
type CompactionStart struct{ CompactionStatus }

// CompactionEnd is compaction_end.
type CompactionEnd struct{ CompactionStatus }

// AutoCompactionStart is auto_compaction_start (non-manual runs).
type AutoCompactionStart struct{ CompactionStatus }

// AutoCompactionEnd is auto_compaction_end (non-manual runs).
type AutoCompactionEnd struct{ CompactionStatus }

// TreePreparation describes a /tree navigation.
type TreePreparation struct {
	TargetID            string         `json:"targetId"`
	OldLeafID           *string        `json:"oldLeafId"`
	CommonAncestorID    *string        `json:"commonAncestorId"`
	EntriesToSummarize  []*store.Entry `json:"entriesToSummarize"`
	UserWantsSummary    bool           `json:"userWantsSummary"`
	CustomInstructions  string         `json:"customInstructions,omitempty"`
	ReplaceInstructions bool           `json:"replaceInstructions,omitempty"`
	Label               string         `json:"label,omitempty"`
}

// SessionBeforeTree fires before /tree navigation; a handler may cancel or customise.
type SessionBeforeTree struct {
	Preparation TreePreparation `json:"preparation"`
}

// TreeSummary is an extension-supplied branch summary.
type TreeSummary struct {
	Summary string `json:"summary"`
	Details any    `json:"details,omitempty"`
}

// BeforeTreeResult cancels or overrides the navigation (one winning object, field by field).
type BeforeTreeResult struct {
	Cancel              bool         `json:"cancel,omitempty"`
	Summary             *TreeSummary `json:"summary,omitempty"`
	CustomInstructions  *string      `json:"customInstructions,omitempty"`
	ReplaceInstructions *bool        `json:"replaceInstructions,omitempty"`
	Label               *string      `json:"label,omitempty"`
}

func (r *BeforeTreeResult) isSet() bool {
	return r != nil && (r.Cancel || r.Summary != nil || r.CustomInstructions != nil || r.ReplaceInstructions != nil || r.Label != nil)
}
func (r *BeforeTreeResult) vetoes() bool { return r.Cancel }

// SessionTree fires after the leaf moved.
type SessionTree struct {
	NewLeafID     *string      `json:"newLeafId"`
	OldLeafID     *string      `json:"oldLeafId"`
	SummaryEntry  *store.Entry `json:"summaryEntry,omitempty"`
	FromExtension bool         `json:"fromExtension,omitempty"`
}

func (*SessionBeforeCompact) eventID() EventID { return IDSessionBeforeCompact }
func (*SessionCompacting) eventID() EventID    { return IDSessionCompacting }
func (*SessionCompact) eventID() EventID       { return IDSessionCompact }
func (*SessionCompactFailed) eventID() EventID { return IDSessionCompactFailed }
func (*CompactionStart) eventID() EventID      { return IDCompactionStart }
func (*CompactionEnd) eventID() EventID        { return IDCompactionEnd }
func (*AutoCompactionStart) eventID() EventID  { return IDAutoCompactionStart }
func (*AutoCompactionEnd) eventID() EventID    { return IDAutoCompactionEnd }
func (*SessionBeforeTree) eventID() EventID    { return IDSessionBeforeTree }
func (*SessionTree) eventID() EventID          { return IDSessionTree }

func (*SessionBeforeCompact) resultOf(*BeforeCompactResult)  {}
func (*SessionCompacting) resultOf(*SessionCompactingResult) {}
func (*SessionCompact) resultOf(None)                        {}
func (*SessionCompactFailed) resultOf(None)                  {}
func (*CompactionStart) resultOf(None)                       {}
func (*CompactionEnd) resultOf(None)                         {}
func (*AutoCompactionStart) resultOf(None)                   {}
func (*AutoCompactionEnd) resultOf(None)                     {}
func (*SessionBeforeTree) resultOf(*BeforeTreeResult)        {}
func (*SessionTree) resultOf(None)                           {}

var compactionRows = []Spec{
	{Name: "session_before_compact", Signal: true, Frozen: []string{"preparation"}, Systems: "AOP", Family: "compaction", Combine: Veto, Errors: Isolate, Awaited: true, Emitted: true, Doc: "before a compaction runs; may cancel or supply the text", Payload: typeOf[SessionBeforeCompact](), Result: typeOf[BeforeCompactResult]()},
	{Name: "session.compacting", Systems: "O", Family: "compaction", Combine: LastWins, Errors: Isolate, Awaited: true, Doc: "before summarisation, to customise prompt and context", Payload: typeOf[SessionCompacting](), Result: typeOf[SessionCompactingResult]()},
	{Name: "session_compact", Systems: "AOP", Family: "compaction", Combine: Notify, Errors: Isolate, Awaited: true, Emitted: true, Doc: "after the compaction entry is persisted", Payload: typeOf[SessionCompact]()},
	{Name: "session_compact_failed", Systems: "A", Family: "compaction", Combine: Notify, Errors: Isolate, Awaited: true, Emitted: true, Doc: "a compaction failed or was cancelled", Payload: typeOf[SessionCompactFailed]()},
	{Name: "compaction_start", Stream: "compaction_start", Systems: "A", Family: "compaction", Combine: Notify, Errors: Isolate, Awaited: true, Emitted: true, Doc: "a compaction run begins", Payload: typeOf[CompactionStart]()},
	{Name: "compaction_end", Stream: "compaction_end", Systems: "A", Family: "compaction", Combine: Notify, Errors: Isolate, Awaited: true, Emitted: true, Doc: "a compaction run ends", Payload: typeOf[CompactionEnd]()},
	{Name: "auto_compaction_start", Systems: "OP", Family: "compaction", Combine: Notify, Errors: Isolate, Awaited: true, Emitted: true, Doc: "an automatic compaction begins", Payload: typeOf[AutoCompactionStart]()},
	{Name: "auto_compaction_end", Systems: "OP", Family: "compaction", Combine: Notify, Errors: Isolate, Awaited: true, Emitted: true, Doc: "an automatic compaction ends", Payload: typeOf[AutoCompactionEnd]()},
	{Name: "session_before_tree", Signal: true, Systems: "AOP", Family: "tree", Combine: Veto, Errors: Isolate, Awaited: true, Emitted: true, Doc: "before /tree navigation; may cancel or customise", Payload: typeOf[SessionBeforeTree](), Result: typeOf[BeforeTreeResult]()},
	{Name: "session_tree", Systems: "AOP", Family: "tree", Combine: Notify, Errors: Isolate, Awaited: true, Emitted: true, Doc: "after the leaf moved", Payload: typeOf[SessionTree]()},
}
