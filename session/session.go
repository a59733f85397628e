package session

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/atomic-cli/atomic/agent"
	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/mcp"
	"github.com/atomic-cli/atomic/model"
	"github.com/atomic-cli/atomic/resource"
	"github.com/atomic-cli/atomic/store"
	"github.com/atomic-cli/atomic/tool"
)

// Options configure New. Store, Model and Provider-resolution inputs are required as noted.
type Options struct {
	// Store holds the session's entries (required). Its context becomes the agent's context.
	Store *store.Session
	// Registry resolves API keys and headers per request; nil sends no key.
	Registry *model.Registry
	// Model is the model to use (required).
	Model *llm.Model
	// ThinkingLevel is the requested level; it is clamped to the model. "" keeps the session's
	// stored level ("off" for a new session).
	ThinkingLevel string
	// Tools are the active tools.
	Tools []tool.Tool
	// SystemPrompt is the assembled system prompt.
	SystemPrompt string
	// HTTPClient sends provider requests; nil is http.DefaultClient (the replay provider plugs its
	// transport in here).
	HTTPClient *http.Client
	// ImageResizer fits the images of every tool result into the provider limits after the
	// tool_result handlers ran (settings images.autoResize; tools.md §13); nil sends them as
	// they are.
	ImageResizer tool.ImageResizer
	// Provider streams the model's API; nil picks ProviderFor(Model.API).
	Provider llm.Provider
	// OnError receives problems that must not stop the run (a failed session write); nil ignores them.
	OnError func(error)
	// Now is the clock; nil is time.Now.
	Now func() time.Time

	// ShellPath and ShellCommandPrefix are the settings shellPath and shellCommandPrefix for the
	// user's shell commands (ExecuteBash: `!cmd`, RPC bash): the shell of the local operations
	// ("" resolves /bin/bash, bash on PATH, then sh; a missing path fails the command) and the
	// text prepended as "<prefix>\n<command>" to the command the operations run (user_bash
	// handlers and the session record see the command as typed), as pi's executeBash.
	ShellPath, ShellCommandPrefix string

	// AllBuiltins are every built-in tool the session could offer (Tools are the active ones);
	// extensions' setActiveTools chooses among these and the extension tools.
	AllBuiltins []tool.Tool
	// ToolAllowlist, when not nil, is the only tools the session offers, built-in, MCP and
	// extension tools alike (pi 0.73.1's allowedToolNames: `--tools a,b`, or empty for
	// `--no-tools`); nil allows every tool. A name that matches no tool once the extensions have
	// loaded is reported through OnError.
	ToolAllowlist []string
	// ToolDenylist are tools the session never offers, built-in, MCP and extension tools alike,
	// applied after ToolAllowlist (Atomic's excludedToolNames: `--exclude-tools a,b`).
	ToolDenylist []string
	// Extensions are Go extension factories, run in order when the session starts (and again
	// when it is replaced or reloaded); ExtensionPaths name them ("go:<name>").
	Extensions     []ext.Factory
	ExtensionPaths []string
	// Mode is print, json, rpc or interactive; UI is the mode's ctx.ui (nil: ext.NoUI).
	Mode string
	UI   ext.UI
	// OnExtensionError receives handler failures (extension_error); nil ignores them.
	OnExtensionError func(*ext.Error)
	// SystemPromptBuilder rebuilds the system prompt for a tool set (after extensions changed
	// the tools); nil keeps SystemPrompt.
	SystemPromptBuilder func(tools []tool.Tool) string
	// SystemPromptOptions describes the inputs of the system prompt for a tool set (before_agent_start's
	// systemPromptOptions, seed 004); nil: only the selected tools and the cwd.
	SystemPromptOptions func(tools []tool.Tool) ext.SystemPromptOptions
	// Cwd is the working directory; "" is the store's cwd.
	Cwd string
	// Skills are the skills `/skill:name args` expands and get_commands lists
	// (config-and-resources.md §10); the caller discovers them (resource.DiscoverSkills).
	Skills []resource.Skill
	// PromptTemplates are the templates `/name args` expands and get_commands lists (§11).
	PromptTemplates []resource.PromptTemplate
	// ReloadResources, when set, discovers the skills and templates again on Runtime.Reload
	// (/reload); the system prompt is then rebuilt with SystemPromptBuilder.
	ReloadResources func() ([]resource.Skill, []resource.PromptTemplate)
	// ExtensionSourceInfo is the sourceInfo of extensions by path (where they were discovered:
	// a directory, a settings entry, a package, -e); get_commands reports it for their commands.
	// An extension not in it is reported by its path alone.
	ExtensionSourceInfo map[string]ext.SourceInfo
	// ExtendResources, when set, receives the skill, prompt and theme paths extensions returned
	// from resources_discover (at start-up, and again after /reload) and returns the skills and
	// templates with them added; the system prompt is then rebuilt with SystemPromptBuilder.
	ExtendResources func(found []ext.DiscoveredResources) ([]resource.Skill, []resource.PromptTemplate)
	// ProjectUntrusted says the project in Cwd is not trusted (config-and-resources.md §6):
	// ctx.isProjectTrusted() reports false. The zero value trusts it, as pi does.
	ProjectUntrusted bool
	// Retry configures automatic retry and fallback models (retry.go); the zero value is off.
	Retry RetryOptions
	// StreamReadInterval coalesces the reads of provider streams (llm.Request.ReadInterval): the
	// front-end sets it when it shows deltas at a frame rate and does not need each one the moment
	// it arrives (the interactive mode: 16 ms, half a 30 fps frame). 0 reads every delta at once.
	StreamReadInterval time.Duration
	// SteeringMode and FollowUpMode are the queue delivery modes ("one-at-a-time" or "all";
	// settings.json steeringMode/followUpMode); "" keeps one-at-a-time. A bad value is reported
	// through OnError and ignored.
	SteeringMode, FollowUpMode string
	// Compaction configures compaction triggers and defaults (compaction.go); zero: defaults.
	Compaction CompactionSettings
	// ExtensionHandlerTimeout is settings.json extensionHandlerTimeoutMs: a fail-closed event
	// (tool_call) blocks when its handlers have not answered within it plus a second (the
	// extension host bounds each of its handlers by it exactly); 0 is ext.GuardTimeout.
	ExtensionHandlerTimeout time.Duration
	// BeforeStart, when set, runs once the extensions of a session (the first and every
	// replacement) are loaded and before its session_start: the command line's extension flags
	// are applied here, so pi.getFlag() in session_start sees them. An error stops NewRuntime
	// (the runtime is shut down) or the replacement.
	BeforeStart func(*Session) error
	// MCP, when set, owns the MCP servers for the Runtime (mcp package): its tools (the "mcp"
	// proxy and the direct tools) join the built-ins, active and all; its server notifications
	// reach the live session's extensions as mcp_notification; a Runtime starts its eager
	// servers and closes it (ending every server process) at Shutdown. Sessions replaced by /new,
	// /fork or reload share it, so connections are not re-created.
	MCP *mcp.Manager
}

// Session is a live agent session.
type Session struct {
	agent *agent.Agent
	store *store.Session
	reg   *model.Registry
	http  *http.Client
	onErr func(error)
	now   func() time.Time

	// The model and thinking level have one owner, the agent's configuration (read and changed
	// under the agent's lock: Model, ThinkingLevel, setModel, SetThinkingLevel).
	mu       sync.Mutex // guards nextTurn, basePrompt
	nextTurn []llm.Message

	opts       Options
	runner     *ext.Runner
	loadErrs   []error // the extensions that failed to load in New, in load order
	basePrompt string
	disposed   atomic.Bool
	// persistFailed is set when a message could not be saved.
	persistFailed atomic.Bool
	inflight      inflight   // turns started by extensions
	ui            *promptUI  // the mode's UI, reporting dialogs as ui_prompt_* events
	toolResultMu  sync.Mutex // serialises tool_result dispatches of parallel tool calls
	rt            *Runtime   // nil for a session made with New directly
	retry         retryState // automatic retry (retry.go)
	compaction    compaction // compaction runs and the auto-compaction switch (compaction.go)
	stream        *stream    // the front-end stream (the Runtime's, shared by its sessions)
	// onStart is called once before the next agent_start is published (PromptOptions.OnStart).
	onStart atomic.Pointer[func()]
	// life is the session's own context: work extensions start (triggerTurn, sendUserMessage
	// while idle, ctx.compact) runs under it, and Shutdown cancels it.
	life    context.Context
	endLife context.CancelFunc
}

// New binds an agent to the store: it loads the store's context for the current leaf, records
// the model and thinking level as entries when they differ from what the session last used (a new
// session records both, as pi does), and persists every message the agent ends from then on.
func New(o Options) (*Session, error) { return newSession(o, &stream{}) }

// newSession is New publishing to st (a Runtime passes its own stream, shared by its sessions).
func newSession(o Options, st *stream) (*Session, error) {
	if o.Store == nil {
		return nil, errors.New("session: no store")
	}
	if o.Model == nil {
		return nil, errors.New("session: no model")
	}
	p := o.Provider
	if p == nil {
		var err error
		if p, err = ProviderFor(o.Model.API); err != nil {
			return nil, fmt.Errorf("session: model %s/%s: %w", o.Model.Provider, o.Model.ID, err)
		}
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.OnError == nil {
		o.OnError = func(error) {}
	}
	sc := o.Store.BuildContext()
	thinking := o.ThinkingLevel
	if thinking == "" {
		thinking = sc.ThinkingLevel
	}
	thinking = llm.ClampThinkingLevel(o.Model, thinking)

	if o.Cwd == "" {
		o.Cwd = o.Store.Cwd()
	}
	if o.UI == nil {
		o.UI = ext.NoUI{}
	}
	s := &Session{store: o.Store, reg: o.Registry, http: o.HTTPClient, onErr: o.OnError, now: o.Now, opts: o, basePrompt: o.SystemPrompt, stream: st}
	s.life, s.endLife = context.WithCancel(context.Background())
	s.runner = ext.NewRunner(s.newContext)
	s.runner.SetToolAllowlist(o.ToolAllowlist)
	s.runner.SetToolDenylist(o.ToolDenylist)
	if len(o.ExtensionSourceInfo) > 0 {
		// getAllTools and getCommands name where each extension was found.
		s.runner.SetSourceInfo(func(path string) *ext.SourceInfo {
			if si, ok := o.ExtensionSourceInfo[path]; ok {
				return &si
			}
			return nil
		})
	}
	if o.ExtensionHandlerTimeout > 0 {
		// A second's grace lets the extension host's own bound, which names the handler, answer
		// first.
		s.runner.SetGuardTimeout(o.ExtensionHandlerTimeout + time.Second)
	}
	s.retry.enabled = o.Retry.Enabled
	s.ui = &promptUI{UI: o.UI, s: s}
	if o.OnExtensionError != nil {
		s.runner.OnError(o.OnExtensionError)
	}
	s.agent = agent.New(agent.Config{
		Provider:      p,
		Model:         o.Model,
		SystemPrompt:  o.SystemPrompt,
		ThinkingLevel: thinking,
		Tools:         withMCP(o.Tools, o.MCP),
		Now:           o.Now,
		Hooks: agent.Hooks{
			PrepareRequest:   s.prepareRequest,
			TransformContext: s.transformContext,
			BeforeToolCall:   s.beforeToolCall,
			ToolContext:      s.toolContext,
			AfterToolCall:    s.afterTool, // images.go: tool_result, then image fitting
			MessageEnd:       s.messageEnd,
			BeforeRequest:    s.beforeRequest,
			Overflow:         s.overflow,
		},
	})
	if err := s.agent.AdoptMessages(sc.Messages); err != nil {
		return nil, err
	}
	if sc.Model == nil || sc.Model.Provider != o.Model.Provider || sc.Model.ModelID != o.Model.ID {
		if _, err := o.Store.AppendModelChange(o.Model.Provider, o.Model.ID); err != nil {
			return nil, fmt.Errorf("session: record model: %w", err)
		}
	}
	if len(sc.Messages) == 0 || sc.ThinkingLevel != thinking {
		if _, err := o.Store.AppendThinkingLevelChange(thinking); err != nil {
			return nil, fmt.Errorf("session: record thinking level: %w", err)
		}
	}
	for _, q := range []struct {
		key, v string
		set    func(string) error
	}{{"steeringMode", o.SteeringMode, s.SetSteeringMode}, {"followUpMode", o.FollowUpMode, s.SetFollowUpMode}} {
		if q.v == "" {
			continue
		}
		if err := q.set(q.v); err != nil {
			o.OnError(fmt.Errorf("settings %s: %w", q.key, err))
		}
	}
	s.agent.Subscribe(s.onLoop)
	if len(o.Extensions) > 0 {
		s.loadErrs = s.runner.Load(s, o.ExtensionPaths, o.Extensions)
		s.ToolsChanged()
	}
	s.checkAllowlist()
	return s, nil
}

// persist appends an ended message to the store (called in event order by onLoop).
func (s *Session) persist(m *llm.Message) {
	if m == nil {
		return
	}
	if m.Role == llm.RoleCustom {
		_, err := s.store.AppendCustomMessageEntry(store.CustomMessage{
			CustomType: m.CustomType, Content: m.Content, ContentIsString: m.ContentIsString,
			Display: m.Display, Details: m.Details, ExcludeFromContext: m.ExcludeFromContext,
		})
		if err != nil {
			s.persistFailed.Store(true)
			s.onErr(fmt.Errorf("session: saving the custom message: %w", err))
		}
		return
	}
	if _, err := s.store.AppendMessage(*m); err != nil {
		s.persistFailed.Store(true)
		s.onErr(fmt.Errorf("session: saving the %s message: %w", m.Role, err))
	}
}

// prepareRequest fills the per-request fields: the API key and headers of the model's provider
// (resolved now, so a `!command` or rotated key is read fresh), the HTTP client and session id.
func (s *Session) prepareRequest(ctx context.Context, req *llm.Request) error {
	req.HTTPClient = s.http
	req.SessionID = s.store.SessionID()
	req.Hooks = s.providerHooks(req.Model)
	req.ReadInterval = s.opts.StreamReadInterval
	if err := s.retryPrepare(req); err != nil { // retry.go: soft-disabled credentials, retry-after
		return err
	}
	if s.reg == nil || req.Model == nil {
		return nil
	}
	key, err := s.reg.APIKey(req.Model.Provider)
	if err != nil && !errors.Is(err, model.ErrNoAPIKey) {
		return err
	}
	if err != nil {
		return err
	}
	req.APIKey = key
	req.Headers = s.reg.Headers(req.Model)
	return nil
}

// Steer queues a message for delivery before the next provider request of the active run.
func (s *Session) Steer(text string, images []llm.Content) {
	text = s.expandResources(text)
	s.agent.Steer(llm.UserText(text, images, s.now().UnixMilli()))
}

// FollowUp queues a message for delivery when the active run would otherwise stop.
func (s *Session) FollowUp(text string, images []llm.Content) {
	text = s.expandResources(text)
	s.agent.FollowUp(llm.UserText(text, images, s.now().UnixMilli()))
}

// Abort cancels the active run, or a pending retry backoff (retry.go); the partial assistant
// message is kept with stop reason aborted.
func (s *Session) Abort() {
	s.AbortRetry()
	s.agent.Abort()
}

// Messages returns the agent context (the current branch's messages).
func (s *Session) Messages() []llm.Message { return s.agent.Messages() }

// Store returns the session store.
func (s *Session) Store() *store.Session { return s.store }

// Agent returns the agent loop.
func (s *Session) Agent() *agent.Agent { return s.agent }

// Model returns the active model.
func (s *Session) Model() *llm.Model {
	var m *llm.Model
	s.agent.Configure(func(c *agent.Config) { m = c.Model })
	return m
}

// ThinkingLevel returns the effective thinking level.
func (s *Session) ThinkingLevel() string {
	var level string
	s.agent.Configure(func(c *agent.Config) { level = c.ThinkingLevel })
	return level
}

// PersistFailed reports whether a message could not be saved to the session file.
func (s *Session) PersistFailed() bool { return s.persistFailed.Load() }

// HeaderJSON returns the session header line as stored (JSON mode's first line).
func (s *Session) HeaderJSON() []byte {
	h := s.store.Header()
	b, err := h.MarshalJSON()
	if err != nil {
		return []byte(`{"type":"session"}`)
	}
	return b
}
