package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/ext/protocol"
	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/store"
)

// jsonUnmarshal decodes params; a failure is an invalid-params error.
func jsonUnmarshal(raw json.RawMessage, v any) error {
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return protocol.Errorf(protocol.CodeInvalidParams, "invalid params: %v", err)
	}
	return nil
}

// notification handles a notification from the host. Registrations and the fire-and-forget UI
// calls are applied at once, on the reader goroutine, so they take effect in the order the
// extension made them (a notify before the answer of the command that sent it); bus messages go
// to the worker, since Go subscribers may call back into the host.
func (s *Supervisor) notification(p *process, m *protocol.Message) {
	switch m.Method {
	case protocol.MethodOn:
		var a protocol.OnParams
		if jsonUnmarshal(m.Params, &a) != nil {
			return
		}
		g := s.generation(a.Gen)
		if g == nil {
			return
		}
		if err := s.on(p, g, a.Ext, a.Handler, a.Event); err != nil {
			s.logf("extension host (%s): %v", s.name(), err)
		}
	case protocol.MethodEventError:
		var a protocol.EventErrorParams
		if jsonUnmarshal(m.Params, &a) != nil {
			return
		}
		s.queuedFailed(a)
	case protocol.MethodEventsEmit, protocol.MethodEventsSubscribe:
		s.post(func() {
			if _, err := s.request(p, m.Method, m.Params); err != nil {
				s.logf("extension host (%s): %s: %v", s.name(), m.Method, errorText(err))
			}
		})
	default:
		if _, err := s.request(p, m.Method, m.Params); err != nil {
			s.logf("extension host (%s): %s: %v", s.name(), m.Method, errorText(err))
		}
	}
}

// handlerFunc serves one method of the host.
type handlerFunc func(s *Supervisor, p *process, params json.RawMessage) (any, error)

// request serves a request (or notification) from the host. A panic in the session, such as a
// *ext.StaleContextError from a getter of a replaced session, becomes the matching error.
func (s *Supervisor) request(p *process, method string, params json.RawMessage) (res any, err error) {
	h, ok := methods[method]
	if !ok {
		return nil, protocol.Errorf(protocol.CodeMethodNotFound, "atomic does not implement %s", method)
	}
	defer recoverCall(method, &res, &err)
	res, err = h(s, p, params)
	return res, wireError(err)
}

// recoverCall turns a panic in the handler of method into its protocol error (a stale context
// into CodeStaleContext, anything else into CodeInternal). Call it deferred.
func recoverCall(method string, res *any, err *error) {
	r := recover()
	if r == nil {
		return
	}
	if se, ok := r.(*ext.StaleContextError); ok {
		*res, *err = nil, &protocol.Error{Code: protocol.CodeStaleContext, Message: se.Error()}
		return
	}
	*res, *err = nil, protocol.Errorf(protocol.CodeInternal, "%s: %v", method, r)
}

// wireError maps a handler's error onto the protocol: a *protocol.Error as it is, a stale context
// as CodeStaleContext, anything else as CodeHandlerFailed; nil stays nil.
func wireError(err error) error {
	if err == nil {
		return nil
	}
	var pe *protocol.Error
	var se *ext.StaleContextError
	switch {
	case errors.As(err, &pe):
		return err
	case errors.As(err, &se):
		return &protocol.Error{Code: protocol.CodeStaleContext, Message: se.Error()}
	}
	return &protocol.Error{Code: protocol.CodeHandlerFailed, Message: err.Error()}
}

// withAPI makes the handler of a pi.* method: it decodes the params (which embed an ExtRef),
// resolves the extension's API in its generation and calls fn; a stale generation fails with the
// stale-context error.
func withAPI[T any, PT interface {
	*T
	Ref() protocol.ExtRef
}](fn func(s *Supervisor, p *process, a PT, api ext.API, g *generation) (any, error)) handlerFunc {
	return func(s *Supervisor, p *process, params json.RawMessage) (any, error) {
		a := PT(new(T))
		if err := jsonUnmarshal(params, a); err != nil {
			return nil, err
		}
		r := a.Ref()
		g := s.generation(r.Gen)
		if g == nil {
			return nil, &protocol.Error{Code: protocol.CodeStaleContext, Message: (&ext.StaleContextError{Op: "pi"}).Error()}
		}
		api, err := g.api(r.Ext)
		if err != nil {
			return nil, err
		}
		return fn(s, p, a, api, g)
	}
}

// ctxCall decodes params into a (with a Ctx id) and resolves the context.
func ctxCall[T any](s *Supervisor, params json.RawMessage, id func(*T) int64) (*T, ext.Context, error) {
	a := new(T)
	if err := jsonUnmarshal(params, a); err != nil {
		return nil, nil, err
	}
	c, _, err := s.context(id(a))
	if err == nil && c != nil {
		// A stale ctx throws in the extension (seed 004), as a Go one reports Err.
		err = c.Err()
	}
	return a, c, err
}

func simpleCtx(fn func(c ext.Context) (any, error)) handlerFunc {
	return func(s *Supervisor, p *process, params json.RawMessage) (any, error) {
		_, c, err := ctxCall(s, params, func(a *protocol.CtxParams) int64 { return a.Ctx })
		if err != nil {
			return nil, err
		}
		return fn(c)
	}
}

// dialogContext is the context of a UI dialog: it ends after timeout milliseconds (0: never).
func dialogContext(timeout int) (context.Context, context.CancelFunc) {
	if timeout > 0 {
		return context.WithTimeout(context.Background(), time.Duration(timeout)*time.Millisecond)
	}
	return context.WithCancel(context.Background())
}

// methods are the host -> core methods (docs/extension-protocol.md, "Host to core").
var methods map[string]handlerFunc

func init() {
	methods = map[string]handlerFunc{
		protocol.MethodRegisterTool: withAPI(func(s *Supervisor, p *process, a *protocol.RegisterToolParams, api ext.API, g *generation) (any, error) {
			return nil, api.RegisterTool(s.toolDefinition(g, a.Ext, a.Tool))
		}),
		protocol.MethodRegisterCommand: withAPI(func(s *Supervisor, p *process, a *protocol.RegisterCommandParams, api ext.API, g *generation) (any, error) {
			return nil, api.RegisterCommand(a.Name, s.command(g, a.Ext, a.Name, a.Description, a.Completions))
		}),
		protocol.MethodRegisterShortcut: withAPI(func(s *Supervisor, p *process, a *protocol.RegisterShortcutParams, api ext.API, g *generation) (any, error) {
			return nil, api.RegisterShortcut(a.Key, s.shortcut(g, a.Ext, a.Key, a.Description))
		}),
		protocol.MethodRegisterFlag: withAPI(func(s *Supervisor, p *process, a *protocol.RegisterFlagParams, api ext.API, _ *generation) (any, error) {
			return nil, api.RegisterFlag(a.Name, ext.Flag{Description: a.Description, Type: a.Type, Default: a.Default})
		}),
		protocol.MethodGetFlag: withAPI(func(s *Supervisor, p *process, a *protocol.NameParams, api ext.API, _ *generation) (any, error) {
			v, _ := api.GetFlag(a.Name)
			return v, nil
		}),
		protocol.MethodRegisterProvider: withAPI(func(s *Supervisor, p *process, a *protocol.RegisterProviderParams, api ext.API, _ *generation) (any, error) {
			var cfg ext.ProviderConfig
			if err := json.Unmarshal(a.Config, &cfg); err != nil {
				return nil, fmt.Errorf("registerProvider(%q): the config does not fit the models.json provider shape: %v", a.Name, err)
			}
			if a.Stream {
				cfg.Stream = s.streamProvider(a.Name, cfg.API)
			}
			if cfg.HasLogin() {
				cfg.Login = s.providerLogin(a.Name)
			}
			if cfg.OAuth != nil {
				cfg.Refresh = s.providerRefresh(a.Name)
			}
			return nil, api.RegisterProvider(a.Name, cfg)
		}),
		protocol.MethodUnregisterProvider: withAPI(func(s *Supervisor, p *process, a *protocol.NameParams, api ext.API, _ *generation) (any, error) {
			return nil, api.UnregisterProvider(a.Name)
		}),
		protocol.MethodRegisterMessageRenderer: withAPI(func(s *Supervisor, p *process, a *protocol.RendererParams, api ext.API, _ *generation) (any, error) {
			api.RegisterMessageRenderer(a.CustomType, &remoteMessageRenderer{s: s, ref: a.Ref(), customType: a.CustomType, what: "the " + a.CustomType + " message renderer of " + s.paths[a.Ext]})
			return nil, nil
		}),
		protocol.MethodRegisterEntryRenderer: withAPI(func(s *Supervisor, p *process, a *protocol.RendererParams, api ext.API, _ *generation) (any, error) {
			api.RegisterEntryRenderer(a.CustomType, &remoteMessageRenderer{s: s, ref: a.Ref(), customType: a.CustomType, what: "the " + a.CustomType + " entry renderer of " + s.paths[a.Ext]})
			return nil, nil
		}),
		protocol.MethodSendMessage: withAPI(func(s *Supervisor, p *process, a *protocol.SendMessageParams, api ext.API, _ *generation) (any, error) {
			var msgs []ext.CustomMessage
			if err := json.Unmarshal(a.Messages, &msgs); err != nil {
				return nil, fmt.Errorf("sendMessage: %v", err)
			}
			return nil, api.SendMessages(msgs, sendOptions(a.Options))
		}),
		protocol.MethodSendUserMessage: withAPI(func(s *Supervisor, p *process, a *protocol.SendUserMessageParams, api ext.API, _ *generation) (any, error) {
			var content []llm.Content
			if err := json.Unmarshal(a.Content, &content); err != nil {
				return nil, fmt.Errorf("sendUserMessage: %v", err)
			}
			return nil, api.SendUserMessage(content, sendOptions(a.Options))
		}),
		protocol.MethodAppendEntry: withAPI(func(s *Supervisor, p *process, a *protocol.AppendEntryParams, api ext.API, _ *generation) (any, error) {
			var data any
			if len(a.Data) > 0 {
				if err := json.Unmarshal(a.Data, &data); err != nil {
					return nil, err
				}
			}
			return nil, api.AppendEntry(a.CustomType, data)
		}),
		protocol.MethodSetSessionName: withAPI(func(s *Supervisor, p *process, a *protocol.NameParams, api ext.API, _ *generation) (any, error) {
			return nil, api.SetSessionName(a.Name)
		}),
		protocol.MethodGetSessionName: withAPI(func(s *Supervisor, p *process, _ *protocol.ExtRef, api ext.API, _ *generation) (any, error) {
			return api.GetSessionName(), nil
		}),
		protocol.MethodSetLabel: withAPI(func(s *Supervisor, p *process, a *protocol.SetLabelParams, api ext.API, _ *generation) (any, error) {
			return nil, api.SetLabel(a.EntryID, a.Label)
		}),
		protocol.MethodGetCommands: withAPI(func(s *Supervisor, p *process, _ *protocol.ExtRef, api ext.API, _ *generation) (any, error) {
			return nonNil(api.GetCommands()), nil
		}),
		protocol.MethodGetActiveTools: withAPI(func(s *Supervisor, p *process, _ *protocol.ExtRef, api ext.API, _ *generation) (any, error) {
			return nonNil(api.GetActiveTools()), nil
		}),
		protocol.MethodGetAllTools: withAPI(func(s *Supervisor, p *process, _ *protocol.ExtRef, api ext.API, _ *generation) (any, error) {
			return nonNil(api.GetAllTools()), nil
		}),
		protocol.MethodSetActiveTools: withAPI(func(s *Supervisor, p *process, a *protocol.SetActiveToolsParams, api ext.API, _ *generation) (any, error) {
			return nil, api.SetActiveTools(a.Names)
		}),
		protocol.MethodSetModel: withAPI(func(s *Supervisor, p *process, a *protocol.SetModelParams, api ext.API, g *generation) (any, error) {
			g.mu.Lock()
			c := g.last
			g.mu.Unlock()
			if c == nil || c.ModelRegistry() == nil {
				return false, nil
			}
			reg := c.ModelRegistry()
			m := reg.Find(a.Provider, a.ID)
			if m == nil || !reg.HasAuth(m.Provider) {
				return false, nil
			}
			if err := api.SetModel(m); err != nil {
				return nil, err
			}
			return true, nil
		}),
		protocol.MethodGetThinkingLevel: withAPI(func(s *Supervisor, p *process, _ *protocol.ExtRef, api ext.API, _ *generation) (any, error) {
			return api.GetThinkingLevel(), nil
		}),
		protocol.MethodSetThinkingLevel: withAPI(func(s *Supervisor, p *process, a *protocol.LevelParams, api ext.API, _ *generation) (any, error) {
			return nil, api.SetThinkingLevel(a.Level)
		}),
		protocol.MethodEventsSubscribe: func(s *Supervisor, p *process, params json.RawMessage) (any, error) {
			var a protocol.EventsParams
			if err := jsonUnmarshal(params, &a); err != nil {
				return nil, err
			}
			g := s.generation(a.Gen)
			if g == nil {
				return nil, nil
			}
			api := g.anyAPI()
			g.mu.Lock()
			dup := g.forwarded[a.Channel]
			g.forwarded[a.Channel] = true
			g.mu.Unlock()
			if dup || api == nil {
				return nil, nil
			}
			channel := a.Channel
			api.Events().On(channel, func(data any) {
				if g.isOwnEmit(data) {
					return // the host's own message coming back
				}
				p := s.current(0)
				if p == nil {
					return
				}
				raw, err := json.Marshal(data)
				if err != nil {
					return
				}
				_ = p.out.Notify(protocol.MethodEventsDeliver, protocol.EventsParams{Gen: g.n, Channel: channel, Data: raw})
			})
			return nil, nil
		},
		protocol.MethodEventsEmit: func(s *Supervisor, p *process, params json.RawMessage) (any, error) {
			var a protocol.EventsParams
			if err := jsonUnmarshal(params, &a); err != nil {
				return nil, err
			}
			g := s.generation(a.Gen)
			if g == nil {
				return nil, nil
			}
			api := g.anyAPI()
			if api == nil {
				return nil, nil
			}
			var data any
			if len(a.Data) > 0 {
				_ = json.Unmarshal(a.Data, &data)
			}
			g.beginEmit(data)
			defer g.endEmit()
			api.Events().Emit(a.Channel, data)
			return nil, nil
		},

		protocol.MethodCtxInfo: simpleCtx(func(c ext.Context) (any, error) {
			return protocol.CtxInfo{Cwd: c.Cwd(), Mode: c.Mode(), HasUI: c.HasUI()}, nil
		}),
		protocol.MethodCtxModel: simpleCtx(func(c ext.Context) (any, error) {
			if m := c.Model(); m != nil {
				return m, nil
			}
			return nil, nil
		}),
		protocol.MethodCtxIsIdle:             simpleCtx(func(c ext.Context) (any, error) { return c.IsIdle(), nil }),
		protocol.MethodCtxHasPendingMessages: simpleCtx(func(c ext.Context) (any, error) { return c.HasPendingMessages(), nil }),
		protocol.MethodCtxIsProjectTrusted:   simpleCtx(func(c ext.Context) (any, error) { return c.IsProjectTrusted(), nil }),
		protocol.MethodCtxGetSystemPrompt:    simpleCtx(func(c ext.Context) (any, error) { return c.GetSystemPrompt(), nil }),
		protocol.MethodCtxAbort:              simpleCtx(func(c ext.Context) (any, error) { c.Abort(); return nil, nil }),
		protocol.MethodCtxShutdown:           simpleCtx(func(c ext.Context) (any, error) { c.Shutdown(); return nil, nil }),
		protocol.MethodCtxGetContextUsage: simpleCtx(func(c ext.Context) (any, error) {
			if u := c.GetContextUsage(); u != nil {
				return u, nil
			}
			return nil, nil
		}),
		protocol.MethodCtxCompact: func(s *Supervisor, p *process, params json.RawMessage) (any, error) {
			a, c, err := ctxCall(s, params, func(a *protocol.CompactParams) int64 { return a.Ctx })
			if err != nil {
				return nil, err
			}
			type outcome struct {
				res any
				err error
			}
			done := make(chan outcome, 1)
			err = c.Compact(ext.CompactOptions{
				CompressionRatio: a.CompressionRatio, PreserveRecent: a.PreserveRecent, Query: a.Query,
				OnComplete: func(r any) { done <- outcome{res: r} },
				OnError:    func(e error) { done <- outcome{err: e} },
			})
			if err != nil {
				return nil, err
			}
			o := <-done
			return o.res, o.err
		},
		protocol.MethodCtxSessionManager: func(s *Supervisor, p *process, params json.RawMessage) (any, error) {
			a, c, err := ctxCall(s, params, func(a *protocol.CtxCallParams) int64 { return a.Ctx })
			if err != nil {
				return nil, err
			}
			return sessionManagerCall(c.SessionManager(), a.Method, a.Args)
		},
		protocol.MethodCtxModelRegistry: func(s *Supervisor, p *process, params json.RawMessage) (any, error) {
			a, c, err := ctxCall(s, params, func(a *protocol.CtxCallParams) int64 { return a.Ctx })
			if err != nil {
				return nil, err
			}
			reg := c.ModelRegistry()
			if reg == nil {
				return nil, nil
			}
			str := func(i int) string {
				var v string
				if i < len(a.Args) {
					_ = json.Unmarshal(a.Args[i], &v)
				}
				return v
			}
			switch a.Method {
			case "find":
				if m := reg.Find(str(0), str(1)); m != nil {
					return m, nil
				}
				return nil, nil
			case "getAll":
				return nonNil(reg.All()), nil
			case "getAvailable":
				return nonNil(reg.Available()), nil
			case "hasAuth":
				return reg.HasAuth(str(0)), nil
			}
			return nil, protocol.Errorf(protocol.CodeMethodNotFound, "ctx.modelRegistry.%s is not available in atomic", a.Method)
		},
		protocol.MethodCtxGetAPIKey: func(s *Supervisor, p *process, params json.RawMessage) (any, error) {
			a, c, err := ctxCall(s, params, func(a *protocol.ProviderParams) int64 { return a.Ctx })
			if err != nil {
				return nil, err
			}
			reg := c.ModelRegistry()
			if reg == nil {
				return nil, nil
			}
			key, err := reg.APIKey(a.Provider)
			if err != nil || key == "" {
				return nil, nil
			}
			return key, nil
		},
		protocol.MethodCtxWaitForIdle: func(s *Supervisor, p *process, params json.RawMessage) (any, error) {
			var a protocol.CtxParams
			if err := jsonUnmarshal(params, &a); err != nil {
				return nil, err
			}
			cc, _, err := s.commandContext(a.Ctx, "ctx.waitForIdle")
			if err != nil {
				return nil, err
			}
			return nil, cc.WaitForIdle(context.Background())
		},
		protocol.MethodCtxNewSession: func(s *Supervisor, p *process, params json.RawMessage) (any, error) {
			var a protocol.NewSessionParams
			if err := jsonUnmarshal(params, &a); err != nil {
				return nil, err
			}
			cc, _, err := s.commandContext(a.Ctx, "ctx.newSession")
			if err != nil {
				return nil, err
			}
			cancelled, err := cc.NewSession(context.Background(), ext.NewSessionOptions{ParentSession: a.ParentSession, Setup: s.setupCallback(a.Setup), WithSession: s.callback(a.WithSession)})
			return protocol.CancelledResult{Cancelled: cancelled}, err
		},
		protocol.MethodCtxFork: func(s *Supervisor, p *process, params json.RawMessage) (any, error) {
			var a protocol.ForkParams
			if err := jsonUnmarshal(params, &a); err != nil {
				return nil, err
			}
			cc, _, err := s.commandContext(a.Ctx, "ctx.fork")
			if err != nil {
				return nil, err
			}
			cancelled, err := cc.Fork(context.Background(), a.EntryID, ext.ForkOptions{Position: a.Position, WithSession: s.callback(a.WithSession)})
			return protocol.CancelledResult{Cancelled: cancelled}, err
		},
		protocol.MethodCtxNavigateTree: func(s *Supervisor, p *process, params json.RawMessage) (any, error) {
			var a protocol.NavigateTreeParams
			if err := jsonUnmarshal(params, &a); err != nil {
				return nil, err
			}
			cc, _, err := s.commandContext(a.Ctx, "ctx.navigateTree")
			if err != nil {
				return nil, err
			}
			cancelled, err := cc.NavigateTree(context.Background(), a.TargetID, ext.NavigateOptions{Summarize: a.Summarize, CustomInstructions: a.CustomInstructions, ReplaceInstructions: a.ReplaceInstructions, Label: a.Label})
			return protocol.CancelledResult{Cancelled: cancelled}, err
		},
		protocol.MethodCtxSwitchSession: func(s *Supervisor, p *process, params json.RawMessage) (any, error) {
			var a protocol.SwitchSessionParams
			if err := jsonUnmarshal(params, &a); err != nil {
				return nil, err
			}
			cc, _, err := s.commandContext(a.Ctx, "ctx.switchSession")
			if err != nil {
				return nil, err
			}
			cancelled, err := cc.SwitchSession(context.Background(), a.SessionPath, ext.SwitchOptions{WithSession: s.callback(a.WithSession)})
			return protocol.CancelledResult{Cancelled: cancelled}, err
		},
		protocol.MethodCtxReload: func(s *Supervisor, p *process, params json.RawMessage) (any, error) {
			var a protocol.CtxParams
			if err := jsonUnmarshal(params, &a); err != nil {
				return nil, err
			}
			cc, _, err := s.commandContext(a.Ctx, "ctx.reload")
			if err != nil {
				return nil, err
			}
			return nil, cc.Reload(context.Background())
		},

		protocol.MethodBuiltinInfo:     builtinInfo,
		protocol.MethodSessionsList:    sessionsList,
		protocol.MethodMutationAcquire: mutationAcquire,
		protocol.MethodSetupSessionManager: func(s *Supervisor, p *process, params json.RawMessage) (any, error) {
			var a protocol.SetupCallParams
			if err := jsonUnmarshal(params, &a); err != nil {
				return nil, err
			}
			st, ok := setups.Load(a.Setup)
			if !ok {
				return nil, protocol.Errorf(protocol.CodeStaleContext, "setup.sessionManager: the setup callback %d has returned; its SessionManager is stale", a.Setup)
			}
			return setupCall(st.(*store.Session), a.Method, a.Args)
		},
		protocol.MethodCtxSendMessage: func(s *Supervisor, p *process, params json.RawMessage) (any, error) {
			var a protocol.CtxSendParams
			if err := jsonUnmarshal(params, &a); err != nil {
				return nil, err
			}
			cc, _, err := s.commandContext(a.Ctx, "ctx.sendMessage")
			if err != nil {
				return nil, err
			}
			var msg ext.CustomMessage
			if err := json.Unmarshal(a.Message, &msg); err != nil {
				return nil, fmt.Errorf("ctx.sendMessage: %v", err)
			}
			return nil, cc.SendMessage(msg, sendOptions(a.Options))
		},
		protocol.MethodCtxSendUserMessage: func(s *Supervisor, p *process, params json.RawMessage) (any, error) {
			var a protocol.CtxSendParams
			if err := jsonUnmarshal(params, &a); err != nil {
				return nil, err
			}
			cc, _, err := s.commandContext(a.Ctx, "ctx.sendUserMessage")
			if err != nil {
				return nil, err
			}
			var content []llm.Content
			if err := json.Unmarshal(a.Content, &content); err != nil {
				return nil, fmt.Errorf("ctx.sendUserMessage: %v", err)
			}
			return nil, cc.SendUserMessage(content, sendOptions(a.Options))
		},
		protocol.MethodMutationRelease: mutationRelease,
		protocol.MethodModels:          models,
		protocol.MethodBuiltinExecute: func(s *Supervisor, p *process, params json.RawMessage) (any, error) {
			// Without a request id (a host without cancellation): run to the end.
			return s.builtinExecute(context.Background(), p, nil, params)
		},

		protocol.MethodUISelect: uiCall(func(ctx context.Context, ui ext.UI, a *protocol.UIParams) any {
			if v, ok := ui.Select(ctx, a.Title, a.Options); ok {
				return v
			}
			return nil
		}),
		protocol.MethodUIConfirm: uiCall(func(ctx context.Context, ui ext.UI, a *protocol.UIParams) any {
			return ui.Confirm(ctx, a.Title, a.Message)
		}),
		protocol.MethodUIInput: uiCall(func(ctx context.Context, ui ext.UI, a *protocol.UIParams) any {
			if v, ok := ui.Input(ctx, a.Title, a.Placeholder); ok {
				return v
			}
			return nil
		}),
		protocol.MethodUIEditor: uiCall(func(ctx context.Context, ui ext.UI, a *protocol.UIParams) any {
			if v, ok := ui.Editor(ctx, a.Title, a.Prefill); ok {
				return v
			}
			return nil
		}),
		protocol.MethodUIGetEditorText: uiCall(func(_ context.Context, ui ext.UI, _ *protocol.UIParams) any { return ui.GetEditorText() }),
		protocol.MethodUIOnBranchChange: uiCallP(func(p *process, ui ext.UI, _ *protocol.UIParams) any {
			bw, ok := ext.UIAs[ext.BranchWatchUI](ui)
			if !ok {
				return nil // no footer: the branch never changes as far as extensions see
			}
			p.branchWatch.Do(func() {
				unsub := bw.OnBranchChange(func() { _ = p.out.Notify(protocol.MethodFooterBranchChange, nil) })
				go func() {
					<-p.done
					unsub()
				}()
			})
			return nil
		}),
		protocol.MethodUIFooterData: uiCallP(func(_ *process, ui ext.UI, _ *protocol.UIParams) any {
			d := protocol.FooterData{Statuses: map[string]string{}}
			if f, ok := ext.UIAs[ext.FooterFactsUI](ui); ok {
				facts := f.FooterFacts()
				d.GitBranch = facts.GitBranch
				for k, v := range facts.Statuses {
					d.Statuses[k] = v
				}
			}
			return d
		}),
		protocol.MethodUINotify: uiCall(func(_ context.Context, ui ext.UI, a *protocol.UIParams) any {
			ui.Notify(a.Message, a.Type)
			return nil
		}),
		protocol.MethodUISetStatus: uiCall(func(_ context.Context, ui ext.UI, a *protocol.UIParams) any {
			ui.SetStatus(a.Key, a.Text)
			return nil
		}),
		protocol.MethodUISetWidget: uiCallP(func(p *process, ui ext.UI, a *protocol.UIParams) any {
			if a.Component != 0 {
				placement := a.Placement
				if placement == "" {
					placement = ext.WidgetAboveEditor
				}
				ext.SetWidgetComponent(ui, a.Key, p.newRemote(a.Component, nil).factory, placement)
				return nil
			}
			if a.Placement != "" {
				ext.SetWidgetAt(ui, a.Key, a.Lines, a.Placement)
			} else {
				ui.SetWidget(a.Key, a.Lines)
			}
			return nil
		}),
		protocol.MethodUISetWorkingMessage: uiCall(func(_ context.Context, ui ext.UI, a *protocol.UIParams) any {
			ext.SetWorkingMessage(ui, a.Message)
			return nil
		}),
		protocol.MethodUISetWorkingVisible: uiCall(func(_ context.Context, ui ext.UI, a *protocol.UIParams) any {
			ext.SetWorkingVisible(ui, a.Visible)
			return nil
		}),
		protocol.MethodUISetWorkingIndicator: uiCall(func(_ context.Context, ui ext.UI, a *protocol.UIParams) any {
			var ind *ext.WorkingIndicator
			if w := a.Indicator; w != nil {
				ind = &ext.WorkingIndicator{Interval: time.Duration(w.IntervalMs) * time.Millisecond}
				if w.HasFrames {
					ind.Frames = append([]string{}, w.Frames...)
				}
			}
			ext.SetWorkingIndicator(ui, ind)
			return nil
		}),
		protocol.MethodUISetFooter: uiCallP(func(p *process, ui ext.UI, a *protocol.UIParams) any {
			ext.SetFooterComponent(ui, p.remoteFactory(a.Component))
			return nil
		}),
		protocol.MethodUISetHeader: uiCallP(func(p *process, ui ext.UI, a *protocol.UIParams) any {
			ext.SetHeaderComponent(ui, p.remoteFactory(a.Component))
			return nil
		}),
		protocol.MethodUIComponentInvalidate: componentCall((*remote).invalidated),
		protocol.MethodUIComponentDone:       componentCall((*remote).done),
		protocol.MethodUIComponentControl: func(s *Supervisor, p *process, params json.RawMessage) (any, error) {
			var a protocol.ComponentParams
			if err := jsonUnmarshal(params, &a); err != nil {
				return nil, err
			}
			if v, ok := p.comps.Load(a.Component); ok {
				v.(*remote).controlled(a.Action)
			}
			return nil, nil
		},
		protocol.MethodUISetTitle: uiCall(func(_ context.Context, ui ext.UI, a *protocol.UIParams) any {
			ui.SetTitle(a.Title)
			return nil
		}),
		protocol.MethodUISetEditorText: uiCall(func(_ context.Context, ui ext.UI, a *protocol.UIParams) any {
			ui.SetEditorText(a.Text)
			return nil
		}),
	}
}

func uiCall(fn func(ctx context.Context, ui ext.UI, a *protocol.UIParams) any) handlerFunc {
	return func(s *Supervisor, p *process, params json.RawMessage) (any, error) {
		a, c, err := ctxCall(s, params, func(a *protocol.UIParams) int64 { return a.Ctx })
		if err != nil {
			return nil, err
		}
		ctx, cancel := dialogContext(a.Timeout)
		defer cancel()
		// The user's time is not the handler's: a dispatch waiting for this dialog is not timed
		// out meanwhile (extensionHandlerTimeoutMs).
		defer p.holdDialog(a.Ctx)()
		return fn(ctx, c.UI(), a), nil
	}
}

// uiCallP is uiCall for the component methods, which need the process the component lives in.
func uiCallP(fn func(p *process, ui ext.UI, a *protocol.UIParams) any) handlerFunc {
	return func(s *Supervisor, p *process, params json.RawMessage) (any, error) {
		a, c, err := ctxCall(s, params, func(a *protocol.UIParams) int64 { return a.Ctx })
		if err != nil {
			return nil, err
		}
		return fn(p, c.UI(), a), nil
	}
}

// callback is the withSession function of a session-replacing call: it runs host callback id
// with a command context of the new session.
func (s *Supervisor) callback(id *int) func(context.Context, ext.CommandContext) error {
	if id == nil {
		return nil
	}
	cb := *id
	return func(ctx context.Context, c ext.CommandContext) error {
		p, err := s.ensure()
		if err != nil {
			return err
		}
		s.mu.Lock()
		g := s.gen
		s.mu.Unlock()
		ctxID := g.enter(c)
		defer g.leave(ctxID)
		_, err = p.call(ctx, protocol.MethodCallback, protocol.CallbackParams{Callback: cb, Ctx: ctxID}, "a withSession callback", nil)
		if err != nil {
			return errors.New(errorText(err))
		}
		return nil
	}
}

func sendOptions(o protocol.SendOptions) ext.SendOptions {
	return ext.SendOptions{DeliverAs: o.DeliverAs, TriggerTurn: o.TriggerTurn, ExcludeFromContext: o.ExcludeFromContext}
}

// nonNil turns a nil slice into an empty one, so it encodes as [] rather than null.
func nonNil[T any](v []T) []T {
	if v == nil {
		return []T{}
	}
	return v
}

// sessionManagerCall is one method of pi's ReadonlySessionManager on a SessionView.
func sessionManagerCall(sv ext.SessionView, method string, args []json.RawMessage) (any, error) {
	if sv == nil {
		return nil, ext.ErrNoSession
	}
	str := func(i int) string {
		var v string
		if i < len(args) {
			_ = json.Unmarshal(args[i], &v)
		}
		return v
	}
	orNull := func(s string) any {
		if s == "" {
			return nil
		}
		return s
	}
	entry := func(e *store.Entry) any {
		if e == nil {
			return nil
		}
		return e
	}
	switch method {
	case "getEntries":
		return nonNil(sv.Entries()), nil
	case "getBranch":
		return nonNil(sv.Branch(str(0))), nil
	case "getLeafId":
		return orNull(sv.LeafID()), nil
	case "getLeafEntry":
		return entry(sv.LeafEntry()), nil
	case "getEntry":
		return entry(sv.Entry(str(0))), nil
	case "getChildren":
		return nonNil(sv.Children(str(0))), nil
	case "getLabel":
		return orNull(sv.Label(str(0))), nil
	case "getTree":
		return nonNil(sv.Tree()), nil
	case "getHeader":
		return sv.Header(), nil
	case "getSessionName":
		return orNull(sv.SessionName()), nil
	case "getCwd":
		return sv.Cwd(), nil
	case "getSessionDir":
		return sv.SessionDir(), nil
	case "getSessionId":
		return sv.SessionID(), nil
	case "getSessionFile":
		return orNull(sv.SessionFile()), nil
	case "isPersisted":
		return sv.IsPersisted(), nil
	case "buildSessionContext":
		return sv.BuildContext(), nil
	}
	return nil, protocol.Errorf(protocol.CodeMethodNotFound, "ctx.sessionManager.%s is not available in atomic", method)
}

// sameValue reports whether a and b are the same value: identical references for maps, slices
// and pointers, equal values for comparable kinds.
func sameValue(a, b any) bool {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	if !va.IsValid() || !vb.IsValid() {
		return !va.IsValid() && !vb.IsValid()
	}
	if va.Type() != vb.Type() {
		return false
	}
	switch va.Kind() {
	case reflect.Map, reflect.Slice, reflect.Pointer:
		return va.UnsafePointer() == vb.UnsafePointer()
	}
	return va.Comparable() && va.Equal(vb)
}
