package ext

// Model calls made by extensions themselves (pi-ai's stream, complete, streamSimple and
// completeSimple, which pi's example extensions use for summaries, handoffs and custom
// compaction): routed to the runtime's providers and credentials, so an extension never needs an
// API key of its own.

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/model"
)

// ModelStreamer is implemented by a Host that streams model calls of extensions with the
// session's HTTP client, credentials and retry settings. req.Model must be set; an empty
// req.APIKey takes the registry's credential of the model's provider. The result follows
// llm.Provider's contract: a failure is an assistant message with stop reason error, a
// cancelled ctx one with stop reason aborted.
type ModelStreamer interface {
	StreamModel(ctx context.Context, req *llm.Request, emit func(llm.Event)) llm.Message
}

// ModelRegistry returns the model registry the extension's providers join (SetModelRegistry,
// else the session's), or nil when there is none.
func (a *api) ModelRegistry() *model.Registry {
	r := a.runner
	r.prov.mu.Lock()
	defer r.prov.mu.Unlock()
	return r.modelRegistry()
}

// StreamModel streams one assistant message for req on the extension's behalf: through the
// session when it is a ModelStreamer, else straight to the provider of req.Model.API with the
// registry's credential and headers (no retry).
func (a *api) StreamModel(ctx context.Context, req *llm.Request, emit func(llm.Event)) llm.Message {
	if h := a.liveHost(); h != nil {
		if ms, ok := h.(ModelStreamer); ok {
			return ms.StreamModel(ctx, req, emit)
		}
	}
	return StreamDirect(ctx, a.ModelRegistry(), req, emit)
}

// StreamDirect streams req with the provider registered for req.Model.API, filling an empty
// APIKey and the headers from reg (nil: none). Errors are assistant messages, as from a
// provider: an unknown API or a missing credential ends the stream with an error event.
func StreamDirect(ctx context.Context, reg *model.Registry, req *llm.Request, emit func(llm.Event)) llm.Message {
	if req.Model == nil {
		return FailedMessage(req, errors.New("no model"), emit)
	}
	p, err := llm.ProviderFor(req.Model.API)
	if err != nil {
		return FailedMessage(req, fmt.Errorf("model %s/%s: %w", req.Model.Provider, req.Model.ID, err), emit)
	}
	if reg != nil {
		if req.APIKey == "" {
			if key, err := reg.APIKey(req.Model.Provider); err == nil {
				req.APIKey = key
			}
		}
		req.Headers = MergeHeaders(reg.Headers(req.Model), req.Headers)
	}
	return p.Stream(ctx, req, emit)
}

// MergeHeaders returns base with over's entries set over it, as a new map (nil when both are
// empty).
func MergeHeaders(base, over map[string]string) map[string]string {
	if len(base)+len(over) == 0 {
		return nil
	}
	out := make(map[string]string, len(base)+len(over))
	maps.Copy(out, base)
	maps.Copy(out, over)
	return out
}

// failedMessage emits and returns the error message of a request that could not start.
func FailedMessage(req *llm.Request, err error, emit func(llm.Event)) llm.Message {
	m := llm.Message{Role: llm.RoleAssistant, StopReason: llm.StopError, ErrorMessage: err.Error(), Content: []llm.Content{}, Timestamp: time.Now().UnixMilli()}
	if req.Model != nil {
		m.API, m.Provider, m.Model = req.Model.API, req.Model.Provider, req.Model.ID
	}
	if emit != nil {
		emit(llm.Event{Type: llm.EventError, Reason: llm.StopError, Message: &m})
	}
	return m
}

// ModelCallOptions are the per-call settings of an extension's model call (pi-ai's
// StreamOptions maxRetries, maxRetryDelayMs and timeoutMs) that a ModelStreamer applies on top
// of the session's retry settings. nil pointers and a zero Timeout keep the session's behaviour.
type ModelCallOptions struct {
	// MaxRetries is the number of retries of a transient failure (0: none), whether or not
	// automatic retry is enabled in the settings.
	MaxRetries *int
	// MaxRetryDelay is the longest server-requested wait (retry-after) that is honoured; a longer
	// one fails the call at once. 0 means no cap.
	MaxRetryDelay *time.Duration
	// Timeout bounds each attempt's wait for the response headers; past it the attempt fails
	// with a "timed out" error, which is retried like a stalled stream.
	Timeout time.Duration
}

type callOptionsKey struct{}

// WithModelCallOptions returns ctx carrying o for the StreamModel call made with it.
func WithModelCallOptions(ctx context.Context, o ModelCallOptions) context.Context {
	return context.WithValue(ctx, callOptionsKey{}, o)
}

// ModelCallOptionsOf returns the ModelCallOptions stored in ctx (the zero value when none).
func ModelCallOptionsOf(ctx context.Context) ModelCallOptions {
	o, _ := ctx.Value(callOptionsKey{}).(ModelCallOptions)
	return o
}

type dispatchKey struct{}

// WithDispatchContext returns ctx carrying c, the extension context of a call that does not come
// from an event dispatch (a provider login started from RPC): hosts resolve UI dialogs of the
// call against it. DispatchContext reads it (nil when absent).
func WithDispatchContext(ctx context.Context, c Context) context.Context {
	return context.WithValue(ctx, dispatchKey{}, c)
}

// DispatchContext returns the extension context WithDispatchContext stored in ctx, or nil.
func DispatchContext(ctx context.Context) Context {
	c, _ := ctx.Value(dispatchKey{}).(Context)
	return c
}
