package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/atomic-cli/atomic/export"
	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/mcp"
	"github.com/atomic-cli/atomic/session"
	"github.com/atomic-cli/atomic/store"
)

// handler runs one decoded command against the runtime.
type handler func(s *Server, ctx context.Context, rt *session.Runtime, c *command) result

// handlers has one entry per name of specs (a test checks both tables agree).
var handlers map[string]handler

func init() {
	handlers = map[string]handler{
		"prompt":    handlePrompt,
		"steer":     handleQueue,
		"follow_up": handleQueue,
		"abort":     handleAbort,
		"new_session": func(s *Server, ctx context.Context, rt *session.Runtime, c *command) result {
			p := c.params.(*newSessionParams)
			cancelled, err := rt.NewSession(ctx, ext.NewSessionOptions{ParentSession: p.ParentSession})
			return result{data: cancelledData{Cancelled: cancelled}, err: err}
		},
		"clear_queue": func(s *Server, ctx context.Context, rt *session.Runtime, c *command) result {
			steer, follow := rt.Session().ClearQueue()
			return result{data: map[string][]string{"steering": steer, "followUp": follow}}
		},
		"pause_queued_messages":  unavailable("the queued-message admission gate (pause_queued_messages)"),
		"resume_queued_messages": unavailable("the queued-message admission gate (resume_queued_messages)"),
		"get_state":              handleState,
		"get_messages": func(s *Server, ctx context.Context, rt *session.Runtime, c *command) result {
			return result{data: messagesData(rt.Session().Messages())}
		},
		"set_model":            handleSetModel,
		"cycle_model":          handleCycleModel,
		"get_available_models": handleAvailableModels,
		"refresh_models":       unavailable("refreshing the model catalog (refresh_models; models.json is read at start-up)"),
		"login_provider": func(s *Server, ctx context.Context, rt *session.Runtime, c *command) result {
			p := c.params.(*providerParams)
			if c.login == nil {
				c.login = s.logins.add(p.Provider, p.LoginID)
			}
			ctx, stop := s.logins.start(ctx, c.login)
			defer stop()
			typ, err := rt.Session().LoginProvider(ctx, p.Provider, p.AuthType)
			switch {
			case errors.Is(err, session.ErrLoginCancelled):
				return result{data: map[string]any{"provider": p.Provider, "cancelled": true}}
			case err != nil:
				return result{err: err}
			}
			return result{data: map[string]any{"provider": p.Provider, "cancelled": false, "type": typ}}
		},
		"save_provider_credential": unavailable("saving credentials (save_provider_credential; edit auth.json)"),
		"cancel_login_provider": func(s *Server, ctx context.Context, rt *session.Runtime, c *command) result {
			p := c.params.(*providerParams)
			s.logins.cancel(p.Provider, p.LoginID)
			return result{}
		},
		"logout_provider": unavailable("provider logout (logout_provider; edit auth.json)"),
		"set_thinking_level": func(s *Server, ctx context.Context, rt *session.Runtime, c *command) result {
			return result{err: rt.Session().SetThinkingLevel(c.params.(*levelParams).Level)}
		},
		"cycle_thinking_level": func(s *Server, ctx context.Context, rt *session.Runtime, c *command) result {
			level, ok, err := rt.Session().CycleThinkingLevel()
			if err != nil || !ok {
				return result{data: jsonNull, err: err}
			}
			return result{data: map[string]string{"level": level}}
		},
		"get_available_thinking_levels": func(s *Server, ctx context.Context, rt *session.Runtime, c *command) result {
			return result{data: map[string][]string{"levels": rt.Session().AvailableThinkingLevels()}}
		},
		"set_steering_mode": func(s *Server, ctx context.Context, rt *session.Runtime, c *command) result {
			return result{err: rt.Session().SetSteeringMode(c.params.(*modeParams).Mode)}
		},
		"set_follow_up_mode": func(s *Server, ctx context.Context, rt *session.Runtime, c *command) result {
			return result{err: rt.Session().SetFollowUpMode(c.params.(*modeParams).Mode)}
		},
		"compact": func(s *Server, ctx context.Context, rt *session.Runtime, c *command) result {
			// Atomic's compact takes no parameters; pi's customInstructions guides the planner as the query.
			res, err := rt.Session().Compact(ctx, session.CompactManual, 0, nil, c.params.(*compactParams).CustomInstructions)
			if err != nil {
				return result{err: err}
			}
			return result{data: res}
		},
		"abort_compaction": func(s *Server, ctx context.Context, rt *session.Runtime, c *command) result {
			rt.Session().AbortCompaction()
			return result{}
		},
		"set_auto_compaction": func(s *Server, ctx context.Context, rt *session.Runtime, c *command) result {
			rt.Session().SetAutoCompaction(c.params.(*enabledParams).Enabled)
			return result{}
		},
		"set_auto_retry": func(s *Server, ctx context.Context, rt *session.Runtime, c *command) result {
			rt.Session().SetAutoRetry(c.params.(*enabledParams).Enabled)
			return result{}
		},
		// abort_retry cancels a pending retry backoff; without one it does nothing (pi).
		"abort_retry": func(s *Server, ctx context.Context, rt *session.Runtime, c *command) result {
			rt.Session().AbortRetry()
			return result{}
		},
		"bash":       handleBash,
		"user_bash":  handleBash,
		"abort_bash": handleAbortBash,
		"get_session_stats": func(s *Server, ctx context.Context, rt *session.Runtime, c *command) result {
			st, err := rt.Session().Stats()
			return result{data: st, err: err}
		},
		// export_html (rpc-and-json.md §3.6): the live session at its current leaf as one HTML
		// file; data {path} is absolute. In-memory and not-yet-written sessions are errors.
		"export_html": func(s *Server, ctx context.Context, rt *session.Runtime, c *command) result {
			path, err := export.Session(rt.Session().Store(), c.params.(*exportParams).OutputPath)
			if err != nil {
				return result{err: err}
			}
			return result{data: map[string]string{"path": path}}
		},
		"switch_session": func(s *Server, ctx context.Context, rt *session.Runtime, c *command) result {
			path := c.params.(*switchParams).SessionPath
			if _, err := os.Stat(path); err != nil {
				return result{err: fmt.Errorf("Session file not found: %s", path)}
			}
			cancelled, err := rt.SwitchSession(ctx, path, ext.SwitchOptions{})
			return result{data: cancelledData{Cancelled: cancelled}, err: err}
		},
		"import_session": unavailable("session import (import_session; use switch_session on the file)"),
		"fork":           handleFork,
		"clone": func(s *Server, ctx context.Context, rt *session.Runtime, c *command) result {
			cancelled, err := rt.Clone(ctx)
			return result{data: cancelledData{Cancelled: cancelled}, err: err}
		},
		"get_fork_messages": func(s *Server, ctx context.Context, rt *session.Runtime, c *command) result {
			return result{data: map[string]any{"messages": rt.Session().UserMessagesForForking()}}
		},
		"get_entries": handleEntries,
		"get_tree": func(s *Server, ctx context.Context, rt *session.Runtime, c *command) result {
			st := rt.Session().Store()
			tree := st.Tree()
			if tree == nil {
				tree = []*store.TreeNode{}
			}
			return result{data: map[string]any{"tree": tree, "leafId": nullable(st.LeafID())}}
		},
		"navigate_tree": func(s *Server, ctx context.Context, rt *session.Runtime, c *command) result {
			p := c.params.(*navigateParams)
			o := p.Options
			cancelled, err := rt.NavigateTree(ctx, p.TargetID, ext.NavigateOptions{Summarize: o.Summarize, CustomInstructions: o.CustomInstructions, ReplaceInstructions: o.ReplaceInstructions, Label: o.Label})
			return result{data: cancelledData{Cancelled: cancelled}, err: err}
		},
		"set_label": func(s *Server, ctx context.Context, rt *session.Runtime, c *command) result {
			p := c.params.(*labelParams)
			sess := rt.Session()
			if sess.Store().Entry(p.EntryID) == nil {
				return result{err: fmt.Errorf("Entry not found: %s", p.EntryID)}
			}
			label := ""
			if p.Label != nil {
				label = *p.Label
			}
			return result{err: sess.SetLabel(p.EntryID, label)}
		},
		// get_mcp_status (atomic): {servers: [{name, transport, lifecycle, state, tools, toolNames,
		// error, file}]}, the MCP servers of the runtime (none when MCP is off); nothing starts.
		"get_mcp_status": func(s *Server, ctx context.Context, rt *session.Runtime, c *command) result {
			st := []mcp.ServerStatus{}
			if m := rt.MCP(); m != nil {
				st = m.Status()
			}
			return result{data: map[string]any{"servers": st}}
		},
		// mcp_connect and mcp_disconnect (atomic) start or stop one server, as /mcp does.
		"mcp_connect": func(s *Server, ctx context.Context, rt *session.Runtime, c *command) result {
			m := rt.MCP()
			if m == nil {
				return result{err: errors.New("no MCP servers are configured")}
			}
			ctx, cancel := context.WithTimeout(ctx, mcp.ConnectTimeout)
			defer cancel()
			return result{err: m.Connect(ctx, c.params.(*mcpServerParams).Server)}
		},
		"mcp_disconnect": func(s *Server, ctx context.Context, rt *session.Runtime, c *command) result {
			m := rt.MCP()
			if m == nil {
				return result{err: errors.New("no MCP servers are configured")}
			}
			return result{err: m.Disconnect(c.params.(*mcpServerParams).Server)}
		},
		"get_last_assistant_text": func(s *Server, ctx context.Context, rt *session.Runtime, c *command) result {
			text, ok := rt.Session().LastAssistantText()
			if !ok {
				return result{data: map[string]any{"text": nil}}
			}
			return result{data: map[string]any{"text": text}}
		},
		"set_session_name": func(s *Server, ctx context.Context, rt *session.Runtime, c *command) result {
			name := strings.TrimSpace(c.params.(*nameParams).Name)
			if name == "" {
				return result{err: errors.New("Session name cannot be empty")}
			}
			return result{err: rt.Session().SetSessionName(name)}
		},
		"reload": func(s *Server, ctx context.Context, rt *session.Runtime, c *command) result {
			return result{err: rt.Reload(ctx)}
		},
		"get_shortcuts": func(s *Server, ctx context.Context, rt *session.Runtime, c *command) result {
			return result{data: map[string]any{"shortcuts": rt.Session().Runner().Shortcuts()}}
		},
		"invoke_shortcut": func(s *Server, ctx context.Context, rt *session.Runtime, c *command) result {
			return result{err: rt.Session().InvokeShortcut(ctx, c.params.(*shortcutParams).Key)}
		},
		"get_commands": func(s *Server, ctx context.Context, rt *session.Runtime, c *command) result {
			// Extension commands, then prompt templates, then skills (session.SlashCommands).
			return result{data: map[string]any{"commands": rt.Session().SlashCommands()}}
		},
		"get_command_completions": handleCompletions,
	}
}

// unavailable answers a command whose subsystem atomic does not have yet.
func unavailable(what string) handler {
	return func(s *Server, ctx context.Context, rt *session.Runtime, c *command) result {
		return result{err: fmt.Errorf("%s is %w in atomic", what, ext.ErrNotAvailable)}
	}
}

type cancelledData struct {
	Cancelled bool `json:"cancelled"`
}

// nullable is s, or JSON null for "".
func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// handlePrompt runs a prompt on its own goroutine and answers after its preflight (see the
// package doc): when PromptWith returns first (a command or input hook handled it, it was
// queued, or it failed), or just before its agent_start is published (PromptOptions.OnStart).
func handlePrompt(s *Server, ctx context.Context, rt *session.Runtime, c *command) result {
	p := c.params.(*promptParams)
	sess := rt.Session()
	pp := &pendingPrompt{id: c.ID, done: make(chan struct{})}
	s.prompts.Add(1)
	started := s.goTracked(func(ctx context.Context) {
		err := sess.PromptWith(ctx, p.Message, session.PromptOptions{
			Source: "rpc", Images: p.Images, StreamingBehavior: p.StreamingBehavior,
			OnStart: func() { pp.answer(s, nil) },
		})
		// Counted out before the answer, so the worker sees the session idle once answered.
		s.prompts.Add(-1)
		defer s.checkShutdown()
		if !pp.answer(s, err) && err != nil && ctx.Err() == nil {
			s.logf("prompt %s: %v", c.ID, err)
		}
	})
	if !started {
		s.prompts.Add(-1)
		return result{err: errShuttingDown}
	}
	select {
	case <-pp.done:
	case <-ctx.Done():
	}
	return result{silent: true}
}

// handleQueue is steer and follow_up: the message waits in the agent's queue. Extension commands
// cannot be queued (rpc-and-json.md §3.1).
func handleQueue(s *Server, ctx context.Context, rt *session.Runtime, c *command) result {
	p := c.params.(*messageParams)
	sess := rt.Session()
	if sess.IsExtensionCommand(p.Message) {
		return result{err: fmt.Errorf("%s cannot queue the extension command %q: send it with prompt", c.Type, strings.Fields(p.Message)[0])}
	}
	if c.Type == "steer" {
		sess.Steer(p.Message, p.Images)
	} else {
		sess.FollowUp(p.Message, p.Images)
	}
	return result{}
}

// handleAbort cancels the active run and answers once the session is idle, without holding up
// the reader.
func handleAbort(s *Server, ctx context.Context, rt *session.Runtime, c *command) result {
	sess := rt.Session()
	sess.Abort()
	if !s.goTracked(func(ctx context.Context) {
		_ = sess.WaitIdle(ctx)
		s.respond(c, result{})
	}) {
		return result{}
	}
	return result{silent: true}
}

// stateData is RpcSessionState (rpc-and-json.md §3.2).
type stateData struct {
	Model                 *llm.Model `json:"model,omitempty"`
	ThinkingLevel         string     `json:"thinkingLevel"`
	IsStreaming           bool       `json:"isStreaming"`
	IsCompacting          bool       `json:"isCompacting"`
	SteeringMode          string     `json:"steeringMode"`
	FollowUpMode          string     `json:"followUpMode"`
	SessionFile           string     `json:"sessionFile,omitempty"`
	SessionID             string     `json:"sessionId"`
	SessionName           string     `json:"sessionName,omitempty"`
	AutoCompactionEnabled bool       `json:"autoCompactionEnabled"`
	AutoRetryEnabled      bool       `json:"autoRetryEnabled"`
	MessageCount          int        `json:"messageCount"`
	PendingMessageCount   int        `json:"pendingMessageCount"`
	QueuedMessagesPaused  bool       `json:"queuedMessagesPaused"`
}

func handleState(s *Server, ctx context.Context, rt *session.Runtime, c *command) result {
	sess := rt.Session()
	st := sess.Store()
	return result{data: stateData{
		Model:                 sess.Model(),
		ThinkingLevel:         sess.ThinkingLevel(),
		IsStreaming:           sess.IsStreaming(),
		SteeringMode:          sess.SteeringMode(),
		FollowUpMode:          sess.FollowUpMode(),
		IsCompacting:          sess.IsCompacting(),
		SessionFile:           st.SessionFile(),
		SessionID:             st.SessionID(),
		SessionName:           st.SessionName(),
		AutoCompactionEnabled: sess.AutoCompaction(), // the session's: settings.json, then set_auto_compaction
		AutoRetryEnabled:      sess.AutoRetryEnabled(),
		MessageCount:          len(sess.Messages()),
		PendingMessageCount:   sess.PendingMessageCount(),
	}}
}

// messagesData encodes {"messages":[…]} with the messages' own encoder.
type messagesData []llm.Message

func (m messagesData) AppendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, `{"messages":[`...)
	for i := range m {
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = m[i].AppendJSON(dst); err != nil {
			return dst, err
		}
	}
	return append(dst, "]}"...), nil
}

func handleSetModel(s *Server, ctx context.Context, rt *session.Runtime, c *command) result {
	p := c.params.(*setModelParams)
	sess := rt.Session()
	for _, m := range sess.UsableModels() {
		if m.Provider == p.Provider && m.ID == p.ModelID {
			if err := sess.SetModel(m); err != nil {
				return result{err: err}
			}
			return result{data: m}
		}
	}
	return result{err: fmt.Errorf("Model not found: %s/%s", p.Provider, p.ModelID)}
}

func handleCycleModel(s *Server, ctx context.Context, rt *session.Runtime, c *command) result {
	r, err := rt.Session().CycleModel(c.params.(*cycleModelParams).Direction)
	if err != nil {
		return result{err: err}
	}
	if r == nil {
		return result{data: jsonNull}
	}
	return result{data: r}
}

func handleAvailableModels(s *Server, ctx context.Context, rt *session.Runtime, c *command) result {
	models := rt.Session().UsableModels()
	if models == nil {
		models = []*llm.Model{}
	}
	return result{data: map[string]any{"models": models, "scopedModels": []any{}, "customAuthProviders": []any{}}}
}

// bashJob is a running bash or user_bash command, cancellable by abort_bash.
type bashJob struct {
	id     json.RawMessage
	cancel context.CancelFunc
}

// handleBash runs a user shell command bound to the session live when it started; its output
// streams as bash_execution_update events carrying the command's id (Atomic).
func handleBash(s *Server, ctx context.Context, rt *session.Runtime, c *command) result {
	p := c.params.(*bashParams)
	sess := rt.Session()
	jctx, cancel := context.WithCancel(ctx)
	defer cancel()
	j := &bashJob{id: c.ID, cancel: cancel}
	s.mu.Lock()
	s.jobs[j] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.jobs, j)
		s.mu.Unlock()
	}()
	res, err := sess.ExecuteBash(jctx, p.Command, session.BashOptions{
		ExcludeFromContext: p.ExcludeFromContext,
		OnChunk:            func(text string) { s.writeBashUpdate(c.ID, text) },
	})
	if err != nil {
		return result{err: err}
	}
	return result{data: res}
}

// writeBashUpdate writes {"type":"bash_execution_update","id"?,"channel":"stdout","delta"}; the
// shell's stdout and stderr are merged, so the channel is always stdout.
func (s *Server) writeBashUpdate(id json.RawMessage, delta string) {
	b := append(make([]byte, 0, len(delta)+80), `{"type":"bash_execution_update"`...)
	if id != nil {
		b = append(b, `,"id":`...)
		b = append(b, id...)
	}
	b = append(b, `,"channel":"stdout","delta":`...)
	b = llm.AppendJSONString(b, delta)
	s.writeLine(append(b, '}'))
}

// handleAbortBash cancels the bash command whose id is requestId, or every one without it.
func handleAbortBash(s *Server, ctx context.Context, rt *session.Runtime, c *command) result {
	want := compactJSON(c.params.(*abortBashParams).RequestID)
	s.mu.Lock()
	for j := range s.jobs {
		if want == nil || string(j.id) == string(want) {
			j.cancel()
		}
	}
	s.mu.Unlock()
	return result{}
}

func compactJSON(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	id, _, _ := decodeEnvelope(append(append([]byte(`{"id":`), raw...), '}'))
	return id
}

func handleFork(s *Server, ctx context.Context, rt *session.Runtime, c *command) result {
	id := c.params.(*forkParams).EntryID
	sess := rt.Session()
	if sess.Store().Entry(id) == nil {
		return result{err: fmt.Errorf("Entry not found: %s", id)}
	}
	text, ok := sess.EntryText(id)
	if !ok {
		return result{err: fmt.Errorf("Cannot fork: entry %s is not a user message (see get_fork_messages)", id)}
	}
	cancelled, err := rt.Fork(ctx, id, ext.ForkOptions{})
	if err != nil {
		return result{err: err}
	}
	return result{data: map[string]any{"text": text, "cancelled": cancelled}}
}

// handleEntries is get_entries: every entry in append order (abandoned branches included), or
// those strictly after since.
func handleEntries(s *Server, ctx context.Context, rt *session.Runtime, c *command) result {
	st := rt.Session().Store()
	entries := st.Entries()
	if since := c.params.(*entriesParams).Since; since != nil {
		i := -1
		for k, e := range entries {
			if e.ID == *since {
				i = k
				break
			}
		}
		if i < 0 {
			return result{err: fmt.Errorf("Entry not found: %s", *since)}
		}
		entries = entries[i+1:]
	}
	if entries == nil {
		entries = []*store.Entry{}
	}
	return result{data: map[string]any{"entries": entries, "leafId": nullable(st.LeafID())}}
}

// completion is one item of get_command_completions: value, label and an optional description.
type completion struct {
	Value       string `json:"value"`
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
}

func handleCompletions(s *Server, ctx context.Context, rt *session.Runtime, c *command) result {
	p := c.params.(*completionParams)
	cmd, _, ok := rt.Session().Runner().Command(p.CommandName)
	if !ok || cmd.Completions == nil {
		return result{data: map[string]any{"completions": nil}}
	}
	out := []completion{}
	for _, it := range cmd.Completions(p.ArgumentPrefix) {
		label := it.Label
		if label == "" {
			label = it.Value
		}
		out = append(out, completion{Value: it.Value, Label: label, Description: it.Description})
	}
	return result{data: map[string]any{"completions": out}}
}
