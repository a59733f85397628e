package session

// Session state and operations the headless front-ends need beyond the extension Host API: the
// queue modes, model and thinking-level cycling, fork candidates and the last answer
// (rpc-and-json.md §3.2–§3.6).

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/atomic-cli/atomic/agent"
	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/model"
	"github.com/atomic-cli/atomic/store"
)

// ErrAlreadyProcessing is the error of an RPC prompt sent while the agent streams without a
// streamingBehavior (rpc-and-json.md §3.1); the text is pi's.
var ErrAlreadyProcessing = errors.New("Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message.")

// Registry returns the model registry the session resolves keys with; nil for a replay session.
func (s *Session) Registry() *model.Registry { return s.reg }

// IsStreaming reports whether a run is in progress.
func (s *Session) IsStreaming() bool { return s.agent.IsRunning() || s.IsRetrying() }

// IsExtensionCommand reports whether text invokes a command an extension registered ("/name …").
func (s *Session) IsExtensionCommand(text string) bool {
	name, _, ok := parseCommand(text)
	if !ok {
		return false
	}
	_, _, found := s.runner.Command(name)
	return found
}

// SteeringMode and FollowUpMode return the queue delivery modes ("all" or "one-at-a-time").
func (s *Session) SteeringMode() string { return string(s.agent.Config().SteeringMode) }

// FollowUpMode returns the follow-up queue delivery mode.
func (s *Session) FollowUpMode() string { return string(s.agent.Config().FollowUpMode) }

// SetSteeringMode sets how many steering messages are delivered at once.
func (s *Session) SetSteeringMode(mode string) error {
	m, err := queueMode(mode)
	if err != nil {
		return err
	}
	s.agent.Configure(func(c *agent.Config) { c.SteeringMode = m })
	return nil
}

// SetFollowUpMode sets how many follow-up messages are delivered at once.
func (s *Session) SetFollowUpMode(mode string) error {
	m, err := queueMode(mode)
	if err != nil {
		return err
	}
	s.agent.Configure(func(c *agent.Config) { c.FollowUpMode = m })
	return nil
}

func queueMode(mode string) (agent.QueueMode, error) {
	switch agent.QueueMode(mode) {
	case agent.All, agent.OneAtATime:
		return agent.QueueMode(mode), nil
	}
	return "", fmt.Errorf("invalid queue mode %q: use \"all\" or \"one-at-a-time\"", mode)
}

// PendingMessageCount is the number of queued steering and follow-up messages.
func (s *Session) PendingMessageCount() int {
	steer, follow := s.agent.QueuedMessages()
	return len(steer) + len(follow)
}

// ClearQueue removes the queued steering and follow-up messages and returns their texts.
func (s *Session) ClearQueue() (steering, followUp []string) {
	st, fu := s.agent.ClearQueues()
	steering, followUp = []string{}, []string{}
	for _, m := range st {
		steering = append(steering, llm.TextOf(m.Content, ""))
	}
	for _, m := range fu {
		followUp = append(followUp, llm.TextOf(m.Content, ""))
	}
	return steering, followUp
}

// AvailableThinkingLevels lists the levels the model can use, in cycle order: only "off" for a
// model without reasoning; xhigh only when its compat sets supportsXhigh.
func (s *Session) AvailableThinkingLevels() []string {
	m := s.Model()
	if m == nil || !m.Reasoning {
		return []string{llm.ThinkingOff}
	}
	var out []string
	for _, l := range llm.ThinkingLevels {
		if llm.ClampThinkingLevel(m, l) == l {
			out = append(out, l)
		}
	}
	return out
}

// CycleThinkingLevel moves to the next available level; ok is false (and nothing changes) when
// the model has no reasoning.
func (s *Session) CycleThinkingLevel() (level string, ok bool, err error) {
	if m := s.Model(); m == nil || !m.Reasoning {
		return "", false, nil
	}
	levels := s.AvailableThinkingLevels()
	cur := s.ThinkingLevel()
	next := levels[0]
	for i, l := range levels {
		if l == cur {
			next = levels[(i+1)%len(levels)]
		}
	}
	if err := s.SetThinkingLevel(next); err != nil {
		return "", false, err
	}
	return s.ThinkingLevel(), true, nil
}

// UsableModels returns the authenticated models whose wire API atomic speaks, in registry order;
// a session without a registry (replay) offers its own model only.
func (s *Session) UsableModels() []*llm.Model {
	if s.reg == nil {
		return []*llm.Model{s.Model()}
	}
	var out []*llm.Model
	for _, m := range s.reg.Available() {
		if _, err := ProviderFor(m.API); err == nil {
			out = append(out, m)
		}
	}
	return out
}

// ModelCycle is the outcome of CycleModel.
type ModelCycle struct {
	Model         *llm.Model `json:"model"`
	ThinkingLevel string     `json:"thinkingLevel"`
	IsScoped      bool       `json:"isScoped"`
}

// CycleModel switches to the next (direction "forward" or "") or previous ("backward") model of
// the runtime's scoped models (Runtime.SetScopedModels), or of the usable models when none are
// scoped, as pi's cycleModel; nil when fewer than two models are in the list.
func (s *Session) CycleModel(direction string) (*ModelCycle, error) {
	if direction != "" && direction != "forward" && direction != "backward" {
		return nil, fmt.Errorf("invalid direction %q: use \"forward\" or \"backward\"", direction)
	}
	models, scoped := s.cycleModels()
	if len(models) < 2 {
		return nil, nil
	}
	cur := s.Model()
	idx := 0
	for i, m := range models {
		if m.Provider == cur.Provider && m.ID == cur.ID {
			idx = i
		}
	}
	n := len(models)
	if direction == "backward" {
		idx = (idx - 1 + n) % n
	} else {
		idx = (idx + 1) % n
	}
	if err := s.setModel(models[idx], "cycle"); err != nil {
		return nil, err
	}
	return &ModelCycle{Model: models[idx], ThinkingLevel: s.ThinkingLevel(), IsScoped: scoped}, nil
}

// ForkMessage is a user message a fork can start from (get_fork_messages).
type ForkMessage struct {
	EntryID string `json:"entryId"`
	Text    string `json:"text"`
}

// UserMessagesForForking lists the user message entries with text, in append order.
func (s *Session) UserMessagesForForking() []ForkMessage {
	out := []ForkMessage{}
	for _, e := range s.store.Entries() {
		if e.Type != store.TypeMessage || e.Role() != llm.RoleUser || e.Message == nil {
			continue
		}
		if text := llm.TextOf(e.Message.Content, ""); text != "" {
			out = append(out, ForkMessage{EntryID: e.ID, Text: text})
		}
	}
	return out
}

// EntryText returns the text of a user message entry; ok is false for any other entry.
func (s *Session) EntryText(entryID string) (text string, ok bool) {
	e := s.store.Entry(entryID)
	if e == nil || e.Type != store.TypeMessage || e.Role() != llm.RoleUser || e.Message == nil {
		return "", false
	}
	return llm.TextOf(e.Message.Content, ""), true
}

// LastAssistantText returns the trimmed text of the last assistant message (skipping aborted
// ones without content); ok is false when there is none or it has no text.
func (s *Session) LastAssistantText() (string, bool) {
	msgs := s.agent.Messages()
	for i := len(msgs) - 1; i >= 0; i-- {
		m := &msgs[i]
		if m.Role != llm.RoleAssistant || (m.StopReason == llm.StopAborted && len(m.Content) == 0) {
			continue
		}
		var b strings.Builder
		for _, c := range m.Content {
			if c.Type == llm.ContentText {
				b.WriteString(c.Text)
			}
		}
		text := strings.TrimSpace(b.String())
		return text, text != ""
	}
	return "", false
}

// InvokeShortcut runs the handler of the extension shortcut bound to key.
func (s *Session) InvokeShortcut(ctx context.Context, key string) error {
	if err := s.live("invokeShortcut"); err != nil {
		return err
	}
	sc, ok := s.runner.Shortcut(key)
	if !ok {
		return fmt.Errorf("Shortcut not found: %s", key)
	}
	return safeShortcut(ctx, sc, s.newContext(ctx))
}

func safeShortcut(ctx context.Context, sc ext.Shortcut, c ext.Context) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("shortcut handler panicked: %v", p)
		}
	}()
	return sc.Handler(ctx, c)
}

// Clone duplicates the active branch into a new session file at the current leaf (RPC clone):
// a fork at the leaf with position "at". It fails when the session has no entry yet.
func (rt *Runtime) Clone(ctx context.Context) (cancelled bool, err error) {
	leaf := rt.Session().store.LeafID()
	if leaf == "" {
		return false, errors.New("Cannot clone session: no current entry selected")
	}
	return rt.Fork(ctx, leaf, ext.ForkOptions{Position: "at"})
}
