package resource

// settings.json (config-and-resources.md §2): the global file in the agent dir and the project
// file in <cwd>/.atomic (legacy <cwd>/.pi), merged project over global.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Settings is the typed view of the merged settings.json files. Fields absent from every file
// hold their documented defaults (DefaultSettings). Raw is the merged JSON object with every key,
// known or not, so settings atomic does not interpret yet survive.
type Settings struct {
	DefaultProvider      string `json:"defaultProvider,omitempty"`
	DefaultModel         string `json:"defaultModel,omitempty"`
	DefaultThinkingLevel string `json:"defaultThinkingLevel,omitempty"`

	Compaction CompactionSettings `json:"compaction"`
	Retry      RetrySettings      `json:"retry"`
	Images     ImageSettings      `json:"images"`

	// FallbackModels is Atomic's ordered fallback chain (`provider/model[:level]`) tried after the
	// retries of the primary model are exhausted. `retry.fallbackModels` is accepted too.
	FallbackModels []string `json:"fallbackModels,omitempty"`

	// StreamDeadlineMs is the longest silence of a provider stream, in milliseconds, before it is
	// cut and retried (Atomic's streamDeadlineMs; default 300000; 0 or "disabled" turns it off).
	StreamDeadlineMs int `json:"streamDeadlineMs"`
	// HTTPIdleTimeoutMs closes idle provider connections after this many milliseconds (default
	// 600000).
	HTTPIdleTimeoutMs int `json:"httpIdleTimeoutMs"`
	// ExtensionHandlerTimeoutMs bounds every awaited extension handler, in milliseconds (Atomic's
	// key; default 30000): past it a fail-closed event blocks, a transform keeps its value, and
	// the error names the extension and the event. The extension host is restarted only when it
	// stays unresponsive that long.
	ExtensionHandlerTimeoutMs int `json:"extensionHandlerTimeoutMs"`

	// Theme names the interactive mode's theme: dark (default), light, or a theme file's name in
	// <agentDir>/themes (tui.md §5.1).
	Theme string `json:"theme,omitempty"`

	// SteeringMode and FollowUpMode are "one-at-a-time" (default) or "all": how many queued
	// steering / follow-up messages are delivered at once (pi's keys; "" keeps the default).
	SteeringMode string `json:"steeringMode,omitempty"`
	FollowUpMode string `json:"followUpMode,omitempty"`

	// Skills and Prompts are the settings `skills` and `prompts` entries: extra skill and
	// prompt-template files or directories (config-and-resources.md §10–11).
	Skills  []string `json:"skills,omitempty"`
	Prompts []string `json:"prompts,omitempty"`

	// ShellPath is the shell of the bash tool, the user's `!` commands and the extension host's
	// createLocalBashOperations (setting shellPath; it must exist, else each command fails with
	// "Custom shell path not found"); "" resolves /bin/bash, bash on PATH, then sh (tools.md §5.1).
	ShellPath string `json:"shellPath,omitempty"`
	// ShellCommandPrefix (setting shellCommandPrefix) is prepended as "<prefix>\n<command>" to
	// every command of the bash tool and of the user's `!` commands.
	ShellCommandPrefix string `json:"shellCommandPrefix,omitempty"`

	// DefaultTools is Atomic's defaultTools: the built-in tools active at start when neither
	// --tools nor --no-tools/--no-builtin-tools is given; nil when the key is unset (pi's
	// read,bash,edit,write apply), empty for none. Extension and MCP tools are not affected.
	// Non-string entries are dropped, as Atomic does.
	DefaultTools []string `json:"defaultTools,omitempty"`

	// DefaultProjectTrust is "ask" (default), "always" or "never"; read from the global file only.
	DefaultProjectTrust string `json:"defaultProjectTrust,omitempty"`

	// Raw is the merged object, unknown keys included.
	Raw map[string]any `json:"-"`
}

// CompactionSettings are pi's and Atomic's compaction keys (both spellings are kept).
type CompactionSettings struct {
	Enabled          bool    `json:"enabled"`
	ReserveTokens    int     `json:"reserveTokens"`
	KeepRecentTokens int     `json:"keepRecentTokens"`
	CompressionRatio float64 `json:"compression_ratio"`
	PreserveRecent   int     `json:"preserve_recent"`
	Query            string  `json:"query,omitempty"`
}

// RetrySettings configure automatic retry of retryable provider failures: the backoff before
// attempt n is BaseDelayMs × 2^(n-1), capped at MaxDelayMs (0 = no cap).
type RetrySettings struct {
	Enabled     bool `json:"enabled"`
	MaxRetries  int  `json:"maxRetries"`
	BaseDelayMs int  `json:"baseDelayMs"`
	MaxDelayMs  int  `json:"maxDelayMs"`
	// MaxRetryDelayMs is the longest server-requested delay (retry-after) that is waited for
	// (retry.provider.maxRetryDelayMs, default 60000); a longer one fails at once.
	MaxRetryDelayMs int `json:"maxRetryDelayMs"`
}

// ImageSettings are the `images` keys.
type ImageSettings struct {
	AutoResize  bool `json:"autoResize"`
	BlockImages bool `json:"blockImages"`
}

// DefaultSettings returns the defaults of config-and-resources.md §2 (pi's values).
func DefaultSettings() Settings {
	return Settings{
		Compaction:                CompactionSettings{Enabled: true, ReserveTokens: 16384, KeepRecentTokens: 20000, CompressionRatio: 0.5, PreserveRecent: 2},
		Retry:                     RetrySettings{Enabled: true, MaxRetries: 3, BaseDelayMs: 2000, MaxDelayMs: 60000, MaxRetryDelayMs: 60000},
		StreamDeadlineMs:          300000,
		HTTPIdleTimeoutMs:         600000,
		Images:                    ImageSettings{AutoResize: true},
		Raw:                       map[string]any{},
		ExtensionHandlerTimeoutMs: 30000,
	}
}

// SettingsOptions say where LoadSettings looks.
type SettingsOptions struct {
	AgentDir string
	Cwd      string
	// ProjectTrusted loads the project file; an untrusted project's file is skipped with a
	// warning (Atomic; pi always loads it).
	ProjectTrusted bool
}

// SettingsPaths returns the global file and the project file that would be read (the project
// one is .atomic/settings.json, else the legacy .pi/settings.json, else "").
func SettingsPaths(agentDir, cwd string) (global, project string) {
	global = filepath.Join(agentDir, "settings.json")
	for _, d := range []string{".atomic", ".pi"} {
		p := filepath.Join(cwd, d, "settings.json")
		if _, err := os.Stat(p); err == nil {
			return global, p
		}
	}
	return global, ""
}

// LoadSettings reads and merges the settings files. Missing files are not an error; a file that
// cannot be read or parsed is skipped and reported, and so is a known key with a value of the
// wrong type (which keeps its default). Every warning names the file and, for values, the key.
func LoadSettings(o SettingsOptions) (Settings, []error) {
	var warnings []error
	globalPath, projectPath := SettingsPaths(o.AgentDir, o.Cwd)
	global := readSettingsFile(globalPath, &warnings)
	merged := global
	var project map[string]any
	if projectPath != "" {
		if !o.ProjectTrusted {
			warnings = append(warnings, fmt.Errorf("%s: skipped: the project is not trusted; pass --approve (-a) or trust it in %s", projectPath, filepath.Join(o.AgentDir, "trust.json")))
		} else if project = readSettingsFile(projectPath, &warnings); project != nil {
			delete(project, "defaultProjectTrust") // global only
			merged = MergeSettings(global, project)
		}
	}
	if merged == nil {
		merged = map[string]any{}
	}
	s := DefaultSettings()
	s.Raw = merged
	file := func(key string) string {
		if _, ok := lookup(project, key); ok {
			return projectPath
		}
		return globalPath
	}
	d := decoder{raw: merged, file: file, warnings: &warnings}
	d.str("defaultProvider", &s.DefaultProvider)
	d.str("defaultModel", &s.DefaultModel)
	d.str("defaultThinkingLevel", &s.DefaultThinkingLevel)
	d.boolean("compaction.enabled", &s.Compaction.Enabled)
	d.integer("compaction.reserveTokens", &s.Compaction.ReserveTokens)
	d.integer("compaction.keepRecentTokens", &s.Compaction.KeepRecentTokens)
	d.number("compaction.compression_ratio", &s.Compaction.CompressionRatio)
	d.integer("compaction.preserve_recent", &s.Compaction.PreserveRecent)
	d.str("compaction.query", &s.Compaction.Query)
	d.boolean("retry.enabled", &s.Retry.Enabled)
	d.integer("retry.maxRetries", &s.Retry.MaxRetries)
	d.integer("retry.baseDelayMs", &s.Retry.BaseDelayMs)
	d.integer("retry.maxDelayMs", &s.Retry.MaxDelayMs)
	d.integer("retry.provider.maxRetryDelayMs", &s.Retry.MaxRetryDelayMs)
	if v, ok := lookup(merged, "streamDeadlineMs"); ok && v == "disabled" {
		s.StreamDeadlineMs = 0
	} else {
		d.integer("streamDeadlineMs", &s.StreamDeadlineMs)
	}
	d.integer("httpIdleTimeoutMs", &s.HTTPIdleTimeoutMs)
	d.strings("retry.fallbackModels", &s.FallbackModels)
	d.strings("fallbackModels", &s.FallbackModels)
	d.strings("skills", &s.Skills)
	d.strings("prompts", &s.Prompts)
	d.boolean("images.autoResize", &s.Images.AutoResize)
	d.boolean("images.blockImages", &s.Images.BlockImages)
	d.integer("extensionHandlerTimeoutMs", &s.ExtensionHandlerTimeoutMs)
	if s.ExtensionHandlerTimeoutMs <= 0 {
		warnings = append(warnings, fmt.Errorf("%s: extensionHandlerTimeoutMs: must be positive, got %d; using 30000", file("extensionHandlerTimeoutMs"), s.ExtensionHandlerTimeoutMs))
		s.ExtensionHandlerTimeoutMs = DefaultSettings().ExtensionHandlerTimeoutMs
	}
	d.str("defaultProjectTrust", &s.DefaultProjectTrust)
	d.str("theme", &s.Theme)
	d.str("shellPath", &s.ShellPath)
	d.str("shellCommandPrefix", &s.ShellCommandPrefix)
	if v, ok := lookup(merged, "defaultTools"); ok {
		if arr, isArr := v.([]any); isArr {
			s.DefaultTools = []string{}
			for _, e := range arr {
				if name, isStr := e.(string); isStr {
					s.DefaultTools = append(s.DefaultTools, name)
				}
			}
		} else if v != nil {
			d.bad("defaultTools", v, "an array of strings")
		}
	}
	d.str("steeringMode", &s.SteeringMode)
	d.str("followUpMode", &s.FollowUpMode)
	if v := s.DefaultProjectTrust; v != "" && v != "ask" && v != "always" && v != "never" {
		warnings = append(warnings, fmt.Errorf("%s: defaultProjectTrust: %q is not ask, always or never; using ask", file("defaultProjectTrust"), v))
		s.DefaultProjectTrust = ""
	}
	for _, k := range []string{"retry.maxRetries", "retry.baseDelayMs", "retry.maxDelayMs", "retry.provider.maxRetryDelayMs", "streamDeadlineMs", "httpIdleTimeoutMs", "compaction.reserveTokens", "compaction.keepRecentTokens"} {
		if v, ok := lookup(merged, k); ok {
			if f, isNum := v.(float64); isNum && f < 0 {
				warnings = append(warnings, fmt.Errorf("%s: %s: must not be negative, got %v; using the default", file(k), k, f))
				def := DefaultSettings()
				switch k {
				case "retry.maxRetries":
					s.Retry.MaxRetries = def.Retry.MaxRetries
				case "retry.baseDelayMs":
					s.Retry.BaseDelayMs = def.Retry.BaseDelayMs
				case "retry.maxDelayMs":
					s.Retry.MaxDelayMs = def.Retry.MaxDelayMs
				case "retry.provider.maxRetryDelayMs":
					s.Retry.MaxRetryDelayMs = def.Retry.MaxRetryDelayMs
				case "streamDeadlineMs":
					s.StreamDeadlineMs = def.StreamDeadlineMs
				case "httpIdleTimeoutMs":
					s.HTTPIdleTimeoutMs = def.HTTPIdleTimeoutMs
				case "compaction.reserveTokens":
					s.Compaction.ReserveTokens = def.Compaction.ReserveTokens
				case "compaction.keepRecentTokens":
					s.Compaction.KeepRecentTokens = def.Compaction.KeepRecentTokens
				}
			}
		}
	}
	return s, warnings
}

// MergeSettings returns base with over merged in: nested objects merge recursively, arrays and
// scalars of over replace base's (config-and-resources.md §2). Neither input is modified.
func MergeSettings(base, over map[string]any) map[string]any {
	out := make(map[string]any, len(base)+len(over))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		bo, bok := out[k].(map[string]any)
		oo, ook := v.(map[string]any)
		if bok && ook {
			out[k] = MergeSettings(bo, oo)
			continue
		}
		out[k] = v
	}
	return out
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

func readSettingsFile(path string, warnings *[]error) map[string]any {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		*warnings = append(*warnings, fmt.Errorf("settings: %w", err))
		return nil
	}
	b = bytes.TrimPrefix(b, utf8BOM)
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		*warnings = append(*warnings, fmt.Errorf("%s: invalid JSON, ignoring the file: %v", path, err))
		return nil
	}
	return m
}

// lookup finds a dotted key ("retry.enabled") in m.
func lookup(m map[string]any, key string) (any, bool) {
	parts := strings.Split(key, ".")
	var cur any = m
	for _, p := range parts {
		obj, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = obj[p]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// decoder reads typed values out of the merged object, reporting wrong types.
type decoder struct {
	raw      map[string]any
	file     func(key string) string
	warnings *[]error
}

func (d decoder) bad(key string, v any, want string) {
	*d.warnings = append(*d.warnings, fmt.Errorf("%s: %s: expected %s, got %s; using the default", d.file(key), key, want, jsonKind(v)))
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case float64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

func (d decoder) str(key string, dst *string) {
	if v, ok := lookup(d.raw, key); ok {
		if s, ok := v.(string); ok {
			*dst = s
		} else {
			d.bad(key, v, "a string")
		}
	}
}

func (d decoder) boolean(key string, dst *bool) {
	if v, ok := lookup(d.raw, key); ok {
		if b, ok := v.(bool); ok {
			*dst = b
		} else {
			d.bad(key, v, "a boolean")
		}
	}
}

func (d decoder) number(key string, dst *float64) {
	if v, ok := lookup(d.raw, key); ok {
		if f, ok := v.(float64); ok {
			*dst = f
		} else {
			d.bad(key, v, "a number")
		}
	}
}

func (d decoder) integer(key string, dst *int) {
	if v, ok := lookup(d.raw, key); ok {
		if f, ok := v.(float64); ok && f == float64(int(f)) {
			*dst = int(f)
		} else {
			d.bad(key, v, "an integer")
		}
	}
}

func (d decoder) strings(key string, dst *[]string) {
	v, ok := lookup(d.raw, key)
	if !ok {
		return
	}
	arr, ok := v.([]any)
	if !ok {
		d.bad(key, v, "an array of strings")
		return
	}
	out := make([]string, 0, len(arr))
	for _, e := range arr {
		s, ok := e.(string)
		if !ok {
			d.bad(key, v, "an array of strings")
			return
		}
		out = append(out, s)
	}
	*dst = out
}

// Keys returns the merged top-level keys, sorted (for diagnostics).
func (s Settings) Keys() []string {
	keys := make([]string, 0, len(s.Raw))
	for k := range s.Raw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// ExtensionHandlerTimeout is ExtensionHandlerTimeoutMs as a duration.
func (s Settings) ExtensionHandlerTimeout() time.Duration {
	return time.Duration(s.ExtensionHandlerTimeoutMs) * time.Millisecond
}

// DefaultProjectTrust returns the global settings' defaultProjectTrust ("always", "never", else
// "ask"), read from <agentDir>/settings.json only: it is a global-only key, needed before the
// project's trust (and so its settings file) is decided. Problems are left to LoadSettings.
func DefaultProjectTrust(agentDir string) string {
	var ignored []error
	m := readSettingsFile(filepath.Join(agentDir, "settings.json"), &ignored)
	if v, ok := m["defaultProjectTrust"].(string); ok && (v == "always" || v == "never") {
		return v
	}
	return "ask"
}

// maxSettingsFile bounds the settings.json read before SaveGlobalSetting rewrites it, in bytes.
const maxSettingsFile = 4 << 20

// SaveGlobalSetting sets one key of the global settings file <agentDir>/settings.json — a dotted
// key ("compaction.enabled") sets a member of an object, creating the object — and rewrites the
// file atomically (a temporary file renamed over it), keeping every other key, as pi's and
// Atomic's settings managers do when the user changes a setting in the interactive mode. A file
// that exists but is not a JSON object is left untouched and reported, so a hand-edited file
// with a typo is never overwritten. Keys are written sorted, indented by two spaces.
func SaveGlobalSetting(agentDir, key string, value any) error {
	return saveSettingsKey(filepath.Join(agentDir, "settings.json"), key, value)
}

// saveSettingsKey is SaveGlobalSetting for any settings file (a project's too).
func saveSettingsKey(path, key string, value any) error {
	dir := filepath.Dir(path)
	m := map[string]any{}
	mode := os.FileMode(0o644)
	if f, err := os.Open(path); err == nil {
		st, serr := f.Stat()
		b, rerr := io.ReadAll(io.LimitReader(f, maxSettingsFile+1))
		f.Close()
		switch {
		case serr != nil || rerr != nil:
			return fmt.Errorf("settings: save %s in %s: %w", key, path, errors.Join(serr, rerr))
		case len(b) > maxSettingsFile:
			return fmt.Errorf("settings: save %s: %s is larger than %d bytes", key, path, maxSettingsFile)
		}
		mode = st.Mode().Perm()
		if b = bytes.TrimSpace(bytes.TrimPrefix(b, utf8BOM)); len(b) > 0 {
			if err := json.Unmarshal(b, &m); err != nil || m == nil {
				return fmt.Errorf("settings: save %s: %s is not a JSON object (fix the file; it was left as it is): %v", key, path, err)
			}
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("settings: save %s: %w", key, err)
	}
	parts := strings.Split(key, ".")
	obj := m
	for _, p := range parts[:len(parts)-1] {
		next, ok := obj[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			obj[p] = next
		}
		obj = next
	}
	obj[parts[len(parts)-1]] = value
	out, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("settings: save %s: %w", key, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("settings: save %s: %w", key, err)
	}
	tmp, err := os.CreateTemp(dir, ".settings-*.json")
	if err != nil {
		return fmt.Errorf("settings: save %s: %w", key, err)
	}
	_, werr := tmp.Write(append(out, '\n'))
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr, os.Chmod(tmp.Name(), mode)); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("settings: save %s in %s: %w", key, path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("settings: save %s in %s: %w", key, path, err)
	}
	return nil
}
