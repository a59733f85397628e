package model

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// ErrUnresolved is wrapped by every error of ResolveValue: the value resolved to nothing (a
// variable it references is unset or empty, its command failed or printed nothing, or it is empty).
var ErrUnresolved = errors.New("value unresolved")

// CommandTimeout bounds a "!command" config value (config-and-resources.md §7.1).
const CommandTimeout = 10 * time.Second

// ResolveValue resolves a config value — a models.json apiKey or header value, or an auth.json
// key — in Atomic's form (config-and-resources.md §7.1):
//
//   - "!command" runs command with the system shell (sh -c; cmd /C on Windows), at most
//     CommandTimeout, and yields its standard output with surrounding white space trimmed;
//   - anything else is a template: $NAME and ${NAME} are replaced by the environment variable NAME
//     (NAME is [A-Za-z_][A-Za-z0-9_]*), "$$" yields "$" and "$!" yields "!"; a "$" not followed by
//     one of these is kept as is. A string without "$" is a literal.
//
// The result is never empty: an unset or empty variable, a failing or silent command, or an empty
// value give an error wrapping ErrUnresolved that names the variable or the command. Results are
// not cached; a command runs on every call.
func ResolveValue(value string) (string, error) {
	return resolveValue(value, nil)
}

// resolveValue is ResolveValue with env consulted before the process environment, both for template
// variables and for the environment of a command (auth.json "env", §7.1).
func resolveValue(value string, env map[string]string) (string, error) {
	if cmd, ok := strings.CutPrefix(value, "!"); ok {
		return runValueCommand(cmd, env)
	}
	out, err := expandTemplate(value, func(name string) string {
		if v, ok := env[name]; ok {
			return v
		}
		return os.Getenv(name)
	})
	if err != nil {
		return "", err
	}
	if out == "" {
		return "", fmt.Errorf("%w: empty value", ErrUnresolved)
	}
	return out, nil
}

// valueConfigured reports, without running any command, whether value can plausibly resolve: a
// command counts as configured, a template only when all its variables are set.
func valueConfigured(value string, env map[string]string) bool {
	if strings.HasPrefix(value, "!") {
		return strings.TrimSpace(value[1:]) != ""
	}
	_, err := resolveValue(value, env)
	return err == nil
}

// expandTemplate performs the $-substitution of ResolveValue with lookup.
func expandTemplate(s string, lookup func(string) string) (string, error) {
	i := strings.IndexByte(s, '$')
	if i < 0 {
		return s, nil
	}
	var b strings.Builder
	b.Grow(len(s))
	for i >= 0 {
		b.WriteString(s[:i])
		s = s[i+1:]
		name, rest := "", s
		switch {
		case s == "":
			b.WriteByte('$')
		case s[0] == '$' || s[0] == '!':
			b.WriteByte(s[0])
			rest = s[1:]
		case s[0] == '{':
			n := varNameLen(s[1:])
			if n > 0 && n+1 < len(s) && s[n+1] == '}' {
				name, rest = s[1:n+1], s[n+2:]
			} else {
				b.WriteByte('$')
			}
		default:
			if n := varNameLen(s); n > 0 {
				name, rest = s[:n], s[n:]
			} else {
				b.WriteByte('$')
			}
		}
		if name != "" {
			v := lookup(name)
			if v == "" {
				return "", fmt.Errorf("%w: environment variable %s is not set", ErrUnresolved, name)
			}
			b.WriteString(v)
		}
		s = rest
		i = strings.IndexByte(s, '$')
	}
	b.WriteString(s)
	return b.String(), nil
}

// varNameLen returns the length of the variable name at the start of s, 0 if there is none.
func varNameLen(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9' {
			continue
		}
		return i
	}
	return len(s)
}

// runValueCommand runs command for a "!command" value; env entries are added to the process
// environment of the command.
func runValueCommand(command string, env map[string]string) (string, error) {
	if strings.TrimSpace(command) == "" {
		return "", fmt.Errorf("%w: empty command after \"!\"", ErrUnresolved)
	}
	ctx, cancel := context.WithTimeout(context.Background(), CommandTimeout)
	defer cancel()
	var cmd *exec.Cmd
	if runtime.GOOS == "windows" {
		cmd = exec.CommandContext(ctx, "cmd", "/C", command)
	} else {
		cmd = exec.CommandContext(ctx, "sh", "-c", command)
	}
	if len(env) > 0 {
		cmd.Env = os.Environ()
		for k, v := range env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// A grandchild that keeps the pipes open must not hold us past the timeout.
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	if ctx.Err() == context.DeadlineExceeded {
		return "", fmt.Errorf("%w: command %q timed out after %s", ErrUnresolved, command, CommandTimeout)
	}
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		if msg != "" {
			return "", fmt.Errorf("%w: command %q: %v: %s", ErrUnresolved, command, err, msg)
		}
		return "", fmt.Errorf("%w: command %q: %v", ErrUnresolved, command, err)
	}
	out := strings.TrimSpace(stdout.String())
	if out == "" {
		return "", fmt.Errorf("%w: command %q printed nothing", ErrUnresolved, command)
	}
	return out, nil
}
