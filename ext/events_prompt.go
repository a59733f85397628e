package ext

import (
	"net/http"
	"strings"

	"github.com/atomic-cli/atomic/llm"
)

// Prompt and provider boundary events (events.md §3.4).

// Input fires for inbound user text before skill/template expansion; extension commands are
// checked first and bypass it.
type Input struct {
	Text              string        `json:"text"`
	Images            []llm.Content `json:"images,omitempty"`
	Source            string        `json:"source"`                      // interactive|rpc|extension
	StreamingBehavior string        `json:"streamingBehavior,omitempty"` // steer|followUp while streaming
	// Handled is set when a handler handled the input: it is neither queued nor sent.
	Handled bool `json:"-"`
}

// InputResult accepts every historical shape (events.md §4 row 2): A/P's
// {action:"continue"|"transform"|"handled", text, images} and O's {handled, text, images}.
type InputResult struct {
	Action  string         `json:"action,omitempty"`
	Handled bool           `json:"handled,omitempty"`
	Text    *string        `json:"text,omitempty"`
	Images  *[]llm.Content `json:"images,omitempty"`
}

func (r *InputResult) isSet() bool {
	return r != nil && (r.Handled || r.Action == "handled" || r.Action == "transform" || r.Text != nil || r.Images != nil)
}
func (r *InputResult) decisive() bool { return r.Handled || r.Action == "handled" }
func (r *InputResult) vetoes() bool   { return r.decisive() }

// apply chains a transform; a handled result marks the input handled (and stops dispatch).
func (e *Input) apply(res any) error {
	r := res.(*InputResult)
	if r.decisive() {
		e.Handled = true
		return nil
	}
	if r.Text != nil {
		e.Text = *r.Text
	}
	if r.Images != nil {
		e.Images = *r.Images
	}
	return nil
}

// BeforeAgentStart fires for an idle prompt after input and expansion, before agent_start.
// SystemPrompt chains; Messages accumulate.
type BeforeAgentStart struct {
	Prompt              string              `json:"prompt"`
	Images              []llm.Content       `json:"images,omitempty"`
	SystemPrompt        string              `json:"systemPrompt"`
	SystemPromptOptions SystemPromptOptions `json:"systemPromptOptions"`
	// Messages collects the custom messages handlers asked to inject, in order.
	Messages []CustomMessage `json:"-"`
}

// SystemPromptOptions are the inputs the system prompt was built from (Atomic).
type SystemPromptOptions struct {
	CustomPrompt       string              `json:"customPrompt,omitempty"`
	SelectedTools      []string            `json:"selectedTools"`
	ToolSnippets       map[string]string   `json:"toolSnippets,omitempty"`     // tool name -> prompt line
	PromptGuidelines   []string            `json:"promptGuidelines,omitempty"` // guideline bullets
	AppendSystemPrompt string              `json:"appendSystemPrompt,omitempty"`
	Cwd                string              `json:"cwd"`
	ContextFiles       []PromptContextFile `json:"contextFiles,omitempty"`
	Skills             []PromptSkill       `json:"skills,omitempty"` // the skills offered
}

// PromptContextFile is a context file of the system prompt (AGENTS.md and the like), as pi's
// BuildSystemPromptOptions has it.
type PromptContextFile struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

// PromptSkill is a skill the system prompt offers (pi's Skill: name, description, filePath,
// baseDir, disableModelInvocation).
type PromptSkill struct {
	Name                   string `json:"name"`
	Description            string `json:"description"`
	FilePath               string `json:"filePath"`
	BaseDir                string `json:"baseDir"`
	DisableModelInvocation bool   `json:"disableModelInvocation,omitempty"`
}

// CustomMessage is an extension message (sendMessage, before_agent_start's message).
type CustomMessage struct {
	CustomType string        `json:"customType"`
	Content    []llm.Content `json:"content"`
	Display    bool          `json:"display"`
	Details    any           `json:"details,omitempty"`
}

// BeforeAgentStartResult may replace the system prompt (accepted as a string or as blocks,
// events.md §4 row 10) and inject a custom message.
type BeforeAgentStartResult struct {
	Message            *CustomMessage `json:"message,omitempty"`
	SystemPrompt       *string        `json:"systemPrompt,omitempty"`
	SystemPromptBlocks []string       `json:"-"`
}

func (r *BeforeAgentStartResult) isSet() bool {
	return r != nil && (r.Message != nil || r.SystemPrompt != nil || r.SystemPromptBlocks != nil)
}

func (e *BeforeAgentStart) chainedPrompt() string { return e.SystemPrompt }

func (e *BeforeAgentStart) apply(res any) error {
	r := res.(*BeforeAgentStartResult)
	if r.SystemPrompt != nil {
		e.SystemPrompt = *r.SystemPrompt
	} else if r.SystemPromptBlocks != nil {
		e.SystemPrompt = strings.Join(r.SystemPromptBlocks, "\n\n")
	}
	if r.Message != nil {
		e.Messages = append(e.Messages, *r.Message)
	}
	return nil
}

// ContextEvent fires before every provider request with a deep copy of the messages.
type ContextEvent struct {
	Messages []llm.Message `json:"messages"`
}

// ContextResult replaces the message list for this request (the session is unchanged).
type ContextResult struct {
	Messages []llm.Message `json:"messages,omitempty"`
}

func (r *ContextResult) isSet() bool { return r != nil && r.Messages != nil }
func (e *ContextEvent) apply(res any) error {
	e.Messages = res.(*ContextResult).Messages
	return nil
}

// BeforeProviderHeaders lets handlers edit the request headers in place before the payload is
// built; deleting a key suppresses a default header (events.md §4 row 17).
type BeforeProviderHeaders struct {
	Headers  map[string]string `json:"headers"`
	Provider string            `json:"provider"`
	ModelID  string            `json:"modelId"`
}

// BeforeProviderRequest carries the provider-specific payload; a result replaces it.
type BeforeProviderRequest struct {
	Payload any `json:"payload"`
}

// PayloadResult replaces the payload. A nil *PayloadResult keeps it; Payload nil (JSON null) is a
// replacement.
type PayloadResult struct {
	Payload any
}

func (r *PayloadResult) isSet() bool { return r != nil }
func (e *BeforeProviderRequest) apply(res any) error {
	e.Payload = res.(*PayloadResult).Payload
	return nil
}

// ProviderRequest observes the final JSON payload after the transforms.
type ProviderRequest struct {
	PayloadJSON string `json:"payloadJson"`
	Provider    string `json:"provider"`
	ModelID     string `json:"modelId"`
}

// AfterProviderResponse fires after the HTTP response arrives, before the body is read.
type AfterProviderResponse struct {
	Status    int               `json:"status"`
	Headers   map[string]string `json:"headers"`
	RequestID string            `json:"requestId,omitempty"`
	Metadata  map[string]any    `json:"metadata,omitempty"`
}

// HeaderMap flattens HTTP headers to lower-case names and their first values.
func HeaderMap(h http.Header) map[string]string {
	m := make(map[string]string, len(h))
	for k, v := range h {
		if len(v) > 0 {
			m[strings.ToLower(k)] = v[0]
		}
	}
	return m
}

func (*Input) eventID() EventID                 { return IDInput }
func (*BeforeAgentStart) eventID() EventID      { return IDBeforeAgentStart }
func (*ContextEvent) eventID() EventID          { return IDContext }
func (*BeforeProviderHeaders) eventID() EventID { return IDBeforeProviderHeaders }
func (*BeforeProviderRequest) eventID() EventID { return IDBeforeProviderRequest }
func (*ProviderRequest) eventID() EventID       { return IDProviderRequest }
func (*AfterProviderResponse) eventID() EventID { return IDAfterProviderResponse }

func (*Input) resultOf(*InputResult)                       {}
func (*BeforeAgentStart) resultOf(*BeforeAgentStartResult) {}
func (*ContextEvent) resultOf(*ContextResult)              {}
func (*BeforeProviderHeaders) resultOf(None)               {}
func (*BeforeProviderRequest) resultOf(*PayloadResult)     {}
func (*ProviderRequest) resultOf(None)                     {}
func (*AfterProviderResponse) resultOf(None)               {}

var promptRows = []Spec{
	{Name: "input", Ordered: true, Systems: "AOP", Family: "prompt", Combine: Veto, Errors: Isolate, Awaited: true, Emitted: true, Doc: "inbound user text, after extension commands, before expansion; transforms chain, the first handled stops", Payload: typeOf[Input](), Result: typeOf[InputResult]()},
	{Name: "before_agent_start", Ordered: true, Systems: "AOP", Family: "prompt", Combine: Chain, Errors: Isolate, Awaited: true, Emitted: true, Doc: "an idle prompt, before agent_start; systemPrompt chains, messages accumulate", Payload: typeOf[BeforeAgentStart](), Result: typeOf[BeforeAgentStartResult]()},
	{Name: "context", Ordered: true, Editable: []string{"messages"}, Systems: "AOP", Family: "prompt", Combine: Chain, Errors: Isolate, Awaited: true, Emitted: true, Doc: "before every provider request, with a deep copy of the messages", Payload: typeOf[ContextEvent](), Result: typeOf[ContextResult]()},
	{Name: "before_provider_headers", Ordered: true, Editable: []string{"headers"}, Systems: "A", Family: "provider", Combine: Notify, Errors: Isolate, Awaited: true, Emitted: true, Doc: "request headers assembled, before the payload is built; edit in place", Payload: typeOf[BeforeProviderHeaders]()},
	{Name: "before_provider_request", Ordered: true, Editable: []string{"payload"}, Systems: "AOP", Family: "provider", Combine: Chain, Errors: Isolate, Awaited: true, Emitted: true, Doc: "the provider payload is built; a result replaces it", Payload: typeOf[BeforeProviderRequest](), Result: typeOf[PayloadResult]()},
	{Name: "provider_request", Ordered: true, Systems: "O", Family: "provider", Combine: Notify, Errors: Isolate, Awaited: true, Emitted: true, Doc: "the final JSON payload, observe only", Payload: typeOf[ProviderRequest]()},
	{Name: "after_provider_response", Ordered: true, Systems: "AO", Family: "provider", Combine: Notify, Errors: Isolate, Awaited: true, Emitted: true, Doc: "HTTP status and headers, before the body is read", Payload: typeOf[AfterProviderResponse]()},
}
