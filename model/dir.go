package model

import (
	"os"
	"path/filepath"
	"strings"
)

// Naming (config-and-resources.md §1): the app name, its config directory and the prefix of its
// environment variables, with pi's names accepted as lower-precedence fallbacks.
const (
	AppName             = "atomic"
	ConfigDirName       = ".atomic"
	LegacyConfigDirName = ".pi"
	EnvPrefix           = "ATOMIC_"
	LegacyEnvPrefix     = "PI_"
)

// Files of the agent directory owned by this package (config-and-resources.md §1).
const (
	ModelsFile = "models.json"
	AuthFile   = "auth.json"
)

// Getenv returns the value of the app variable name given without prefix ("CODING_AGENT_DIR",
// "OFFLINE", "CODING_AGENT_SESSION_DIR", ...): ATOMIC_<name> when set and non-empty, else
// PI_<name>, else "" (config-and-resources.md §15: the Atomic name wins when both are set).
func Getenv(name string) string {
	if v := os.Getenv(EnvPrefix + name); v != "" {
		return v
	}
	return os.Getenv(LegacyEnvPrefix + name)
}

// AgentDir returns the user's agent directory (config-and-resources.md §1): ATOMIC_CODING_AGENT_DIR,
// else PI_CODING_AGENT_DIR, else ~/.atomic/agent. A leading "~" in the variable is expanded to the
// home directory. When the home directory is unknown the default is relative: .atomic/agent.
// The directory is not created.
func AgentDir() string {
	if v := Getenv("CODING_AGENT_DIR"); v != "" {
		return ExpandHome(v)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(ConfigDirName, "agent")
	}
	return filepath.Join(home, ConfigDirName, "agent")
}

// ExpandHome replaces a leading "~" or "~/" (also "~\" on Windows) in path by the user's home
// directory; any other path, or any path when the home directory is unknown, is returned unchanged.
func ExpandHome(path string) string {
	if path != "~" && !strings.HasPrefix(path, "~/") && !(filepath.Separator == '\\' && strings.HasPrefix(path, `~\`)) {
		return path
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return path
	}
	if path == "~" {
		return home
	}
	return filepath.Join(home, path[2:])
}
