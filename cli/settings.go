package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/model"
	"github.com/atomic-cli/atomic/resource"
	"github.com/atomic-cli/atomic/session"
)

// loadSettings reads the merged settings.json files (config-and-resources.md §2); the project
// file is read only when the project is trusted (trust.go; the decision made for extensions is
// reused). Problems are printed as warnings.
func (o *Options) loadSettings(agentDir, cwd string) resource.Settings {
	trusted := o.projectTrusted(agentDir, cwd, nil).trusted
	s, warnings := resource.LoadSettings(resource.SettingsOptions{AgentDir: agentDir, Cwd: cwd, ProjectTrusted: trusted})
	for _, w := range warnings {
		o.warnOnce(w)
	}
	if s.DefaultThinkingLevel != "" && !llm.ValidThinkingLevel(s.DefaultThinkingLevel) {
		fmt.Fprintf(o.Stderr, "Warning: settings: defaultThinkingLevel: unknown level %q (use %s); ignoring it\n", s.DefaultThinkingLevel, strings.Join(llm.ThinkingLevels, ", "))
		s.DefaultThinkingLevel = ""
	}
	return s
}

// settingsModel is the saved default model of the settings, nil when none is set or it is not
// known (with a warning).
func (o *Options) settingsModel(reg *model.Registry, s resource.Settings) *llm.Model {
	if s.DefaultModel == "" {
		return nil
	}
	if s.DefaultProvider != "" {
		if m := reg.Find(s.DefaultProvider, s.DefaultModel); m != nil {
			return m
		}
	}
	m, _, err := reg.Resolve(s.DefaultModel, s.DefaultProvider)
	if err != nil {
		fmt.Fprintf(o.Stderr, "Warning: settings: defaultModel %q: %v\n", s.DefaultModel, err)
		return nil
	}
	return m
}

// retryOptions turns the retry settings and fallbackModels into session options; fallbacks that
// do not resolve are reported and skipped.
func (o *Options) retryOptions(reg *model.Registry, s resource.Settings, primary *llm.Model) session.RetryOptions {
	r := session.RetryOptions{
		Enabled:    s.Retry.Enabled,
		MaxRetries: s.Retry.MaxRetries,
		BaseDelay:  time.Duration(s.Retry.BaseDelayMs) * time.Millisecond,
		MaxDelay:   time.Duration(s.Retry.MaxDelayMs) * time.Millisecond,

		MaxRetryDelay:  time.Duration(s.Retry.MaxRetryDelayMs) * time.Millisecond,
		StreamDeadline: time.Duration(s.StreamDeadlineMs) * time.Millisecond,
	}
	if reg == nil {
		return r
	}
	for _, pattern := range s.FallbackModels {
		m, level, err := reg.Resolve(pattern, "")
		if err != nil {
			fmt.Fprintf(o.Stderr, "Warning: settings: fallbackModels: %q: %v\n", pattern, err)
			continue
		}
		if primary != nil && m.Provider == primary.Provider && m.ID == primary.ID {
			continue
		}
		r.Fallbacks = append(r.Fallbacks, session.RetryFallback{Model: m, ThinkingLevel: level})
	}
	return r
}

// compactionOptions maps the compaction settings (config-and-resources.md §2) onto the session.
func compactionOptions(s resource.Settings) session.CompactionSettings {
	c := s.Compaction
	preserve := c.PreserveRecent
	return session.CompactionSettings{
		Disabled:         !c.Enabled,
		ReserveTokens:    int64(c.ReserveTokens),
		CompressionRatio: c.CompressionRatio,
		PreserveRecent:   &preserve,
	}
}
