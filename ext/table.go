package ext

import (
	"encoding/json"
	"reflect"
	"strings"
)

// Combine says how the results of several handlers of one event are folded (events.md, Combine
// codes).
type Combine int

// Combine rules.
const (
	// Notify runs every handler and ignores their results (N).
	Notify Combine = iota
	// Chain feeds each handler the output of the previous one (CH).
	Chain
	// ChainPatch applies each handler's partial result over the current values; omitted
	// fields keep theirs (CHP).
	ChainPatch
	// Accumulate concatenates the results of every handler in order (ACC).
	Accumulate
	// FirstWins stops at the first decisive result (FW).
	FirstWins
	// LastWins keeps the last result that sets at least one field, as a whole (LW).
	LastWins
	// Veto stops at the first cancel or block; otherwise the last result wins (SC).
	Veto
)

var combineNames = [...]string{"notify", "chain", "chain-patch", "accumulate", "first-wins", "last-wins", "veto"}

// String returns the rule's name as `atomic events --json` writes it.
func (c Combine) String() string { return combineNames[c] }

// MarshalJSON writes the rule's name.
func (c Combine) MarshalJSON() ([]byte, error) { return json.Marshal(c.String()) }

// ErrorPolicy says what a handler's error or panic does (events.md, Error codes).
type ErrorPolicy int

// Error policies.
const (
	// Isolate reports the error to the runner's error listeners and runs the next handler (ISO).
	Isolate ErrorPolicy = iota
	// FailClosed turns the error into a veto of the operation (FC).
	FailClosed
)

// String returns the policy's name.
func (p ErrorPolicy) String() string {
	if p == FailClosed {
		return "fail-closed"
	}
	return "isolate"
}

// MarshalJSON writes the policy's name.
func (p ErrorPolicy) MarshalJSON() ([]byte, error) { return json.Marshal(p.String()) }

// Spec is one row of the event table.
type Spec struct {
	ID      EventID  `json:"-"`
	Name    string   `json:"name"`
	Aliases []string `json:"aliases,omitempty"`
	// Systems lists which reference systems define the event: A (Atomic), O (oh-my-pi), P (pi).
	Systems string      `json:"systems"`
	Family  string      `json:"family"`
	Combine Combine     `json:"combine"`
	Errors  ErrorPolicy `json:"errors"`
	// Awaited is false for fire-and-forget events, which are delivered in order on the runner's
	// notification queue without blocking the emitter.
	Awaited bool `json:"awaited"`
	// Buffer is the number of events kept (drop-oldest) while the runner is not bound yet;
	// 0 means no buffering: such events reach the handlers subscribed at the time, bound or not
	// (session_directory and project_trust fire before any session exists).
	Buffer int `json:"buffer,omitempty"`
	// Concurrent events run all their handlers at once and wait for each at most
	// ConcurrentTimeout (events.md §4 row 6: session_shutdown).
	Concurrent bool `json:"concurrent,omitempty"`
	// Cap is an event-specific bound named by the spec (session_stop continuations).
	Cap int `json:"cap,omitempty"`
	// Emitted says whether atomic emits the event yet; false rows have their table entry and a
	// runner test only, until their subsystem exists.
	Emitted bool `json:"emitted"`
	// Queued events reach a child-process host (one that accepts them) as notifications run in
	// order from the host's event queue, behind the loop: their results are ignored (events.md
	// §1.2, docs/extension-protocol.md "Queued events").
	Queued bool `json:"queued,omitempty"`
	// Barrier events catch the loop up with the child hosts' event queues: before dispatching one,
	// the core waits until a host has run every queued event sent so far. A fail-closed barrier
	// waits at most half the guard timeout and reports no queued failure (it never blocks a call).
	Barrier bool `json:"barrier,omitempty"`
	// Ordered events' handlers in a child host start only after the queued events sent before
	// them have run (the loop emitted those first). Events a host call may cause while a queued
	// handler awaits it (model_select after pi.setModel) are not ordered, or the two would wait
	// for each other.
	Ordered bool `json:"ordered,omitempty"`
	// Editable lists the payload fields (JSON names) handlers may edit in place, as pi applies
	// such edits; a child host reports them back (the `mutated` member of an event result).
	Editable []string `json:"editable,omitempty"`
	// Signal events carry the dispatch's AbortSignal in their payload as `signal` (seed 004:
	// session_before_compact, session_before_tree); a child host adds it, aborted when the
	// dispatch is cancelled.
	Signal bool `json:"signal,omitempty"`
	// Frozen lists the payload fields (JSON names) a child host hands to handlers deep-frozen
	// (seed 004: session_before_compact's preparation).
	Frozen []string `json:"frozen,omitempty"`
	// Stream is the event's name on the front-end stream (session.Event.Type, the "type" JSON and
	// RPC modes write), "" when front-ends do not receive it. It differs from Name where pi's
	// protocol names the fact differently (model_select is model_changed on the wire).
	Stream string `json:"stream,omitempty"`
	// Doc says in one line when the event fires.
	Doc string `json:"doc"`

	Payload reflect.Type `json:"-"`
	Result  reflect.Type `json:"-"`
}

// EventID indexes the event table; IDs are dense, from 0 to len(Table)-1.
type EventID int

// byName maps every event name and alias to its id.
var byName = func() map[string]EventID {
	m := make(map[string]EventID, len(Table)*2)
	for i := range Table {
		Table[i].ID = EventID(i)
		m[Table[i].Name] = EventID(i)
		for _, a := range Table[i].Aliases {
			m[a] = EventID(i)
		}
	}
	return m
}()

// Lookup returns the spec of an event by name or alias.
func Lookup(name string) (*Spec, bool) {
	id, ok := byName[name]
	if !ok {
		return nil, false
	}
	return &Table[id], true
}

// fieldDoc describes one JSON field of a payload or result for the exported table.
type fieldDoc struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Optional bool   `json:"optional,omitempty"`
}

type specJSON struct {
	Spec
	PayloadFields []fieldDoc `json:"payload"`
	ResultFields  []fieldDoc `json:"result,omitempty"`
}

// TableJSON returns the event table as `atomic events --json` prints it: one object per event
// with its rules and the JSON fields of its payload and result.
func TableJSON() ([]byte, error) {
	out := make([]specJSON, len(Table))
	for i, s := range Table {
		out[i] = specJSON{Spec: s, PayloadFields: fieldsOf(s.Payload), ResultFields: fieldsOf(s.Result)}
	}
	return json.MarshalIndent(out, "", "  ")
}

func fieldsOf(t reflect.Type) []fieldDoc {
	if t == nil {
		return nil
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	var out []fieldDoc
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" && f.Anonymous {
			// An untagged embedded struct's fields are promoted into the object, as
			// encoding/json writes them (CompactionStart{CompactionStatus}, UIPromptStart…).
			if ft := f.Type; ft.Kind() == reflect.Struct || (ft.Kind() == reflect.Pointer && ft.Elem().Kind() == reflect.Struct) {
				out = append(out, fieldsOf(ft)...)
				continue
			}
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, fieldDoc{Name: name, Type: typeName(f.Type), Optional: strings.Contains(opts, "omitempty") || f.Type.Kind() == reflect.Pointer})
	}
	return out
}

func typeName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Pointer:
		return typeName(t.Elem())
	case reflect.Slice:
		return "[]" + typeName(t.Elem())
	case reflect.Map:
		return "map[" + typeName(t.Key()) + "]" + typeName(t.Elem())
	case reflect.Interface:
		return "any"
	}
	if t.Name() != "" {
		return t.Name()
	}
	return t.String()
}
