package protocol

import "encoding/json"

// Methods the core sends to a host (requests unless noted).
const (
	MethodInitialize      = "initialize"
	MethodLoad            = "load"
	MethodEvent           = "event"
	MethodToolExecute     = "tool.execute"
	MethodToolPrepare     = "tool.prepareArguments"
	MethodCommandRun      = "command.run"
	MethodCommandComplete = "command.complete"
	MethodShortcutRun     = "shortcut.run"
	MethodCallback        = "callback"
	MethodShutdown        = "shutdown"
	// MethodSync is answered once the host has run every queued event notification sent before
	// it (the barrier of the agent-loop event queue, docs/extension-protocol.md "Queued events").
	MethodSync = "sync"
	// MethodCancelRequest (notification, both directions) cancels a request: the host aborts the
	// AbortSignal it gave the handler, tool or command.
	MethodCancelRequest = "$/cancelRequest"
	// MethodEventsDeliver (notification) delivers a pi.events message emitted outside the host.
	MethodEventsDeliver = "events.deliver"
	// MethodBuiltinUpdate (notification) streams a partial result of the host's builtin.execute
	// request ID.
	MethodBuiltinUpdate = "builtin.update"
	// MethodBashOpsExec runs a command through the BashOperations a user_bash handler returned
	// (operations.hostOps); the host streams the output as tool.update text blocks.
	MethodBashOpsExec = "bashOps.exec"

	// The component channel (docs/extension-protocol.md "Components"): MethodComponentRender
	// (request) asks a host component for its lines at a width; MethodComponentInput
	// (notification) sends it one key as raw terminal bytes; MethodComponentInvalidate
	// (notification) calls its invalidate(); MethodComponentDispose (notification) drops it.
	MethodComponentRender     = "component.render"
	MethodComponentInput      = "component.input"
	MethodComponentInvalidate = "component.invalidate"
	MethodComponentDispose    = "component.dispose"
)

// Methods a host sends to the core.
const (
	// Notifications.
	MethodHeartbeat               = "$/heartbeat"
	MethodOn                      = "on"
	MethodRegisterMessageRenderer = "registerMessageRenderer"
	MethodRegisterEntryRenderer   = "registerEntryRenderer"
	MethodToolUpdate              = "tool.update"
	// MethodEventError (notification) reports that the handler of a queued event notification
	// failed; the core hands it to the runner's error reporting.
	MethodEventError      = "event.error"
	MethodEventsSubscribe = "events.subscribe"
	MethodEventsEmit      = "events.emit"
	MethodUINotify        = "ui.notify"
	MethodUISetStatus     = "ui.setStatus"
	MethodUISetWidget     = "ui.setWidget"
	MethodUISetTitle      = "ui.setTitle"
	MethodUISetEditorText = "ui.setEditorText"
	// MethodUISetFooter and MethodUISetHeader (notifications) mount a host component as the
	// footer or header (UIParams.Component) or restore the built-in one (no component).
	MethodUISetFooter = "ui.setFooter"
	MethodUISetHeader = "ui.setHeader"
	// MethodUIComponentInvalidate (notification): a host component called tui.requestRender().
	MethodUIComponentInvalidate = "ui.component.invalidate"
	// MethodUIComponentDone (notification): a custom component called done(value); the value
	// stays in the host.
	MethodUIComponentDone = "ui.component.done"
	// MethodUIComponentControl (notification): an overlay's OverlayHandle call,
	// ComponentParams.Action "focus", "unfocus", "hide" (setHidden(true)) or "show"
	// (setHidden(false)).
	MethodUIComponentControl = "ui.component.control"
	// The interactive mode's working line (ext.WorkingUI); other modes ignore them.
	MethodUISetWorkingMessage   = "ui.setWorkingMessage"
	MethodUISetWorkingVisible   = "ui.setWorkingVisible"
	MethodUISetWorkingIndicator = "ui.setWorkingIndicator"

	// Requests (the Node host sends the synchronous ones on the sync channel).
	MethodRegisterTool       = "registerTool"
	MethodRegisterCommand    = "registerCommand"
	MethodRegisterShortcut   = "registerShortcut"
	MethodRegisterFlag       = "registerFlag"
	MethodGetFlag            = "getFlag"
	MethodRegisterProvider   = "registerProvider"
	MethodUnregisterProvider = "unregisterProvider"
	MethodSendMessage        = "sendMessage"
	MethodSendUserMessage    = "sendUserMessage"
	MethodAppendEntry        = "appendEntry"
	MethodSetSessionName     = "setSessionName"
	MethodGetSessionName     = "getSessionName"
	MethodSetLabel           = "setLabel"
	MethodGetCommands        = "getCommands"
	MethodGetActiveTools     = "getActiveTools"
	MethodGetAllTools        = "getAllTools"
	MethodSetActiveTools     = "setActiveTools"
	MethodSetModel           = "setModel"
	MethodGetThinkingLevel   = "getThinkingLevel"
	MethodSetThinkingLevel   = "setThinkingLevel"

	MethodCtxInfo               = "ctx.info"
	MethodCtxModel              = "ctx.model"
	MethodCtxIsIdle             = "ctx.isIdle"
	MethodCtxAbort              = "ctx.abort"
	MethodCtxHasPendingMessages = "ctx.hasPendingMessages"
	MethodCtxShutdown           = "ctx.shutdown"
	MethodCtxGetContextUsage    = "ctx.getContextUsage"
	MethodCtxGetSystemPrompt    = "ctx.getSystemPrompt"
	MethodCtxIsProjectTrusted   = "ctx.isProjectTrusted"
	MethodCtxCompact            = "ctx.compact"
	MethodCtxSessionManager     = "ctx.sessionManager"
	MethodCtxModelRegistry      = "ctx.modelRegistry"
	MethodCtxGetAPIKey          = "ctx.modelRegistry.getApiKey"
	MethodCtxWaitForIdle        = "ctx.waitForIdle"
	MethodCtxNewSession         = "ctx.newSession"
	MethodCtxFork               = "ctx.fork"
	MethodCtxNavigateTree       = "ctx.navigateTree"
	MethodCtxSwitchSession      = "ctx.switchSession"
	MethodCtxReload             = "ctx.reload"
	MethodUISelect              = "ui.select"
	MethodUIConfirm             = "ui.confirm"
	MethodUIInput               = "ui.input"
	MethodUIEditor              = "ui.editor"
	MethodUIGetEditorText       = "ui.getEditorText"
	// MethodUIFooterData (sync) answers a setFooter factory's footerData provider: FooterData.
	MethodUIFooterData = "ui.footerData"
	// MethodUIOnBranchChange (notification, UIParams.Ctx) subscribes the host to git branch
	// changes (footerData.onBranchChange): the core then sends MethodFooterBranchChange (a
	// notification without params) at each change. A host subscribes once.
	MethodUIOnBranchChange   = "ui.onBranchChange"
	MethodFooterBranchChange = "footer.branchChange"
	// MethodUICustom (cancellable) opens host component UIParams.Component as ctx.ui.custom's
	// (editor slot or overlay); the core answers null once the component closed, whoever closed it.
	MethodUICustom = "ui.custom"

	// MethodBuiltinInfo (sync) describes one of atomic's built-in tools (createReadTool and
	// friends); MethodBuiltinExecute (async, cancellable with $/cancelRequest) runs it.
	MethodBuiltinInfo    = "builtin.info"
	MethodBuiltinExecute = "builtin.execute"
	// MethodSessionsList (sync) lists session files: SessionManager.list and listAll.
	MethodSessionsList = "sessions.list"
	// MethodMutationAcquire waits for a file's turn in the queue atomic's edit and write share
	// (withFileMutationQueue) and answers a lease token; MethodMutationRelease (notification)
	// passes the turn on. A host that goes away releases its leases.
	MethodMutationAcquire = "mutation.acquire"
	// MethodSetupSessionManager (sync) is one SessionManager call of a newSession setup
	// callback on the new session's store: the read methods of ctx.sessionManager and appends.
	MethodSetupSessionManager = "setup.sessionManager"
	// MethodCtxSendMessage and MethodCtxSendUserMessage send on a command context's session
	// (ReplacedSessionContext in withSession).
	MethodCtxSendMessage     = "ctx.sendMessage"
	MethodCtxSendUserMessage = "ctx.sendUserMessage"
	MethodMutationRelease    = "mutation.release"
)

// SyncChannel names the file descriptors of the sync channel in the host process.
type SyncChannel struct {
	// Request is the fd the host writes sync requests to (3).
	Request int `json:"request"`
	// Response is the fd the host reads the core's replies from (4).
	Response int `json:"response"`
}

// CoreCapabilities are what the core offers in initialize.
type CoreCapabilities struct {
	SyncChannel *SyncChannel `json:"syncChannel,omitempty"`
}

// InitializeParams open a session with a host.
type InitializeParams struct {
	ProtocolVersion int    `json:"protocolVersion"`
	Name            string `json:"name"`    // "atomic"
	Version         string `json:"version"` // the core's version
	// AppName and ConfigDirName are what CONFIG_DIR_NAME and friends report ("atomic", ".atomic").
	AppName       string `json:"appName"`
	ConfigDirName string `json:"configDirName"`
	AgentDir      string `json:"agentDir"`
	// Events are every event name and alias the core emits or knows (the event table).
	Events []string `json:"events"`
	// EventRules are the event table's per-event columns a host applies, by canonical name
	// (ext.Spec): which events arrive queued, which wait for the queue, which payload fields
	// handlers may edit in place.
	EventRules   map[string]EventRule `json:"eventRules,omitempty"`
	Capabilities CoreCapabilities     `json:"capabilities"`
	// HandlerTimeoutMs is settings.json extensionHandlerTimeoutMs (0: none): the core gives up on
	// an awaited handler after it, and a host bounds each queued handler by it.
	HandlerTimeoutMs int64 `json:"handlerTimeoutMs,omitempty"`
	// ShellPath is settings.json shellPath: the shell of the host's createLocalBashOperations
	// ("": /bin/bash, else bash on PATH, else sh; tools.md §5.1).
	ShellPath string `json:"shellPath,omitempty"`
}

// EventRule is one event's row of InitializeParams.EventRules.
type EventRule struct {
	// Queued events arrive as notifications run from the host's event queue.
	Queued bool `json:"queued,omitempty"`
	// Ordered events' handlers start after the queued events sent before them have run.
	Ordered bool `json:"ordered,omitempty"`
	// Editable are the payload fields handlers may edit in place; the host reports such edits
	// in the result's mutated member.
	Editable []string `json:"editable,omitempty"`
	// Signal events carry the handler's AbortSignal in the payload as `signal`.
	Signal bool `json:"signal,omitempty"`
	// Frozen are the payload fields the host deep-freezes before handlers see them.
	Frozen []string `json:"frozen,omitempty"`
	// Results events have handler results the core folds (every combine rule but notify): a
	// batched request stops after the first handler that returns one.
	Results bool `json:"results,omitempty"`
	// FailClosed events end the dispatch at a handler's error: a batched request stops there.
	FailClosed bool `json:"failClosed,omitempty"`
}

// InitializeResult is the host's answer.
type InitializeResult struct {
	ProtocolVersion int            `json:"protocolVersion"`
	Name            string         `json:"name"`
	Version         string         `json:"version,omitempty"`
	Runtime         string         `json:"runtime,omitempty"`
	Capabilities    map[string]any `json:"capabilities,omitempty"`
}

// LoadParams ask the host to load one extension of a generation. A generation is one runtime of
// the core (startup, and each reload or session replacement); the first load of a newer
// generation discards every extension instance of the older ones.
type LoadParams struct {
	Generation int64  `json:"generation"`
	Ext        int    `json:"ext"`
	Path       string `json:"path"`
	// Code is the module text to run for Path (for the Node host: CommonJS transpiled from
	// TypeScript, with an inline source map); absent, the host reads Path itself.
	Code string `json:"code,omitempty"`
}

// LoadResult reports what the factory registered.
type LoadResult struct {
	Handlers int      `json:"handlers"`
	Tools    []string `json:"tools,omitempty"`
}

// ExtRef names an extension instance: its index and generation.
type ExtRef struct {
	Ext int   `json:"ext"`
	Gen int64 `json:"gen"`
}

// Ref returns the reference; params types that embed ExtRef get it too.
func (r ExtRef) Ref() ExtRef { return r }

// EventParams dispatch one event to one handler. Payload is the event payload only; Ctx is the
// context id the handler's ctx.* calls name; Signal says whether ctx.signal is set (a run is
// active). Handlers, in a queued event notification to a host with capabilities.eventBatches,
// lists every handler of the extension subscribed to the event, run in that order on one payload
// (Handler is then the first of them); see docs/extension-protocol.md "Queued events". In an
// `event` request to a host with capabilities.requestBatches it lists the handlers left to run of
// a request event, answered with an EventBatchResult ("Request batches").
type EventParams struct {
	ExtRef
	Handler  int             `json:"handler"`
	Handlers []int           `json:"handlers,omitempty"`
	Event    string          `json:"event"`
	Payload  json.RawMessage `json:"payload"`
	Ctx      int64           `json:"ctx"`
	Signal   bool            `json:"signal,omitempty"`
}

// EventBatchResult answers an `event` request whose Handlers list several handlers (a host with
// capabilities.requestBatches): the outcome of each handler that ran, in order, and the payload
// fields the handlers edited in place (as EventResult.Mutated, after the last that ran). The host
// stops after the first handler that returns a result of an event whose rule has Results, or that
// fails for an event whose rule is FailClosed; the core folds the outcomes and sends the rest of
// the handlers in a new request. See docs/extension-protocol.md "Request batches".
type EventBatchResult struct {
	Each    []EventOutcome             `json:"each"`
	Mutated map[string]json.RawMessage `json:"mutated,omitempty"`
}

// EventOutcome is one handler's outcome within EventBatchResult: its result (absent: none), or
// the message of its failure (naming the location of the throw, as an event request's error
// does), or Timeout when it did not settle within handlerTimeoutMs (not counting the time the
// user spent in a dialog of the dispatch's context).
type EventOutcome struct {
	Result  json.RawMessage `json:"result,omitempty"`
	Error   string          `json:"error,omitempty"`
	Timeout bool            `json:"timeout,omitempty"`
}

// EventErrorParams report the failure of a queued event's handler. Message names the location
// of the throw, as the error of an event request does.
type EventErrorParams struct {
	ExtRef
	Handler int    `json:"handler"`
	Event   string `json:"event"`
	Message string `json:"message"`
}

// EventResult is the handler's result (absent: none) and the payload fields it edited in place
// (only the fields the core accepts back, see docs/extension-protocol.md "Mutable payloads").
type EventResult struct {
	Result  json.RawMessage            `json:"result,omitempty"`
	Mutated map[string]json.RawMessage `json:"mutated,omitempty"`
}

// ToolExecuteParams run a registered tool.
type ToolExecuteParams struct {
	ExtRef
	Tool       string          `json:"tool"`
	ToolCallID string          `json:"toolCallId"`
	Params     json.RawMessage `json:"params"`
	Ctx        int64           `json:"ctx"`
}

// ToolResult is a tool's (partial or final) result.
type ToolResult struct {
	Content   json.RawMessage `json:"content"`
	Details   json.RawMessage `json:"details,omitempty"`
	IsError   bool            `json:"isError,omitempty"`
	Terminate bool            `json:"terminate,omitempty"`
}

// ToolUpdateParams stream a partial result of the tool.execute request ID.
type ToolUpdateParams struct {
	ID            json.RawMessage `json:"id"`
	PartialResult ToolResult      `json:"partialResult"`
}

// ToolPrepareParams ask a tool's prepareArguments to rewrite raw arguments; the result is the
// new arguments object.
type ToolPrepareParams struct {
	ExtRef
	Tool string          `json:"tool"`
	Args json.RawMessage `json:"args"`
}

// CommandRunParams run a registered command with an ExtensionCommandContext.
type CommandRunParams struct {
	ExtRef
	Name string `json:"name"`
	Args string `json:"args"`
	Ctx  int64  `json:"ctx"`
}

// CommandCompleteParams ask for argument completions; the result is a list of strings.
type CommandCompleteParams struct {
	ExtRef
	Name   string `json:"name"`
	Prefix string `json:"prefix"`
}

// ShortcutRunParams run a registered shortcut.
type ShortcutRunParams struct {
	ExtRef
	Key string `json:"key"`
	Ctx int64  `json:"ctx"`
}

// CallbackParams run a callback the host passed by id (withSession of newSession, fork and
// switchSession) with a command context of the new session.
type CallbackParams struct {
	Callback int   `json:"callback"`
	Ctx      int64 `json:"ctx"`
	// Setup, when set, makes the call a newSession setup callback: its argument is the new
	// session's SessionManager, served by setup.sessionManager under this id (Ctx is 0).
	Setup int64 `json:"setup,omitempty"`
}

// SetupCallParams are one method call on the SessionManager of a newSession setup callback.
type SetupCallParams struct {
	Setup  int64             `json:"setup"`
	Method string            `json:"method"`
	Args   []json.RawMessage `json:"args"`
}

// CtxSendParams send a message on a command context's session (ReplacedSessionContext's
// sendMessage and sendUserMessage): Message is a custom message for ctx.sendMessage, Content
// the user content blocks for ctx.sendUserMessage.
type CtxSendParams struct {
	Ctx     int64           `json:"ctx"`
	Message json.RawMessage `json:"message,omitempty"`
	Content json.RawMessage `json:"content,omitempty"`
	Options SendOptions     `json:"options"`
}

// CancelParams name the request to cancel.
type CancelParams struct {
	ID json.RawMessage `json:"id"`
}

// OnParams subscribe handler Handler of an extension to Event (a name or alias).
type OnParams struct {
	ExtRef
	Handler int    `json:"handler"`
	Event   string `json:"event"`
}

// ToolSpec is a tool's registration; the functions stay in the host.
type ToolSpec struct {
	Name             string          `json:"name"`
	Label            string          `json:"label,omitempty"`
	Description      string          `json:"description"`
	Parameters       json.RawMessage `json:"parameters"`
	PromptSnippet    string          `json:"promptSnippet,omitempty"`
	PromptGuidelines []string        `json:"promptGuidelines,omitempty"`
	// PrepareArguments, RenderCall and RenderResult say whether the tool has those functions.
	PrepareArguments bool `json:"prepareArguments,omitempty"`
	RenderCall       bool `json:"renderCall,omitempty"`
	RenderResult     bool `json:"renderResult,omitempty"`
	// RenderShell is the tool's renderShell ("self" or "default").
	RenderShell string `json:"renderShell,omitempty"`
	// ExecutionMode "sequential" runs a batch holding a call of this tool one call at a time.
	ExecutionMode string `json:"executionMode,omitempty"`
}

// RegisterToolParams register (or replace, by name) a tool.
type RegisterToolParams struct {
	ExtRef
	Tool ToolSpec `json:"tool"`
}

// RegisterCommandParams register a slash command.
type RegisterCommandParams struct {
	ExtRef
	Name        string `json:"name"`
	Description string `json:"description"`
	Completions bool   `json:"completions,omitempty"`
}

// RegisterShortcutParams register a key binding.
type RegisterShortcutParams struct {
	ExtRef
	Key         string `json:"key"`
	Description string `json:"description"`
}

// RegisterFlagParams register a command-line flag.
type RegisterFlagParams struct {
	ExtRef
	Name        string `json:"name"`
	Description string `json:"description"`
	Type        string `json:"type"` // boolean|string
	Default     any    `json:"default,omitempty"`
}

// NameParams carry one name (getFlag, unregisterProvider, setSessionName).
type NameParams struct {
	ExtRef
	Name string `json:"name"`
}

// RegisterProviderParams register a model provider (the models.json provider shape).
type RegisterProviderParams struct {
	ExtRef
	Name   string          `json:"name"`
	Config json.RawMessage `json:"config"`
	// Stream says the provider streams itself (registerProvider's streamSimple): the core sends
	// provider.stream for its models' wire API (config.api).
	Stream bool `json:"stream,omitempty"`
}

// RendererParams register a message or entry renderer by custom type (rendering happens in the
// host; the core only records that one exists).
type RendererParams struct {
	ExtRef
	CustomType string `json:"customType"`
}

// SendOptions are the options of sendMessage and sendUserMessage.
type SendOptions struct {
	DeliverAs          string `json:"deliverAs,omitempty"`
	TriggerTurn        bool   `json:"triggerTurn,omitempty"`
	ExcludeFromContext bool   `json:"excludeFromContext,omitempty"`
}

// SendMessageParams send custom messages (content is always an array of blocks).
type SendMessageParams struct {
	ExtRef
	Messages json.RawMessage `json:"messages"`
	Options  SendOptions     `json:"options"`
}

// SendUserMessageParams send a user message.
type SendUserMessageParams struct {
	ExtRef
	Content json.RawMessage `json:"content"`
	Options SendOptions     `json:"options"`
}

// AppendEntryParams persist extension state.
type AppendEntryParams struct {
	ExtRef
	CustomType string          `json:"customType"`
	Data       json.RawMessage `json:"data"`
}

// SetLabelParams label an entry ("" clears).
type SetLabelParams struct {
	ExtRef
	EntryID string `json:"entryId"`
	Label   string `json:"label"`
}

// SetActiveToolsParams choose the active tools.
type SetActiveToolsParams struct {
	ExtRef
	Names []string `json:"names"`
}

// SetModelParams switch the model; the result is true when the model was found and set.
type SetModelParams struct {
	ExtRef
	Provider string `json:"provider"`
	ID       string `json:"id"`
}

// LevelParams set the thinking level.
type LevelParams struct {
	ExtRef
	Level string `json:"level"`
}

// EventsParams are a pi.events subscription or message.
type EventsParams struct {
	Gen     int64           `json:"gen"`
	Channel string          `json:"channel"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// CtxParams name a context.
type CtxParams struct {
	Ctx int64 `json:"ctx"`
}

// CtxInfo are a context's per-session constants.
type CtxInfo struct {
	Cwd   string `json:"cwd"`
	Mode  string `json:"mode"`
	HasUI bool   `json:"hasUI"`
}

// CtxCallParams call a method of ctx.sessionManager or ctx.modelRegistry.
type CtxCallParams struct {
	Ctx    int64             `json:"ctx"`
	Method string            `json:"method"`
	Args   []json.RawMessage `json:"args"`
}

// CompactParams start a compaction.
type CompactParams struct {
	Ctx              int64   `json:"ctx"`
	CompressionRatio float64 `json:"compressionRatio,omitempty"`
	PreserveRecent   *int    `json:"preserveRecent,omitempty"`
	Query            string  `json:"query,omitempty"`
}

// ProviderParams name a provider (ctx.modelRegistry.getApiKey).
type ProviderParams struct {
	Ctx      int64  `json:"ctx"`
	Provider string `json:"provider"`
}

// NewSessionParams replace the session (ctx.newSession); WithSession is a callback id.
type NewSessionParams struct {
	Ctx           int64  `json:"ctx"`
	ParentSession string `json:"parentSession,omitempty"`
	WithSession   *int   `json:"withSession,omitempty"`
	// Setup is the callback id of the setup option (run with the new session's SessionManager).
	Setup *int `json:"setup,omitempty"`
}

// ForkParams fork the session (ctx.fork).
type ForkParams struct {
	Ctx         int64  `json:"ctx"`
	EntryID     string `json:"entryId"`
	Position    string `json:"position,omitempty"`
	WithSession *int   `json:"withSession,omitempty"`
}

// NavigateTreeParams move the leaf (ctx.navigateTree).
type NavigateTreeParams struct {
	Ctx                 int64  `json:"ctx"`
	TargetID            string `json:"targetId"`
	Summarize           bool   `json:"summarize,omitempty"`
	CustomInstructions  string `json:"customInstructions,omitempty"`
	ReplaceInstructions bool   `json:"replaceInstructions,omitempty"`
	Label               string `json:"label,omitempty"`
}

// SwitchSessionParams switch to another session file (ctx.switchSession).
type SwitchSessionParams struct {
	Ctx         int64  `json:"ctx"`
	SessionPath string `json:"sessionPath"`
	WithSession *int   `json:"withSession,omitempty"`
}

// CancelledResult is the result of the session-replacing ctx calls.
type CancelledResult struct {
	Cancelled bool `json:"cancelled"`
}

// UIParams are the parameters of the ui.* methods; each method reads its own fields.
type UIParams struct {
	Ctx         int64    `json:"ctx"`
	Title       string   `json:"title,omitempty"`
	Message     string   `json:"message,omitempty"`
	Options     []string `json:"options,omitempty"`
	Placeholder string   `json:"placeholder,omitempty"`
	// Rows of ui.hostSessionPicker.
	Rows []HostSessionPickerRow `json:"rows,omitempty"`
	// Picker is ui.hostSessionPicker's id for its update, error and delete notifications (0:
	// none); HasDelete says the request has an onDelete.
	Picker    int64 `json:"picker,omitempty"`
	HasDelete bool  `json:"hasDelete,omitempty"`
	// ShowRenameHint of ui.hostSessionPicker: the picker's hints name the rename key.
	ShowRenameHint bool `json:"showRenameHint,omitempty"`
	// Form is ui.hostInputForm's request.
	Form    *HostInputForm `json:"form,omitempty"`
	Prefill string         `json:"prefill,omitempty"`
	// Timeout (ms) dismisses a dialog with its default.
	Timeout int      `json:"timeout,omitempty"`
	Type    string   `json:"type,omitempty"` // notify: info|warning|error
	Key     string   `json:"key,omitempty"`
	Text    string   `json:"text,omitempty"`
	Lines   []string `json:"lines,omitempty"`
	// Placement of setWidget: aboveEditor (default) or belowEditor.
	Placement string `json:"placement,omitempty"`
	// Visible of setWorkingVisible.
	Visible bool `json:"visible,omitempty"`
	// Indicator of setWorkingIndicator; absent restores the default.
	Indicator *WorkingIndicator `json:"indicator,omitempty"`
	// Component is the host component of ui.custom, ui.setWidget (a factory widget),
	// ui.setFooter and ui.setHeader; 0 for none.
	Component int64 `json:"component,omitempty"`
	// Overlay and OverlayOptions of ui.custom.
	Overlay        bool            `json:"overlay,omitempty"`
	OverlayOptions *OverlayOptions `json:"overlayOptions,omitempty"`
	// HandlesCtrlC of ui.custom: the component binds Ctrl+C itself (ext.CustomOptions).
	HandlesCtrlC bool `json:"handlesCtrlC,omitempty"`
	// ReserveTranscriptRows of ui.custom: a bottom overlay leaves transcript rows visible
	// (ext.CustomOptions).
	ReserveTranscriptRows bool `json:"reserveTranscriptRows,omitempty"`
}

// OverlayOptions are the JSON part of pi-tui's OverlayOptions (docs/extension-protocol.md
// "Components"): sizes and positions as cells ("40") or percentages ("50%").
type OverlayOptions struct {
	Width        string `json:"width,omitempty"`
	MinWidth     int    `json:"minWidth,omitempty"`
	MaxHeight    string `json:"maxHeight,omitempty"`
	Anchor       string `json:"anchor,omitempty"`
	OffsetX      int    `json:"offsetX,omitempty"`
	OffsetY      int    `json:"offsetY,omitempty"`
	Row          string `json:"row,omitempty"`
	Col          string `json:"col,omitempty"`
	Margin       Margin `json:"margin"`
	NonCapturing bool   `json:"nonCapturing,omitempty"`
}

// Margin is OverlayOptions.margin in cells.
type Margin struct {
	Top    int `json:"top"`
	Right  int `json:"right"`
	Bottom int `json:"bottom"`
	Left   int `json:"left"`
}

// ComponentParams name a host component (ui.component.invalidate, ui.component.done,
// component.input, component.invalidate, component.dispose).
type ComponentParams struct {
	Component int64 `json:"component"`
	// Data is component.input's key: the raw bytes a terminal sends for it.
	Data string `json:"data,omitempty"`
	// Action is ui.component.control's call.
	Action string `json:"action,omitempty"`
}

// FooterData is ui.footerData's result: the facts the built-in footer shows, for a footer
// factory's footerData (pi's ReadonlyFooterDataProvider). GitBranch is "" outside a repository
// or when the UI has no footer; Statuses are the extension statuses by key (ctx.ui.setStatus).
type FooterData struct {
	GitBranch string            `json:"gitBranch"`
	Statuses  map[string]string `json:"statuses"`
}

// ComponentRenderParams are component.render's: the width to render at and the terminal's size.
type ComponentRenderParams struct {
	Component int64 `json:"component"`
	Width     int   `json:"width"`
	Columns   int   `json:"columns"`
	Rows      int   `json:"rows"`
	// Focused says the component has the keys (pi-tui sets a Focusable's focused from it).
	Focused bool `json:"focused,omitempty"`
}

// ComponentRenderResult is component.render's result: the lines, and for an overlay its
// placement now (overlayOptions may be a function in the extension) and whether its visible()
// hides it. Closed says the host has closed the component already (done, dismissed, replaced):
// the render raced with its close, there are no lines, and that is no error.
type ComponentRenderResult struct {
	Lines   []string        `json:"lines"`
	Overlay *OverlayOptions `json:"overlay,omitempty"`
	Hidden  bool            `json:"hidden,omitempty"`
	Closed  bool            `json:"closed,omitempty"`
}

// WorkingIndicator is setWorkingIndicator's {frames?, intervalMs?}.
type WorkingIndicator struct {
	Frames     []string `json:"frames,omitempty"`
	HasFrames  bool     `json:"hasFrames,omitempty"` // frames was given (an empty list hides the glyph)
	IntervalMs int      `json:"intervalMs,omitempty"`
}

// BuiltinInfoParams name a built-in tool (read, bash, edit, write, grep, find, ls).
type BuiltinInfoParams struct {
	Tool string `json:"tool"`
}

// BuiltinInfo describes a built-in tool.
type BuiltinInfo struct {
	Name             string          `json:"name"`
	Label            string          `json:"label"`
	Description      string          `json:"description"`
	Parameters       json.RawMessage `json:"parameters"`
	PromptSnippet    string          `json:"promptSnippet,omitempty"`
	PromptGuidelines []string        `json:"promptGuidelines,omitempty"`
}

// BuiltinExecuteParams run a built-in tool for working directory Cwd with Args. The result is a
// ToolResult; a failure of the tool is error -32000 whose message is the tool's error text.
type BuiltinExecuteParams struct {
	Tool       string          `json:"tool"`
	Cwd        string          `json:"cwd"`
	ToolCallID string          `json:"toolCallId,omitempty"`
	Args       json.RawMessage `json:"args"`
	// Ctx is the context id of the tool call that runs the built-in (its execute's ctx): its
	// session and dialogs reach the tool (todo's claims, ask_user_question); 0: none.
	Ctx int64 `json:"ctx,omitempty"`
}

// BuiltinUpdateParams stream a partial result of the builtin.execute request ID.
type BuiltinUpdateParams struct {
	ID            json.RawMessage `json:"id"`
	PartialResult ToolResult      `json:"partialResult"`
}

// SessionsListParams list the sessions of Cwd (in SessionDir, default the project's directory
// under the agent directory) or, with All, every session under the sessions root (SessionDir, if
// set, instead). Internal workflow sessions are left out unless IncludeInternal.
type SessionsListParams struct {
	Cwd             string `json:"cwd,omitempty"`
	SessionDir      string `json:"sessionDir,omitempty"`
	All             bool   `json:"all,omitempty"`
	IncludeInternal bool   `json:"includeInternal,omitempty"`
}

// MutationParams are the params of mutation.acquire: Path is the absolute path of the file.
type MutationParams struct {
	Path string `json:"path"`
}

// MutationLease is the answer of mutation.acquire and the params of mutation.release.
type MutationLease struct {
	Token string `json:"token"`
}

// BashOpsExecParams run the user's command through a host's BashOperations (bashOps.exec).
type BashOpsExecParams struct {
	Ops     int    `json:"ops"`
	Command string `json:"command"`
	Cwd     string `json:"cwd"`
}

// BashOpsExecResult is the exit code exec resolved with (nil: none, pi's null).
type BashOpsExecResult struct {
	ExitCode *int `json:"exitCode"`
}
