package mcp

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// CacheFile is the name of the metadata cache in the agent directory (pi-mcp-adapter's
// mcp-cache.json): the tools of each server, so search and describe work without starting it.
const CacheFile = "mcp-cache.json"

// cacheMaxAge is how long a cache entry is trusted (pi-mcp-adapter: 7 days).
const cacheMaxAge = 7 * 24 * time.Hour

const cacheVersion = 1

// ToolMeta describes one tool of a server: an MCP tool, or a resource offered as a read_<name>
// tool (ResourceURI set).
type ToolMeta struct {
	// Server is the configured server name.
	Server string `json:"-"`
	// Name is the tool's name as atomic offers it: <server>_<tool>, '.' replaced by '_'.
	Name string `json:"-"`
	// Original is the name the server knows the tool by.
	Original    string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
	ResourceURI string          `json:"resourceUri,omitempty"`
	MimeType    string          `json:"mimeType,omitempty"`
}

// ToolName is the name atomic gives tool of server (pi-mcp-adapter's "server" prefix): the
// server name with characters other than letters, digits, '_' and '-' escaped, '_', then the
// tool name with '.' replaced by '_'; a tool already named <prefix>_... keeps its name.
func ToolName(server, tool string) string {
	var b strings.Builder
	for _, r := range server {
		if r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			b.WriteRune(r)
		} else {
			fmt.Fprintf(&b, "_%x_", r)
		}
	}
	p := b.String()
	t := strings.ReplaceAll(tool, ".", "_")
	if strings.HasPrefix(t, p+"_") && len(t) > len(p)+1 {
		return t
	}
	return p + "_" + t
}

var nonWord = regexp.MustCompile(`[^a-zA-Z0-9]+`)

// resourceToolName turns a resource name into a tool-name part: runs of other characters become
// one '_', lower case, never empty and never starting with a digit.
func resourceToolName(name string) string {
	r := strings.ToLower(strings.Trim(nonWord.ReplaceAllString(name, "_"), "_"))
	if r == "" || r[0] >= '0' && r[0] <= '9' {
		if r == "" {
			return "resource"
		}
		return "resource_" + r
	}
	return r
}

// finishMeta names the tools and applies includeTools/excludeTools.
func finishMeta(cfg *Server, tools []ToolMeta) []ToolMeta {
	out := tools[:0]
	for _, t := range tools {
		t.Server = cfg.Name
		t.Name = ToolName(cfg.Name, t.Original)
		if len(cfg.IncludeTools) > 0 && !matchAny(cfg.IncludeTools, t.Original, t.Name) {
			continue
		}
		if matchAny(cfg.ExcludeTools, t.Original, t.Name) {
			continue
		}
		out = append(out, t)
	}
	return out
}

// matchAny reports whether one of names matches one of the patterns ('*' matches any run).
func matchAny(patterns []string, names ...string) bool {
	for _, p := range patterns {
		for _, n := range names {
			if globMatch(p, n) {
				return true
			}
		}
	}
	return false
}

func globMatch(pattern, s string) bool {
	if !strings.Contains(pattern, "*") {
		return pattern == s
	}
	parts := strings.Split(pattern, "*")
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	for _, part := range parts[1 : len(parts)-1] {
		i := strings.Index(s, part)
		if i < 0 {
			return false
		}
		s = s[i+len(part):]
	}
	return strings.HasSuffix(s, parts[len(parts)-1])
}

// cacheFile is the on-disk metadata cache.
type cacheFile struct {
	Version int                    `json:"version"`
	Servers map[string]*cacheEntry `json:"servers"`
}

type cacheEntry struct {
	ConfigHash string     `json:"configHash"`
	CachedAt   int64      `json:"cachedAt"` // Unix milliseconds
	Tools      []ToolMeta `json:"tools"`
}

func (m *Manager) cachePath() string {
	if m.opts.AgentDir == "" {
		return ""
	}
	return filepath.Join(m.opts.AgentDir, CacheFile)
}

// loadCache reads the cache once; a missing or unreadable file is an empty cache.
func (m *Manager) loadCache() {
	m.cacheOnce.Do(func() {
		c := &cacheFile{Version: cacheVersion, Servers: map[string]*cacheEntry{}}
		if p := m.cachePath(); p != "" {
			if data, err := readLimited(p); err == nil {
				var f cacheFile
				if json.Unmarshal(data, &f) == nil && f.Version == cacheVersion && f.Servers != nil {
					c = &f
				}
			}
		}
		m.cacheMu.Lock()
		m.cache = c
		m.cacheMu.Unlock()
	})
}

// cachedTools returns the cached tools of cfg when the entry matches its configuration and is
// fresh, else nil.
func (m *Manager) cachedTools(cfg *Server) []ToolMeta {
	m.loadCache()
	m.cacheMu.Lock()
	defer m.cacheMu.Unlock()
	e := m.cache.Servers[cfg.Name]
	if e == nil || e.ConfigHash != cfg.hash || time.Since(time.UnixMilli(e.CachedAt)) > cacheMaxAge {
		return nil
	}
	out := make([]ToolMeta, len(e.Tools))
	copy(out, e.Tools)
	return finishMeta(cfg, out)
}

// saveCache records the tools of cfg, merging with what another process wrote meanwhile;
// written to a temporary file and renamed, so a reader never sees half a file.
func (m *Manager) saveCache(cfg *Server, tools []ToolMeta) {
	m.loadCache()
	e := &cacheEntry{ConfigHash: cfg.hash, CachedAt: time.Now().UnixMilli(), Tools: tools}
	m.cacheMu.Lock()
	defer m.cacheMu.Unlock()
	m.cache.Servers[cfg.Name] = e
	p := m.cachePath()
	if p == "" {
		return
	}
	merged := &cacheFile{Version: cacheVersion, Servers: map[string]*cacheEntry{}}
	if data, err := readLimited(p); err == nil {
		var f cacheFile
		if json.Unmarshal(data, &f) == nil && f.Version == cacheVersion && f.Servers != nil {
			merged = &f
		}
	}
	merged.Servers[cfg.Name] = e
	data, err := json.Marshal(merged)
	if err != nil {
		return
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return
	}
	tmp := fmt.Sprintf("%s.%d.tmp", p, os.Getpid())
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return
	}
	if err := os.Rename(tmp, p); err != nil {
		_ = os.Remove(tmp)
	}
}
