package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/atomic-cli/atomic/ext/protocol"
	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/store"
)

// ctx.newSession({ setup }) from a host (seed 004): the setup callback runs in the host with a
// SessionManager of the new session's store, whose calls come back as setup.sessionManager
// while the callback runs.

var (
	setupSeq atomic.Int64
	setups   sync.Map // setup id -> *store.Session, while its callback runs
)

// setupCallback returns the Setup of ext.NewSessionOptions for the host callback id (nil: none).
func (s *Supervisor) setupCallback(id *int) func(st *store.Session) error {
	if id == nil {
		return nil
	}
	cb := *id
	return func(st *store.Session) error {
		p, err := s.ensure()
		if err != nil {
			return err
		}
		sid := setupSeq.Add(1)
		setups.Store(sid, st)
		defer setups.Delete(sid)
		if _, err := p.call(context.Background(), protocol.MethodCallback, protocol.CallbackParams{Callback: cb, Setup: sid}, "a newSession setup callback", nil); err != nil {
			return errors.New(errorText(err))
		}
		return nil
	}
}

// setupCall is one SessionManager method on the new session's store: the read methods of
// ctx.sessionManager, and pi's appendMessage, appendCustomEntry, appendCustomMessageEntry,
// appendSessionInfo, appendLabelChange, appendThinkingLevelChange and appendModelChange, which
// answer the new entry's id.
func setupCall(st *store.Session, method string, args []json.RawMessage) (any, error) {
	arg := func(i int, v any) error {
		if i >= len(args) {
			return protocol.Errorf(protocol.CodeInvalidParams, "sessionManager.%s: argument %d is missing", method, i+1)
		}
		if err := json.Unmarshal(args[i], v); err != nil {
			return protocol.Errorf(protocol.CodeInvalidParams, "sessionManager.%s: argument %d: %v", method, i+1, err)
		}
		return nil
	}
	str := func(i int) string {
		var v string
		if i < len(args) {
			_ = json.Unmarshal(args[i], &v)
		}
		return v
	}
	switch method {
	case "appendMessage":
		var m llm.Message
		if err := arg(0, &m); err != nil {
			return nil, err
		}
		return st.AppendMessage(m)
	case "appendCustomEntry":
		var data any
		if len(args) > 1 {
			_ = json.Unmarshal(args[1], &data)
		}
		return st.AppendCustomEntry(str(0), data)
	case "appendCustomMessageEntry":
		var m store.CustomMessage
		m.CustomType = str(0)
		if len(args) > 1 {
			var text string
			if json.Unmarshal(args[1], &text) == nil {
				m.Content, m.ContentIsString = []llm.Content{llm.Text(text)}, true
			} else if err := json.Unmarshal(args[1], &m.Content); err != nil {
				return nil, protocol.Errorf(protocol.CodeInvalidParams, "sessionManager.appendCustomMessageEntry: content: %v", err)
			}
		}
		if len(args) > 2 {
			_ = json.Unmarshal(args[2], &m.Display)
		}
		if len(args) > 3 {
			_ = json.Unmarshal(args[3], &m.Details)
		}
		return st.AppendCustomMessageEntry(m)
	case "appendSessionInfo":
		return st.AppendSessionInfo(str(0))
	case "appendLabelChange":
		return st.AppendLabelChange(str(0), str(1))
	case "appendThinkingLevelChange":
		return st.AppendThinkingLevelChange(str(0))
	case "appendModelChange":
		return st.AppendModelChange(str(0), str(1))
	}
	res, err := sessionManagerCall(st, method, args)
	if err != nil {
		return nil, fmt.Errorf("setup: %w", err)
	}
	return res, nil
}
