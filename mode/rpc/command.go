package rpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/atomic-cli/atomic/llm"
)

// lane says how a command is scheduled (rpc-and-json.md §2.1, Atomic).
type lane int

const (
	// laneOrdered commands run one at a time, in arrival order, on the worker goroutine.
	laneOrdered lane = iota
	// laneInterrupt commands are handled as soon as they are read; they never block the reader.
	laneInterrupt
	// laneJob commands run on a goroutine of their own and answer when they finish.
	laneJob
)

// spec describes one command: its lane, its parameters (a pointer to a fresh struct, nil for
// none) and the members it requires.
type spec struct {
	lane     lane
	params   func() any
	required []string
}

// commandTypeUIResponse is the frame type of a client's answer to a dialog (§6.1).
const commandTypeUIResponse = "extension_ui_response"

// specs lists every command RPC mode knows, pi's and Atomic's (rpc-and-json.md §3).
var specs = map[string]spec{
	"prompt":                        {params: func() any { return new(promptParams) }, required: []string{"message"}},
	"steer":                         {params: func() any { return new(messageParams) }, required: []string{"message"}},
	"follow_up":                     {params: func() any { return new(messageParams) }, required: []string{"message"}},
	"abort":                         {lane: laneInterrupt},
	"new_session":                   {params: func() any { return new(newSessionParams) }},
	"clear_queue":                   {lane: laneInterrupt},
	"pause_queued_messages":         {lane: laneInterrupt},
	"resume_queued_messages":        {lane: laneInterrupt},
	"get_state":                     {},
	"get_messages":                  {},
	"set_model":                     {params: func() any { return new(setModelParams) }, required: []string{"provider", "modelId"}},
	"cycle_model":                   {params: func() any { return new(cycleModelParams) }},
	"get_available_models":          {},
	"refresh_models":                {lane: laneJob},
	"login_provider":                {lane: laneJob, params: func() any { return new(providerParams) }, required: []string{"provider"}},
	"save_provider_credential":      {params: func() any { return new(providerParams) }, required: []string{"provider"}},
	"cancel_login_provider":         {lane: laneInterrupt, params: func() any { return new(providerParams) }, required: []string{"provider"}},
	"logout_provider":               {params: func() any { return new(providerParams) }, required: []string{"provider"}},
	"set_thinking_level":            {params: func() any { return new(levelParams) }, required: []string{"level"}},
	"cycle_thinking_level":          {},
	"get_available_thinking_levels": {},
	"set_steering_mode":             {params: func() any { return new(modeParams) }, required: []string{"mode"}},
	"set_follow_up_mode":            {params: func() any { return new(modeParams) }, required: []string{"mode"}},
	"compact":                       {params: func() any { return new(compactParams) }},
	"set_auto_compaction":           {params: func() any { return new(enabledParams) }, required: []string{"enabled"}},
	"abort_compaction":              {lane: laneInterrupt},
	"set_auto_retry":                {params: func() any { return new(enabledParams) }, required: []string{"enabled"}},
	"abort_retry":                   {lane: laneInterrupt},
	"bash":                          {lane: laneJob, params: func() any { return new(bashParams) }, required: []string{"command"}},
	"user_bash":                     {lane: laneJob, params: func() any { return new(bashParams) }, required: []string{"command"}},
	"abort_bash":                    {lane: laneInterrupt, params: func() any { return new(abortBashParams) }},
	"get_session_stats":             {},
	"export_html":                   {params: func() any { return new(exportParams) }},
	"switch_session":                {params: func() any { return new(switchParams) }, required: []string{"sessionPath"}},
	"import_session":                {params: func() any { return new(importParams) }, required: []string{"inputPath"}},
	"fork":                          {params: func() any { return new(forkParams) }, required: []string{"entryId"}},
	"clone":                         {},
	"get_fork_messages":             {},
	"get_entries":                   {params: func() any { return new(entriesParams) }},
	"get_tree":                      {},
	"navigate_tree":                 {params: func() any { return new(navigateParams) }, required: []string{"targetId"}},
	"set_label":                     {params: func() any { return new(labelParams) }, required: []string{"entryId"}},
	"get_last_assistant_text":       {},
	"get_mcp_status":                {},
	"mcp_connect":                   {params: func() any { return new(mcpServerParams) }, required: []string{"server"}},
	"mcp_disconnect":                {params: func() any { return new(mcpServerParams) }, required: []string{"server"}},
	"set_session_name":              {params: func() any { return new(nameParams) }, required: []string{"name"}},
	"reload":                        {},
	"get_shortcuts":                 {},
	"invoke_shortcut":               {params: func() any { return new(shortcutParams) }, required: []string{"key"}},
	"get_commands":                  {},
	"get_command_completions":       {params: func() any { return new(completionParams) }, required: []string{"commandName"}},
}

// Parameters of the commands (rpc-and-json.md §3). Unknown members are ignored.
type (
	promptParams struct {
		Message           string        `json:"message"`
		Images            []llm.Content `json:"images"`
		StreamingBehavior string        `json:"streamingBehavior"`
	}
	messageParams struct {
		Message string        `json:"message"`
		Images  []llm.Content `json:"images"`
	}
	newSessionParams struct {
		ParentSession string `json:"parentSession"`
	}
	setModelParams struct {
		Provider string `json:"provider"`
		ModelID  string `json:"modelId"`
	}
	cycleModelParams struct {
		Direction string `json:"direction"`
	}
	providerParams struct {
		Provider string `json:"provider"`
		AuthType string `json:"authType,omitempty"`
		LoginID  string `json:"loginId,omitempty"`
	}
	levelParams struct {
		Level string `json:"level"`
	}
	modeParams struct {
		Mode string `json:"mode"`
	}
	compactParams struct {
		CustomInstructions string `json:"customInstructions"`
	}
	enabledParams struct {
		Enabled bool `json:"enabled"`
	}
	bashParams struct {
		Command            string `json:"command"`
		ExcludeFromContext bool   `json:"excludeFromContext"`
	}
	abortBashParams struct {
		// RequestID is the id of the bash command to abort, as sent (any JSON value).
		RequestID json.RawMessage `json:"requestId"`
	}
	exportParams struct {
		OutputPath string `json:"outputPath"`
	}
	switchParams struct {
		SessionPath string `json:"sessionPath"`
	}
	importParams struct {
		InputPath   string `json:"inputPath"`
		CwdOverride string `json:"cwdOverride"`
	}
	forkParams struct {
		EntryID string `json:"entryId"`
	}
	entriesParams struct {
		Since *string `json:"since"`
	}
	navigateParams struct {
		TargetID string `json:"targetId"`
		Options  struct {
			Summarize           bool   `json:"summarize"`
			CustomInstructions  string `json:"customInstructions"`
			ReplaceInstructions bool   `json:"replaceInstructions"`
			Label               string `json:"label"`
		} `json:"options"`
	}
	mcpServerParams struct {
		Server string `json:"server"`
	}
	labelParams struct {
		EntryID string  `json:"entryId"`
		Label   *string `json:"label"`
	}
	nameParams struct {
		Name string `json:"name"`
	}
	shortcutParams struct {
		Key string `json:"key"`
	}
	completionParams struct {
		CommandName    string `json:"commandName"`
		ArgumentPrefix string `json:"argumentPrefix"`
	}
)

func (p *promptParams) validate() error {
	switch p.StreamingBehavior {
	case "", "steer", "followUp":
	default:
		return fmt.Errorf("streamingBehavior must be \"steer\" or \"followUp\", not %q", p.StreamingBehavior)
	}
	return validImages(p.Images)
}

func (p *messageParams) validate() error { return validImages(p.Images) }

func validImages(images []llm.Content) error {
	for i, c := range images {
		if c.Type != llm.ContentImage || c.Data == "" || c.MimeType == "" {
			return fmt.Errorf("images[%d]: want {\"type\":\"image\",\"data\":<base64>,\"mimeType\":…}", i)
		}
	}
	return nil
}

func (p *cycleModelParams) validate() error {
	switch p.Direction {
	case "", "forward", "backward":
		return nil
	}
	return fmt.Errorf("direction must be \"forward\" or \"backward\", not %q", p.Direction)
}

func (p *modeParams) validate() error {
	switch p.Mode {
	case "all", "one-at-a-time":
		return nil
	}
	return fmt.Errorf("mode must be \"all\" or \"one-at-a-time\", not %q", p.Mode)
}

func (p *levelParams) validate() error {
	if p.Level == "max" {
		p.Level = llm.ThinkingXHigh // Atomic's level above xhigh; atomic's models top out at xhigh
	}
	if !llm.ValidThinkingLevel(p.Level) {
		return fmt.Errorf("Invalid thinking level: %q (use %s)", p.Level, strings.Join(llm.ThinkingLevels, ", "))
	}
	return nil
}

// command is one decoded command frame.
type command struct {
	// ID is the frame's "id", compacted; nil when absent or null. It is echoed as sent.
	ID     json.RawMessage
	Type   string
	spec   spec
	params any // the decoded parameters (spec.params' type), nil for none
	// login is the registration of a login_provider command (Server.logins), made when its
	// frame was read; nil for other commands.
	login *login
}

// frameError is a frame that cannot be run: its response says why.
type frameError struct {
	id      json.RawMessage
	command string
	msg     string
}

// envelope is the first pass over a frame.
type envelope struct {
	ID   json.RawMessage `json:"id"`
	Type json.RawMessage `json:"type"`
}

// decodeEnvelope reads a frame's id and type. ok is false when the frame is not a JSON object;
// typ is "" when "type" is missing or not a string.
func decodeEnvelope(line []byte) (id json.RawMessage, typ string, err error) {
	var env envelope
	if err := json.Unmarshal(line, &env); err != nil {
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) && ute.Field == "" {
			return nil, "", errors.New("a command must be a JSON object")
		}
		return nil, "", err
	}
	if len(env.ID) > 0 && !bytes.Equal(env.ID, []byte("null")) {
		var buf bytes.Buffer
		if json.Compact(&buf, env.ID) == nil {
			id = buf.Bytes()
		}
	}
	if len(env.Type) > 0 && env.Type[0] == '"' {
		_ = json.Unmarshal(env.Type, &typ)
	}
	return id, typ, nil
}

// decodeCommand decodes a command frame and its parameters. Every failure is a frameError: not
// JSON ("parse", pi's message prefix), not an object, no type, an unknown type (the id is kept,
// as Atomic does), a missing member or one of the wrong JSON type, or a value out of range.
func decodeCommand(line []byte) (*command, *frameError) {
	id, typ, err := decodeEnvelope(line)
	if err != nil {
		return nil, &frameError{command: "parse", msg: "Failed to parse command: " + err.Error()}
	}
	if typ == "" {
		return nil, &frameError{id: id, command: "parse", msg: `Invalid command: "type" must be a non-empty string naming the command`}
	}
	sp, ok := specs[typ]
	if !ok {
		return nil, &frameError{id: id, command: typ, msg: "Unknown command: " + typ}
	}
	c := &command{ID: id, Type: typ, spec: sp}
	if sp.params == nil {
		return c, nil
	}
	if len(sp.required) > 0 {
		var members map[string]json.RawMessage
		if err := json.Unmarshal(line, &members); err != nil {
			return nil, &frameError{id: id, command: typ, msg: "Failed to parse command: " + err.Error()}
		}
		for _, k := range sp.required {
			if v, ok := members[k]; !ok || bytes.Equal(v, []byte("null")) {
				return nil, &frameError{id: id, command: typ, msg: fmt.Sprintf("Invalid %s command: %q is required", typ, k)}
			}
		}
	}
	p := sp.params()
	if err := json.Unmarshal(line, p); err != nil {
		return nil, &frameError{id: id, command: typ, msg: fmt.Sprintf("Invalid %s command: %s", typ, describeJSONError(err))}
	}
	if v, ok := p.(interface{ validate() error }); ok {
		if err := v.validate(); err != nil {
			return nil, &frameError{id: id, command: typ, msg: fmt.Sprintf("Invalid %s command: %v", typ, err)}
		}
	}
	c.params = p
	return c, nil
}

// describeJSONError turns a decoding error into "<member>: expected <type>, got <JSON type>".
func describeJSONError(err error) string {
	var ute *json.UnmarshalTypeError
	if errors.As(err, &ute) {
		want := ute.Type.Kind().String()
		switch want {
		case "slice":
			want = "an array"
		case "struct", "map", "ptr":
			want = "an object"
		case "int", "int64", "float64":
			want = "a number"
		case "bool":
			want = "a boolean"
		default:
			want = "a " + want
		}
		field := ute.Field
		if field == "" {
			field = "value"
		}
		return fmt.Sprintf("%s: expected %s, got %s", field, want, ute.Value)
	}
	return err.Error()
}

// uiAnswer is an extension_ui_response frame (§6.1): exactly one of Value, Confirmed, Cancelled
// is meant to be set.
type uiAnswer struct {
	ID        string  `json:"id"`
	Value     *string `json:"value"`
	Confirmed *bool   `json:"confirmed"`
	Cancelled bool    `json:"cancelled"`
}

// rawJSON is pre-encoded JSON data.
type rawJSON []byte

// jsonNull is the data of a command whose result is explicitly null (cycle_model with one model).
var jsonNull = rawJSON("null")

// appender is implemented by values that encode themselves without reflection (llm.Message).
type appender interface {
	AppendJSON(dst []byte) ([]byte, error)
}

// appendResponse appends a response line (no newline): {"id"?, "type":"response", "command",
// "success", "data"? | "error"}, pi's member order. data nil leaves "data" out.
func appendResponse(dst []byte, id json.RawMessage, cmd string, data any, failure string, ok bool) ([]byte, error) {
	start := len(dst)
	dst = append(dst, '{')
	if id != nil {
		dst = append(dst, `"id":`...)
		dst = append(dst, id...)
		dst = append(dst, ',')
	}
	dst = append(dst, `"type":"response","command":`...)
	dst = llm.AppendJSONString(dst, cmd)
	if !ok {
		dst = append(dst, `,"success":false,"error":`...)
		dst = llm.AppendJSONString(dst, failure)
		return append(dst, '}'), nil
	}
	dst = append(dst, `,"success":true`...)
	if data != nil {
		dst = append(dst, `,"data":`...)
		var err error
		if dst, err = appendValue(dst, data); err != nil {
			return dst[:start], err
		}
	}
	return append(dst, '}'), nil
}

// appendValue encodes v as JSON without escaping <, > and &, as JSON.stringify does.
func appendValue(dst []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case rawJSON:
		return append(dst, v...), nil
	case appender:
		return v.AppendJSON(dst)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return dst, err
	}
	return append(dst, bytes.TrimRight(buf.Bytes(), "\n")...), nil
}
