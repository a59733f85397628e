package llm

// Wire APIs a model can speak (config-and-resources.md §7).
const (
	APIAnthropicMessages  = "anthropic-messages"
	APIOpenAICompletions  = "openai-completions"
	APIOpenAIResponses    = "openai-responses"
	APIGoogleGenerativeAI = "google-generative-ai"
)

// Model describes one model of one provider: where and how to reach it, and its limits and prices.
// The JSON form is the models.json model object (config-and-resources.md §7).
type Model struct {
	ID            string            `json:"id"`
	Name          string            `json:"name"`
	API           string            `json:"api"`
	Provider      string            `json:"provider"`
	BaseURL       string            `json:"baseUrl"`
	Reasoning     bool              `json:"reasoning"`
	Input         []string          `json:"input"`
	ContextWindow int               `json:"contextWindow"`
	MaxTokens     int               `json:"maxTokens"`
	Cost          ModelCost         `json:"cost"`
	Headers       map[string]string `json:"headers,omitempty"`
	Compat        map[string]any    `json:"compat,omitempty"`
}

// ModelCost is a model's price in US dollars per million tokens.
type ModelCost struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cacheRead"`
	CacheWrite float64 `json:"cacheWrite"`
}

// SupportsImages reports whether the model accepts image input.
func (m *Model) SupportsImages() bool {
	for _, in := range m.Input {
		if in == "image" {
			return true
		}
	}
	return false
}

// CompatBool returns the boolean compat flag key, or def when it is not set.
func (m *Model) CompatBool(key string, def bool) bool {
	if v, ok := m.Compat[key].(bool); ok {
		return v
	}
	return def
}

// CompatString returns the string compat value key, or def when it is not set.
func (m *Model) CompatString(key, def string) string {
	if v, ok := m.Compat[key].(string); ok {
		return v
	}
	return def
}

// Thinking levels, from none to most (session-format.md §5.3).
const (
	ThinkingOff     = "off"
	ThinkingMinimal = "minimal"
	ThinkingLow     = "low"
	ThinkingMedium  = "medium"
	ThinkingHigh    = "high"
	ThinkingXHigh   = "xhigh"
	// ThinkingMax is Atomic's highest level; it is clamped to what the model supports.
	ThinkingMax = "max"
)

// ThinkingLevels lists the valid thinking levels in increasing order.
var ThinkingLevels = []string{ThinkingOff, ThinkingMinimal, ThinkingLow, ThinkingMedium, ThinkingHigh, ThinkingXHigh, ThinkingMax}

// ValidThinkingLevel reports whether level is one of ThinkingLevels.
func ValidThinkingLevel(level string) bool {
	for _, l := range ThinkingLevels {
		if l == level {
			return true
		}
	}
	return false
}

// ClampThinkingLevel returns the level the model can actually use: off for a model without
// reasoning; max becomes xhigh unless compat sets "supportsMax", and xhigh becomes high unless
// compat sets "supportsXhigh"; else level.
func ClampThinkingLevel(m *Model, level string) string {
	if m == nil || !ValidThinkingLevel(level) {
		return ThinkingOff
	}
	if !m.Reasoning {
		return ThinkingOff
	}
	if level == ThinkingMax && !m.CompatBool("supportsMax", false) {
		level = ThinkingXHigh
	}
	if level == ThinkingXHigh && !m.CompatBool("supportsXhigh", false) {
		return ThinkingHigh
	}
	return level
}
