package protocol

import "encoding/json"

// The model API of extensions (pi-ai's stream, complete, streamSimple, completeSimple, getModel,
// getModels, getProviders, served by the host and routed to the core's providers and
// credentials; docs/extension-protocol.md §4, "Model calls").
const (
	// MethodLLMStream (host -> core, async, cancellable with $/cancelRequest) streams one
	// assistant message: the core sends MethodLLMEvent notifications for its stream events and
	// answers with the final assistant message.
	MethodLLMStream = "llm.stream"
	// MethodLLMEvent (core -> host notification) is one stream event of the llm.stream request ID.
	MethodLLMEvent = "llm.event"
	// MethodLLMPayload (core -> host) calls the onPayload of an llm.stream call with the
	// provider payload before it is sent; the answer may replace it.
	MethodLLMPayload = "llm.payload"
	// MethodLLMResponse (core -> host) calls the onResponse of an llm.stream call with the HTTP
	// status and headers of the response whose body is streamed.
	MethodLLMResponse = "llm.response"
	// MethodModels (sync) reads the core's model registry: getModel, getModels, getProviders.
	MethodModels = "models"
	// MethodProviderStream (core -> host, cancellable) streams a model of a provider whose
	// streamSimple runs in the host; its events come back as tool.update notifications of the
	// request and the answer is the final assistant message.
	MethodProviderStream = "provider.stream"
	// MethodProviderLogin (core -> host) runs a provider's login (oauth or auth.apiKey) and
	// answers {credential}.
	MethodProviderLogin = "provider.login"
	// MethodProviderRefresh (core -> host) runs a provider's oauth.refreshToken with the stored
	// credential and answers {credential}, the credential that replaces it.
	MethodProviderRefresh = "provider.refresh"
)

// ProviderRefreshParams ask the host to refresh Credential (the auth.json object, type oauth) of
// provider Name.
type ProviderRefreshParams struct {
	Name       string          `json:"name"`
	Credential json.RawMessage `json:"credential"`
}

// ProviderStreamParams ask the host to stream Model (pi's Model) of the extension provider whose
// wire API is API, with pi's Context and SimpleStreamOptions (reasoning is the thinking level).
type ProviderStreamParams struct {
	API     string           `json:"api"`
	Model   json.RawMessage  `json:"model"`
	Context json.RawMessage  `json:"context"`
	Options LLMStreamOptions `json:"options"`
}

// ProviderLoginParams ask the host to run the login of Kind ("oauth" or "api_key") of provider
// Name; its prompts are dialogs of context Ctx.
type ProviderLoginParams struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
	Ctx  int64  `json:"ctx"`
}

// ProviderLoginResult is the credential a login produced: a JSON object with "type" api_key or
// oauth, stored in auth.json as it is.
type ProviderLoginResult struct {
	Credential json.RawMessage `json:"credential"`
}

// LLMStreamParams ask the core to stream one assistant message.
//
// Model is pi's Model object: a model the registry knows (by provider and id) is completed from
// the registry, and the members given here override it (a custom baseUrl, headers). API, when
// set, forces the wire API (streamSimpleAnthropic: "anthropic-messages"). Context is pi's
// Context: {systemPrompt?, messages, tools?: [{name, description, parameters}]}. Ctx is the
// context id of the extension call, 0 when the call was made outside any (the generation's
// latest context is used, or none before the first dispatch).
type LLMStreamParams struct {
	Ctx     int64            `json:"ctx,omitempty"`
	Gen     int64            `json:"gen,omitempty"`
	Model   json.RawMessage  `json:"model"`
	API     string           `json:"api,omitempty"`
	Context LLMContext       `json:"context"`
	Options LLMStreamOptions `json:"options"`
}

// LLMContext is pi-ai's Context.
type LLMContext struct {
	SystemPrompt string            `json:"systemPrompt,omitempty"`
	Messages     []json.RawMessage `json:"messages"`
	Tools        []LLMTool         `json:"tools,omitempty"`
}

// LLMTool is pi-ai's Tool: a name, a description and the JSON Schema of its arguments.
type LLMTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// LLMStreamOptions are the members of pi-ai's StreamOptions and SimpleStreamOptions that cross
// the process boundary. APIKey overrides the registry's credential; Reasoning is the thinking
// level (streamSimple's reasoning, or reasoningEffort); Temperature and CacheRetention ("none",
// "short", "long") go to the provider's payload. Transient failures are retried with the
// session's retry settings; MaxRetries (when set) is the number of retries of this call instead,
// MaxRetryDelayMs (when set) the longest server-requested wait honoured (0: no cap), TimeoutMs
// (when above 0) the bound in milliseconds on each attempt's wait for the response headers.
// Metadata (pi-ai's metadata: a JSON object; Anthropic takes its string user_id) and Transport
// ("sse", "websocket", "auto": atomic's wire APIs stream over SSE and ignore it) go to the
// provider, and to an extension's streamSimple provider as they are. The functions stay in the host: OnPayload and OnResponse say the call has pi's onPayload and
// onResponse, which the core then calls with llm.payload and llm.response requests.
type LLMStreamOptions struct {
	APIKey          string            `json:"apiKey,omitempty"`
	MaxTokens       int               `json:"maxTokens,omitempty"`
	Reasoning       string            `json:"reasoning,omitempty"`
	Headers         map[string]string `json:"headers,omitempty"`
	SessionID       string            `json:"sessionId,omitempty"`
	Temperature     *float64          `json:"temperature,omitempty"`
	CacheRetention  string            `json:"cacheRetention,omitempty"`
	Metadata        map[string]any    `json:"metadata,omitempty"`
	Transport       string            `json:"transport,omitempty"`
	TimeoutMs       int64             `json:"timeoutMs,omitempty"`
	MaxRetries      *int              `json:"maxRetries,omitempty"`
	MaxRetryDelayMs *int64            `json:"maxRetryDelayMs,omitempty"`
	OnPayload       bool              `json:"onPayload,omitempty"`
	OnResponse      bool              `json:"onResponse,omitempty"`
}

// LLMPayloadParams (core -> host, request llm.payload) hand the provider payload of the
// llm.stream request ID (decoded JSON) to the call's onPayload with the model of the call.
type LLMPayloadParams struct {
	ID      json.RawMessage `json:"id"`
	Payload any             `json:"payload"`
	Model   json.RawMessage `json:"model"`
}

// LLMPayloadResult is onPayload's answer: Payload absent keeps the payload, present replaces it.
type LLMPayloadResult struct {
	Payload json.RawMessage `json:"payload,omitempty"`
}

// LLMResponseParams (core -> host, request llm.response, answered null) hand pi's
// ProviderResponse of the llm.stream request ID to the call's onResponse: the HTTP status and the
// response headers with lower-case names (several values joined by ", "), before the body is
// read.
type LLMResponseParams struct {
	ID      json.RawMessage   `json:"id"`
	Status  int               `json:"status"`
	Headers map[string]string `json:"headers"`
	Model   json.RawMessage   `json:"model"`
}

// LLMEventParams carry one stream event of the llm.stream request ID: pi's AssistantMessageEvent
// without the cumulative partial (the host assembles it), except that "start" carries the
// message header as Partial and "toolcall_start" the block (id, name) as ToolCall.
type LLMEventParams struct {
	ID    json.RawMessage `json:"id"`
	Event json.RawMessage `json:"event"`
}

// ModelsParams read the model registry: Method "find" (Provider, ID: the model or null),
// "list" (Provider: its models; empty: all), "providers" (the provider names).
type ModelsParams struct {
	Gen      int64  `json:"gen,omitempty"`
	Method   string `json:"method"`
	Provider string `json:"provider,omitempty"`
	ID       string `json:"id,omitempty"`
}
