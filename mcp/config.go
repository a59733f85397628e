package mcp

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
)

// maxConfigBytes bounds one mcp.json read.
const maxConfigBytes = 4 << 20

// DefaultIdleTimeout is how long a lazy server stays connected without calls before it is
// disconnected (pi-mcp-adapter: settings.idleTimeout, 10 minutes; 0 disables).
const DefaultIdleTimeout = 10 * time.Minute

// Lifecycle values of a server entry's "lifecycle".
const (
	// Lazy servers start on first use and stop after their idle timeout (the default).
	Lazy = "lazy"
	// Eager servers start in the background when the runtime starts; they still idle out.
	Eager = "eager"
	// KeepAlive servers start in the background, never idle out, and reconnect when they drop.
	KeepAlive = "keep-alive"
)

// Server is one entry of "mcpServers", after ${VAR} interpolation. Exactly one of Command
// (stdio) and URL (streamable HTTP, falling back to SSE) is set.
type Server struct {
	// Name is the key of the entry in mcpServers.
	Name string
	// File is the configuration file the entry came from.
	File string

	Command string
	Args    []string
	Env     map[string]string
	// Cwd is the working directory of a stdio server; relative values resolve against the
	// session directory.
	Cwd string

	URL     string
	Headers map[string]string
	// Auth is "bearer", "oauth" or "" (none); BearerToken is the resolved token for "bearer"
	// (bearerToken, or the value of the environment variable bearerTokenEnv).
	Auth        string
	BearerToken string

	// Lifecycle is Lazy, Eager or KeepAlive.
	Lifecycle string
	// IdleTimeout is how long the server may sit unused before it is disconnected; 0 never.
	IdleTimeout time.Duration
	// Timeout is the inactivity limit of one call (timeoutMs); progress notifications restart
	// it. 0 leaves calls bounded only by the caller.
	Timeout time.Duration
	// DirectAll registers every tool of the server as its own tool (directTools: true);
	// DirectNames registers only the named ones (directTools: ["a", "b"]).
	DirectAll   bool
	DirectNames []string
	// IncludeTools and ExcludeTools filter the server's tools by original or prefixed name;
	// "*" matches any run of characters.
	IncludeTools []string
	ExcludeTools []string
	// ExposeResources offers the server's resources as read_<name> tools (default true, as
	// pi-mcp-adapter).
	ExposeResources bool
	// Debug passes the server's stderr through to atomic's stderr.
	Debug bool

	// hash identifies the entry's connection-relevant fields for the metadata cache.
	hash string
}

// Config is the merged MCP configuration of the four files.
type Config struct {
	// Servers are the valid entries in name order.
	Servers []*Server
	// Files are the configuration files that exist, in precedence order (lowest first).
	Files []string
}

// Server returns the entry named name, or nil.
func (c *Config) Server(name string) *Server {
	if c == nil {
		return nil
	}
	for _, s := range c.Servers {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// LoadOptions say where the configuration files are.
type LoadOptions struct {
	// Home is the user's home directory (for ~/.config/mcp/mcp.json).
	Home string
	// AgentDir is atomic's agent directory (<agentDir>/mcp.json).
	AgentDir string
	// Cwd is the project directory (.mcp.json, .atomic/mcp.json, legacy .pi/mcp.json).
	Cwd string
	// ProjectTrusted allows the project files; an untrusted project's files are not read.
	ProjectTrusted bool
	// Getenv resolves ${VAR}; nil means os.Getenv.
	Getenv func(string) string
}

// ConfigFiles returns the configuration files in precedence order, lowest first:
// ~/.config/mcp/mcp.json, <agentDir>/mcp.json, then for a trusted project .mcp.json,
// .pi/mcp.json (legacy) and .atomic/mcp.json.
func ConfigFiles(o LoadOptions) []string {
	var files []string
	if o.Home != "" {
		files = append(files, filepath.Join(o.Home, ".config", "mcp", "mcp.json"))
	}
	if o.AgentDir != "" {
		files = append(files, filepath.Join(o.AgentDir, "mcp.json"))
	}
	if o.ProjectTrusted && o.Cwd != "" {
		files = append(files,
			filepath.Join(o.Cwd, ".mcp.json"),
			filepath.Join(o.Cwd, ".pi", "mcp.json"),
			filepath.Join(o.Cwd, ".atomic", "mcp.json"))
	}
	return files
}

// Load reads and merges the configuration files (ConfigFiles): an entry of a later file
// replaces the entry of the same name of an earlier one, and "settings" merge key by key. A
// file that does not exist is skipped. Every problem is returned as an error naming the file
// and the key (a file that is not JSON is skipped whole; an invalid entry is skipped alone),
// and never stops the other servers.
func Load(o LoadOptions) (*Config, []error) {
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	cfg := &Config{}
	var errs []error
	raws := map[string]rawEntry{}
	settings := map[string]json.RawMessage{}
	for _, file := range ConfigFiles(o) {
		data, err := readLimited(file)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("mcp config %s: %w", file, err))
			continue
		}
		cfg.Files = append(cfg.Files, file)
		var top struct {
			Servers  map[string]json.RawMessage `json:"mcpServers"`
			Settings json.RawMessage            `json:"settings"`
		}
		if err := json.Unmarshal(data, &top); err != nil {
			errs = append(errs, fmt.Errorf("mcp config %s: not a JSON object with mcpServers: %w", file, err))
			continue
		}
		if len(top.Settings) > 0 && !bytes.Equal(bytes.TrimSpace(top.Settings), []byte("null")) {
			var s map[string]json.RawMessage
			if err := json.Unmarshal(top.Settings, &s); err != nil {
				errs = append(errs, fmt.Errorf("mcp config %s: settings: want an object", file))
			}
			for k, v := range s {
				settings[k] = v
			}
		}
		for name, raw := range top.Servers {
			raws[name] = rawEntry{file: file, raw: raw}
		}
	}
	idle := DefaultIdleTimeout
	if v, ok := settings["idleTimeout"]; ok {
		var n float64
		if err := json.Unmarshal(v, &n); err != nil || n < 0 {
			errs = append(errs, fmt.Errorf("mcp config: settings.idleTimeout: want a number of minutes >= 0"))
		} else {
			idle = time.Duration(n * float64(time.Minute))
		}
	}
	globalDirect := false
	if v, ok := settings["directTools"]; ok {
		_ = json.Unmarshal(v, &globalDirect)
	}
	names := make([]string, 0, len(raws))
	for n := range raws {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		re := raws[name]
		s, err := parseServer(name, re.file, re.raw, idle, globalDirect, getenv, o.Cwd)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if s != nil {
			cfg.Servers = append(cfg.Servers, s)
		}
	}
	return cfg, errs
}

type rawEntry struct {
	file string
	raw  json.RawMessage
}

func readLimited(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxConfigBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxConfigBytes {
		return nil, fmt.Errorf("larger than %d bytes", maxConfigBytes)
	}
	return data, nil
}

var validName = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// parseServer validates one entry; the error names the file and the key. A nil server with a
// nil error is an entry switched off (enabled/disabled).
func parseServer(name, file string, raw json.RawMessage, idle time.Duration, globalDirect bool, getenv func(string) string, cwd string) (*Server, error) {
	bad := func(key, want string) error {
		return fmt.Errorf("mcp config %s: mcpServers.%s.%s: %s", file, name, key, want)
	}
	if !validName.MatchString(name) {
		return nil, fmt.Errorf("mcp config %s: mcpServers.%q: a server name may hold only letters, digits, '_', '-' and '.'", file, name)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("mcp config %s: mcpServers.%s: want an object", file, name)
	}
	s := &Server{Name: name, File: file, Lifecycle: Lazy, IdleTimeout: idle, ExposeResources: true, DirectAll: globalDirect}
	str := func(key string, dst *string) error {
		v, ok := m[key]
		if !ok {
			return nil
		}
		if err := json.Unmarshal(v, dst); err != nil {
			return bad(key, "want a string")
		}
		*dst = interpolate(*dst, getenv)
		return nil
	}
	strs := func(key string, dst *[]string, interp bool) error {
		v, ok := m[key]
		if !ok {
			return nil
		}
		if err := json.Unmarshal(v, dst); err != nil {
			return bad(key, "want an array of strings")
		}
		if interp {
			for i := range *dst {
				(*dst)[i] = interpolate((*dst)[i], getenv)
			}
		}
		return nil
	}
	dict := func(key string, dst *map[string]string) error {
		v, ok := m[key]
		if !ok {
			return nil
		}
		if err := json.Unmarshal(v, dst); err != nil {
			return bad(key, "want an object of strings")
		}
		for k, val := range *dst {
			(*dst)[k] = interpolate(val, getenv)
		}
		return nil
	}
	boolean := func(key string, dst *bool) error {
		v, ok := m[key]
		if !ok {
			return nil
		}
		if err := json.Unmarshal(v, dst); err != nil {
			return bad(key, "want true or false")
		}
		return nil
	}
	if v, ok := m["enabled"]; ok {
		var on bool
		if err := json.Unmarshal(v, &on); err != nil {
			return nil, bad("enabled", "want true or false")
		}
		if !on {
			return nil, nil
		}
	}
	var tokenEnv, token string
	for _, err := range []error{
		str("command", &s.Command), strs("args", &s.Args, true), dict("env", &s.Env), str("cwd", &s.Cwd),
		str("url", &s.URL), dict("headers", &s.Headers), str("bearerToken", &token), str("bearerTokenEnv", &tokenEnv),
		strs("includeTools", &s.IncludeTools, false), strs("excludeTools", &s.ExcludeTools, false),
		boolean("exposeResources", &s.ExposeResources), boolean("debug", &s.Debug),
	} {
		if err != nil {
			return nil, err
		}
	}
	if v, ok := m["auth"]; ok {
		var a any
		_ = json.Unmarshal(v, &a)
		switch a {
		case "bearer", "oauth":
			s.Auth = a.(string)
		case false, nil:
		default:
			return nil, bad("auth", `want "bearer", "oauth" or false`)
		}
	}
	if s.Auth == "bearer" {
		s.BearerToken = token
		if s.BearerToken == "" && tokenEnv != "" {
			s.BearerToken = getenv(tokenEnv)
		}
		if s.BearerToken == "" {
			return nil, bad("auth", "bearer auth needs bearerToken or bearerTokenEnv naming a set environment variable")
		}
	}
	if v, ok := m["lifecycle"]; ok {
		if err := json.Unmarshal(v, &s.Lifecycle); err != nil {
			return nil, bad("lifecycle", `want "lazy", "eager" or "keep-alive"`)
		}
		switch s.Lifecycle {
		case Lazy, Eager, KeepAlive:
		case "lazy-keep-alive":
			s.Lifecycle = KeepAlive
		default:
			return nil, bad("lifecycle", fmt.Sprintf(`%q: want "lazy", "eager" or "keep-alive"`, s.Lifecycle))
		}
	}
	if v, ok := m["idleTimeout"]; ok {
		var n float64
		if err := json.Unmarshal(v, &n); err != nil || n < 0 {
			return nil, bad("idleTimeout", "want a number of minutes >= 0")
		}
		s.IdleTimeout = time.Duration(n * float64(time.Minute))
	}
	for _, key := range []string{"timeoutMs", "requestTimeoutMs"} {
		v, ok := m[key]
		if !ok {
			continue
		}
		var n float64
		if err := json.Unmarshal(v, &n); err != nil || n < 0 {
			return nil, bad(key, "want a number of milliseconds >= 0")
		}
		s.Timeout = time.Duration(n * float64(time.Millisecond))
	}
	if v, ok := m["directTools"]; ok {
		var b bool
		if err := json.Unmarshal(v, &b); err == nil {
			s.DirectAll = b
		} else if err := json.Unmarshal(v, &s.DirectNames); err == nil {
			s.DirectAll = false
		} else {
			return nil, bad("directTools", "want true, false or an array of tool names")
		}
	}
	switch {
	case s.Command != "" && s.URL != "":
		return nil, bad("command", "set either command (stdio) or url (HTTP), not both")
	case s.Command == "" && s.URL == "":
		return nil, fmt.Errorf("mcp config %s: mcpServers.%s: needs command (stdio) or url (HTTP)", file, name)
	}
	if s.URL != "" && !strings.HasPrefix(s.URL, "http://") && !strings.HasPrefix(s.URL, "https://") {
		return nil, bad("url", fmt.Sprintf("%q is not an http(s) URL", s.URL))
	}
	if s.Cwd != "" && !filepath.IsAbs(s.Cwd) && cwd != "" {
		s.Cwd = filepath.Join(cwd, s.Cwd)
	}
	h, _ := json.Marshal([]any{s.Command, s.Args, s.Env, s.Cwd, s.URL, s.Headers, s.Auth, s.IncludeTools, s.ExcludeTools, s.ExposeResources})
	sum := sha256.Sum256(h)
	s.hash = hex.EncodeToString(sum[:])
	return s, nil
}

var envRef = regexp.MustCompile(`\$\{(\w+)\}|\$env:(\w+)|\{env:(\w+)\}`)

// interpolate replaces ${VAR}, $env:VAR and {env:VAR} with the variable's value ("" when unset),
// as pi-mcp-adapter does.
func interpolate(s string, getenv func(string) string) string {
	if !strings.ContainsAny(s, "${") {
		return s
	}
	return envRef.ReplaceAllStringFunc(s, func(m string) string {
		sub := envRef.FindStringSubmatch(m)
		for _, n := range sub[1:] {
			if n != "" {
				return getenv(n)
			}
		}
		return ""
	})
}
