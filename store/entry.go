package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/atomic-cli/atomic/llm"
)

// CurrentVersion is the session file format version this package writes and the newest it
// reads (session-format.md §3, §9).
const CurrentVersion = 3

// Entry types (session-format.md §5). TypeSession is the header line, not an Entry.
const (
	TypeSession             = "session"
	TypeMessage             = "message"
	TypeModelChange         = "model_change"
	TypeThinkingLevelChange = "thinking_level_change"
	TypeCompaction          = "compaction"
	TypeBranchSummary       = "branch_summary"
	TypeCustom              = "custom"
	TypeCustomMessage       = "custom_message"
	TypeLabel               = "label"
	TypeSessionInfo         = "session_info"
	// TypeSessionSummary is Atomic's one-line resume-picker summary (§5.10); never sent to the LLM.
	TypeSessionSummary = "session_summary"
	// TypeContextWindowChange is Atomic's documented-only context window change (§5.10); it is
	// read and kept but ignored for context.
	TypeContextWindowChange = "context_window_change"
)

// Field is one JSON object member this package does not interpret, kept with its raw value so it
// is written back unchanged.
type Field struct {
	Key   string          // member name
	Value json.RawMessage // member value as written
}

// Header is the first line of a session file (session-format.md §3):
//
//	{"type":"session","version":3,"id":"…","timestamp":"2026-05-01T09:30:12.345Z","cwd":"/abs/project"}
//
// A missing (or null) version reads as 1, a legacy file. Timestamp is ISO-8601 UTC with
// milliseconds. Members this type does not know (Atomic's internal and workflow, older pi
// fields) are kept in Extra, in file order, and written after the known ones.
type Header struct {
	Type          string  // always "session"
	Version       int     // format version, 1 when absent
	ID            string  // session id
	Timestamp     string  // creation time, ISO-8601 UTC
	Cwd           string  // working directory the session belongs to
	ParentSession string  // source session file of a fork or clone, "" when none
	Extra         []Field // unknown members in file order
}

// MarshalJSON writes the header in pi's member order; ParentSession is omitted when empty.
func (h Header) MarshalJSON() ([]byte, error) { return h.appendJSON(nil), nil }

func (h *Header) appendJSON(dst []byte) []byte {
	w := objw{buf: dst}
	w.str("type", TypeSession)
	if h.Version != 0 {
		w.int("version", int64(h.Version))
	}
	w.str("id", h.ID)
	w.str("timestamp", h.Timestamp)
	w.str("cwd", h.Cwd)
	if h.ParentSession != "" {
		w.str("parentSession", h.ParentSession)
	}
	w.extra(h.Extra)
	return w.close()
}

// UnmarshalJSON reads a header line. It fails unless the object has "type":"session" and a
// string "id" (session-format.md §2).
func (h *Header) UnmarshalJSON(b []byte) error {
	fields, ok := parseObject(append([]byte(nil), b...), nil)
	if !ok {
		return errors.New("store: header is not a JSON object")
	}
	return h.decode(fields)
}

func (h *Header) decode(fields []field) error {
	*h = Header{}
	var typeOK, idOK bool
	for i := range fields {
		f := &fields[i]
		k := f.name()
		if isNull(f.val) && k != "type" && k != "id" {
			continue // JSON.parse readers treat a null member like an absent one
		}
		ok := true
		switch k {
		case "type":
			h.Type, ok = rawString(f.val)
			typeOK = ok && h.Type == TypeSession
		case "version":
			var v int64
			v, ok = rawInt(f.val)
			h.Version = int(v)
		case "id":
			h.ID, ok = rawString(f.val)
			idOK = ok
		case "timestamp":
			h.Timestamp, ok = rawString(f.val)
		case "cwd":
			h.Cwd, ok = rawString(f.val)
		case "parentSession":
			h.ParentSession, ok = rawString(f.val)
		default:
			h.Extra = append(h.Extra, Field{Key: k, Value: json.RawMessage(f.val)})
			continue
		}
		if !ok && k != "type" && k != "id" {
			return fmt.Errorf("store: header member %q has an unexpected JSON type", k)
		}
	}
	if !typeOK || !idOK {
		return errNotHeader
	}
	if h.Version == 0 {
		h.Version = 1
	}
	return nil
}

// Workflow is Atomic's workflow marker of an internal session header (session-format.md §3).
type Workflow struct {
	RunID     string `json:"runId"`     // workflow run
	StageID   string `json:"stageId"`   // stage within the run
	StageName string `json:"stageName"` // display name of the stage
}

// Internal reports whether the header marks a workflow-owned session that Atomic hides from
// normal history: "internal" is exactly true and "workflow" has three non-empty strings
// (session-format.md §3). The workflow is returned when it is.
func (h Header) Internal() (Workflow, bool) {
	var internal bool
	var wf Workflow
	var haveWF bool
	for _, f := range h.Extra {
		switch f.Key {
		case "internal":
			internal = string(f.Value) == "true"
		case "workflow":
			haveWF = json.Unmarshal(f.Value, &wf) == nil
		}
	}
	if internal && haveWF && wf.RunID != "" && wf.StageID != "" && wf.StageName != "" {
		return wf, true
	}
	return Workflow{}, false
}

// Entry is one non-header line of a session file (session-format.md §4, §5). Type selects which
// type-specific fields are meaningful:
//
//	message:               Message
//	model_change:          Provider, ModelID
//	thinking_level_change: ThinkingLevel
//	compaction:            Summary, FirstKeptEntryID (nil: null), TokensBefore, Details, FromHook
//	branch_summary:        FromID, Summary, Details, FromHook, Usage (Atomic)
//	custom:                CustomType, Data
//	custom_message:        CustomType, Content (ContentIsString: a plain string), Display,
//	                       Details, ExcludeFromContext (Atomic)
//	label:                 TargetID, Label (nil: absent, which clears the label)
//	session_info:          Name (nil: absent)
//	session_summary:       Summary, SummarizedThroughID, Usage (Atomic)
//	context_window_change: ContextWindow (tokens; Atomic)
//
// ParentID is nil for a root (written as null). Timestamp is ISO-8601 UTC with milliseconds.
// Details and Data hold raw JSON; nil means the member is absent. Members this package does
// not know are kept in Extra in file order and written after the known ones.
//
// An entry of an unknown type, or of a known type whose members do not have the expected JSON
// types, is opaque: only Type, ID, ParentID and Timestamp are filled in, Raw returns its line and
// that line is written back byte for byte. Opaque entries are tree nodes but carry no meaning
// (they never reach the LLM context).
//
// Entries handed out by a Session are shared and must be treated as read-only.
type Entry struct {
	Type      string  // entry type, one of the Type constants or an unknown one
	ID        string  // 8 lowercase hex characters, unique in the file
	ParentID  *string // parent entry id; nil for a root (null)
	Timestamp string  // append time, ISO-8601 UTC with milliseconds

	Message *llm.Message // message: the AgentMessage

	Provider string // model_change: provider name
	ModelID  string // model_change: model id

	ThinkingLevel string // thinking_level_change: off, minimal, low, medium, high, xhigh

	Summary          string          // compaction, branch_summary, session_summary: summary text
	FirstKeptEntryID *string         // compaction: first entry kept after the summary; nil: null
	TokensBefore     int64           // compaction: context size in tokens before compacting
	Details          json.RawMessage // compaction, branch_summary, custom_message: raw JSON; nil: absent
	FromHook         *bool           // compaction, branch_summary: made by an extension; nil: absent

	FromID string     // branch_summary: branch point id, or "root"
	Usage  *llm.Usage // branch_summary, session_summary: tokens and dollars spent summarising (Atomic)

	CustomType         string          // custom, custom_message: extension-chosen kind
	Data               json.RawMessage // custom: extension state, raw JSON; nil: absent
	Content            []llm.Content   // custom_message: text and image blocks
	ContentIsString    bool            // custom_message: Content is written as a plain string
	Display            bool            // custom_message: shown in the UI
	ExcludeFromContext bool            // custom_message: kept out of the LLM context (Atomic)

	TargetID string  // label: labelled entry
	Label    *string // label: new label; nil (absent) clears it

	Name *string // session_info: display name; nil: absent

	SummarizedThroughID string // session_summary: last entry the summary covers

	ContextWindow int64 // context_window_change: context window in tokens

	Extra []Field // unknown members in file order

	raw    []byte // the line as read, for entries loaded from a file
	msgRaw []byte // the undecoded "message" member while Message is nil
	opaque bool
	seq    int // position in the session's entry list

	// role, provider and model of an undecoded message (role as stored: hookMessage is not
	// renamed), read while loading so the context can follow the model without decoding.
	role, provider, model string
}

// Parent returns the parent id, or "" for a root.
func (e *Entry) Parent() string {
	if e.ParentID == nil {
		return ""
	}
	return *e.ParentID
}

// Opaque reports whether the entry is kept verbatim without interpretation (unknown type or
// unexpected member types).
func (e *Entry) Opaque() bool { return e.opaque }

// Raw returns the line of an opaque entry as it was read (without the newline), else nil.
func (e *Entry) Raw() []byte {
	if e.opaque {
		return e.raw
	}
	return nil
}

// Role returns the role of a message entry's message, or "" for other entries.
func (e *Entry) Role() string {
	if e.Type != TypeMessage || e.opaque {
		return ""
	}
	if e.Message != nil {
		return e.Message.Role
	}
	if e.role == "hookMessage" {
		return llm.RoleCustom
	}
	return e.role
}

// MarshalJSON writes the entry with the member order of pi's writers (session-format.md §2):
// type, id, parentId, timestamp, then the type-specific members; custom and custom_message put
// customType, data/content, display and details before id. An opaque entry is written as read.
func (e Entry) MarshalJSON() ([]byte, error) { return e.appendJSON(nil) }

func (e *Entry) appendJSON(dst []byte) ([]byte, error) {
	if e.opaque {
		return append(dst, e.raw...), nil
	}
	w := objw{buf: dst}
	w.str("type", e.Type)
	switch e.Type {
	case TypeCustom:
		w.str("customType", e.CustomType)
		w.rawOpt("data", e.Data)
		e.envelope(&w)
	case TypeCustomMessage:
		w.str("customType", e.CustomType)
		writeContent(&w, e.Content, e.ContentIsString)
		w.bool("display", e.Display)
		w.rawOpt("details", e.Details)
		if e.ExcludeFromContext {
			w.bool("excludeFromContext", true)
		}
		e.envelope(&w)
	default:
		e.envelope(&w)
		switch e.Type {
		case TypeMessage:
			w.key("message")
			if e.Message != nil {
				b, err := e.Message.AppendJSON(w.buf)
				if err != nil {
					return nil, fmt.Errorf("store: entry %s: %w", e.ID, err)
				}
				w.buf = b
			} else {
				w.buf = append(w.buf, e.msgRaw...)
			}
		case TypeModelChange:
			w.str("provider", e.Provider)
			w.str("modelId", e.ModelID)
		case TypeThinkingLevelChange:
			w.str("thinkingLevel", e.ThinkingLevel)
		case TypeCompaction:
			w.str("summary", e.Summary)
			w.nullStr("firstKeptEntryId", e.FirstKeptEntryID)
			w.int("tokensBefore", e.TokensBefore)
			w.rawOpt("details", e.Details)
			w.boolPtr("fromHook", e.FromHook)
		case TypeBranchSummary:
			w.str("fromId", e.FromID)
			w.str("summary", e.Summary)
			w.rawOpt("details", e.Details)
			w.boolPtr("fromHook", e.FromHook)
			if e.Usage != nil {
				if err := w.value("usage", e.Usage); err != nil {
					return nil, err
				}
			}
		case TypeLabel:
			w.str("targetId", e.TargetID)
			w.strPtr("label", e.Label)
		case TypeSessionInfo:
			w.strPtr("name", e.Name)
		case TypeSessionSummary:
			w.str("summary", e.Summary)
			w.str("summarizedThroughId", e.SummarizedThroughID)
			if e.Usage != nil {
				if err := w.value("usage", e.Usage); err != nil {
					return nil, err
				}
			}
		case TypeContextWindowChange:
			w.int("contextWindow", e.ContextWindow)
		}
	}
	w.extra(e.Extra)
	return w.close(), nil
}

func (e *Entry) envelope(w *objw) {
	w.str("id", e.ID)
	w.nullStr("parentId", e.ParentID)
	w.str("timestamp", e.Timestamp)
}

func writeContent(w *objw, content []llm.Content, isString bool) {
	if isString {
		w.str("content", llm.TextOf(content, ""))
		return
	}
	w.key("content")
	w.buf = append(w.buf, '[')
	for i := range content {
		if i > 0 {
			w.buf = append(w.buf, ',')
		}
		b, _ := content[i].MarshalJSON() // Content.MarshalJSON fails only on unencodable arguments
		w.buf = append(w.buf, b...)
	}
	w.buf = append(w.buf, ']')
}

// UnmarshalJSON reads one entry line. Unknown types and members with unexpected JSON types make
// an opaque entry rather than an error; only text that is not a JSON object is an error.
func (e *Entry) UnmarshalJSON(b []byte) error {
	line := append([]byte(nil), b...)
	fields, msg, ok := parseLine(line, nil, nil, true)
	if !ok {
		return errors.New("store: entry is not a JSON object")
	}
	*e = Entry{}
	e.decode(line, fields, msg, nil, nil)
	if e.Type == TypeMessage && !e.opaque {
		return e.decodeMessage()
	}
	return nil
}

// decode fills e from the members of line, which must never be modified afterwards (id, parentId
// and timestamp share its bytes); msg holds the members of its "message" object. parent,
// when not nil, receives the parentId string so the loader can allocate ids in bulk; in shares
// repeated strings between entries (may be nil).
func (e *Entry) decode(line []byte, fields, msg []field, parent *string, in interner) {
	e.raw = line
	for i := range fields {
		if string(fields[i].key) == "type" && !fields[i].esc {
			t, ok := rawString(fields[i].val)
			if !ok {
				e.opaque = true
			}
			e.Type = internType(t)
			break
		}
	}
	known := isKnownType(e.Type)
	if !known {
		e.opaque = true
	}
	for i := range fields {
		f := &fields[i]
		k := f.key
		if f.esc {
			k = []byte(f.name())
		}
		ok := true
		switch string(k) {
		case "type":
			continue
		case "id":
			e.ID, ok = rawStringShared(f.val)
		case "parentId":
			if !isNull(f.val) {
				if parent == nil {
					parent = new(string)
				}
				*parent, ok = rawStringShared(f.val)
				e.ParentID = parent
			}
		case "timestamp":
			e.Timestamp, ok = rawStringShared(f.val)
		default:
			if !known {
				continue
			}
			var handled bool
			handled, ok = e.setField(k, f.val)
			if !handled {
				e.Extra = append(e.Extra, Field{Key: string(k), Value: json.RawMessage(f.val)})
			}
		}
		if !ok {
			e.opaque = true
		}
	}
	if e.Type == TypeMessage && e.msgRaw == nil {
		e.opaque = true
	}
	if e.opaque {
		e.clearTyped()
		return
	}
	if e.Type == TypeMessage {
		e.role, e.provider, e.model = messageHead(msg, in)
	}
}

// interner shares one string per distinct value (provider and model names repeat on every
// assistant message). Lookups with a converted []byte key do not allocate.
type interner map[string]string

func (in interner) get(b []byte) string {
	if in == nil {
		return string(b)
	}
	if s, ok := in[string(b)]; ok {
		return s
	}
	s := string(b)
	in[s] = s
	return s
}

// messageHead reads role, provider and model from the members of a message object.
func messageHead(fields []field, in interner) (role, provider, model string) {
	for i := range fields {
		f := &fields[i]
		v := f.val
		if f.esc || len(v) < 2 || v[0] != '"' {
			continue
		}
		body := v[1 : len(v)-1]
		if bytes.IndexByte(body, '\\') >= 0 {
			s, _ := unquote(v, false)
			body = []byte(s)
		}
		switch string(f.key) {
		case "role":
			role = in.get(body)
		case "provider":
			provider = in.get(body)
		case "model":
			model = in.get(body)
		}
	}
	return role, provider, model
}

// setField decodes one type-specific member. handled is false for members the type does not
// define; ok is false when a defined member has an unexpected JSON type.
func (e *Entry) setField(key []byte, v []byte) (handled, ok bool) {
	str := func(dst *string) (bool, bool) {
		s, ok := rawString(v)
		*dst = s
		return true, ok
	}
	strPtr := func(dst **string) (bool, bool) {
		s, ok := rawString(v)
		*dst = &s
		return true, ok
	}
	boolPtr := func(dst **bool) (bool, bool) {
		b, ok := rawBool(v)
		*dst = &b
		return true, ok
	}
	usage := func() (bool, bool) {
		if !isObject(v) {
			return true, false
		}
		e.Usage = new(llm.Usage)
		return true, json.Unmarshal(v, e.Usage) == nil
	}
	k := string(key) // compared only: no allocation
	switch e.Type {
	case TypeMessage:
		if k == "message" {
			e.msgRaw = v
			return true, isObject(v)
		}
	case TypeModelChange:
		switch k {
		case "provider":
			return str(&e.Provider)
		case "modelId":
			return str(&e.ModelID)
		}
	case TypeThinkingLevelChange:
		if k == "thinkingLevel" {
			return str(&e.ThinkingLevel)
		}
	case TypeCompaction:
		switch k {
		case "summary":
			return str(&e.Summary)
		case "firstKeptEntryId":
			if isNull(v) {
				return true, true
			}
			return strPtr(&e.FirstKeptEntryID)
		case "tokensBefore":
			n, ok := rawInt(v)
			e.TokensBefore = n
			return true, ok
		case "details":
			e.Details = v
			return true, true
		case "fromHook":
			return boolPtr(&e.FromHook)
		}
	case TypeBranchSummary:
		switch k {
		case "fromId":
			return str(&e.FromID)
		case "summary":
			return str(&e.Summary)
		case "details":
			e.Details = v
			return true, true
		case "fromHook":
			return boolPtr(&e.FromHook)
		case "usage":
			return usage()
		}
	case TypeCustom:
		switch k {
		case "customType":
			return str(&e.CustomType)
		case "data":
			e.Data = v
			return true, true
		}
	case TypeCustomMessage:
		switch k {
		case "customType":
			return str(&e.CustomType)
		case "content":
			if len(v) > 0 && v[0] == '"' {
				s, ok := rawString(v)
				e.Content = []llm.Content{llm.Text(s)}
				e.ContentIsString = true
				return true, ok
			}
			if len(v) == 0 || v[0] != '[' {
				return true, false
			}
			return true, json.Unmarshal(v, &e.Content) == nil
		case "display":
			b, ok := rawBool(v)
			e.Display = b
			return true, ok
		case "details":
			e.Details = v
			return true, true
		case "excludeFromContext":
			// Only true is modelled; false stays an extra member so it is written back.
			b, ok := rawBool(v)
			if !ok || !b {
				return false, true
			}
			e.ExcludeFromContext = true
			return true, true
		}
	case TypeLabel:
		switch k {
		case "targetId":
			return str(&e.TargetID)
		case "label":
			return strPtr(&e.Label)
		}
	case TypeSessionInfo:
		if k == "name" {
			return strPtr(&e.Name)
		}
	case TypeSessionSummary:
		switch k {
		case "summary":
			return str(&e.Summary)
		case "summarizedThroughId":
			return str(&e.SummarizedThroughID)
		case "usage":
			return usage()
		}
	case TypeContextWindowChange:
		if k == "contextWindow" {
			n, ok := rawInt(v)
			e.ContextWindow = n
			return true, ok
		}
	}
	return false, true
}

// clearTyped drops everything but the envelope from an opaque entry.
func (e *Entry) clearTyped() {
	*e = Entry{Type: e.Type, ID: e.ID, ParentID: e.ParentID, Timestamp: e.Timestamp, raw: e.raw, opaque: true, seq: e.seq}
}

// decodeMessage decodes msgRaw into Message. On failure the entry becomes opaque.
func (e *Entry) decodeMessage() error {
	if e.Message != nil || e.opaque || e.Type != TypeMessage {
		return nil
	}
	if m, ok := decodeMessageFast(e.msgRaw); ok {
		e.Message = m
		e.msgRaw = nil
		return nil
	}
	m := new(llm.Message)
	if err := m.UnmarshalJSON(e.msgRaw); err != nil {
		e.clearTyped()
		return fmt.Errorf("store: entry %s: %w", e.ID, err)
	}
	e.Message = m
	e.msgRaw = nil
	return nil
}

func isKnownType(t string) bool {
	switch t {
	case TypeMessage, TypeModelChange, TypeThinkingLevelChange, TypeCompaction, TypeBranchSummary,
		TypeCustom, TypeCustomMessage, TypeLabel, TypeSessionInfo, TypeSessionSummary,
		TypeContextWindowChange:
		return true
	}
	return false
}

// internType returns the constant for a known type so loaded entries share one string.
func internType(t string) string {
	switch t {
	case TypeMessage:
		return TypeMessage
	case TypeModelChange:
		return TypeModelChange
	case TypeThinkingLevelChange:
		return TypeThinkingLevelChange
	case TypeCompaction:
		return TypeCompaction
	case TypeBranchSummary:
		return TypeBranchSummary
	case TypeCustom:
		return TypeCustom
	case TypeCustomMessage:
		return TypeCustomMessage
	case TypeLabel:
		return TypeLabel
	case TypeSessionInfo:
		return TypeSessionInfo
	}
	return t
}

// peekMessage reads role (as stored: the legacy hookMessage is not renamed), provider and model
// of a raw message without decoding the rest.
func peekMessage(raw []byte) (role, provider, model string) {
	var buf [24]field
	fields, ok := parseObject(raw, buf[:0])
	if !ok {
		return "", "", ""
	}
	for i := range fields {
		switch string(fields[i].key) {
		case "role":
			role, _ = rawString(fields[i].val)
		case "provider":
			provider, _ = rawString(fields[i].val)
		case "model":
			model, _ = rawString(fields[i].val)
		}
	}
	return role, provider, model
}
