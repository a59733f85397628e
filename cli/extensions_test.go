package cli

// Go extensions compiled into the test binary, chosen per script with
// ATOMIC_TEST_EXTENSIONS=name,name… (load order = list order):
//
//	gate, wordcount, contextfilter   the examples of examples/extensions/go
//	recorder                         logs every event it sees to $ATOMIC_TEST_EVENT_LOG, one line
//	                                 each ("<ext> <event> <key fields>"), and registers the
//	                                 lifecycle commands /lc-new, /lc-fork <n> [at], /lc-resume <path>,
//	                                 /lc-reload, /lc-tree <n> (n: the n-th user message entry)
//	flags                            registers --plan (boolean) and --persona (string) and puts
//	                                 their values into the system prompt (before_agent_start)
//	recorder2                        a second recorder (to pin load order across extensions)
//	retryabort                       calls ctx.abort() on auto_retry_start (retry_abort.txtar)
//	broken                           a factory that fails: "no API token configured"

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/atomic-cli/atomic/examples/extensions/go/contextfilter"
	"github.com/atomic-cli/atomic/examples/extensions/go/permissiongate"
	"github.com/atomic-cli/atomic/examples/extensions/go/wordcount"
	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/store"
)

func testExtensions() []Extension {
	var out []Extension
	for _, name := range strings.Split(os.Getenv("ATOMIC_TEST_EXTENSIONS"), ",") {
		switch strings.TrimSpace(name) {
		case "gate":
			out = append(out, Extension{"permissiongate", permissiongate.Extension})
		case "wordcount":
			out = append(out, Extension{"wordcount", wordcount.Extension})
		case "contextfilter":
			out = append(out, Extension{"contextfilter", contextfilter.Extension})
		case "recorder":
			out = append(out, Extension{"recorder", recorder("recorder", true)})
		case "flags":
			out = append(out, Extension{"flags", flagsExtension})
		case "recorder2":
			out = append(out, Extension{"recorder2", recorder("recorder2", false)})
		case "rpcui": // rpc_test.go
			out = append(out, Extension{"rpcui", rpcUIExtension})
		case "retryabort": // retry_abort.txtar
			out = append(out, Extension{"retryabort", retryAbortExtension})
		case "broken": // ext_load_failure.txtar
			out = append(out, Extension{"broken", func(ext.API) error { return fmt.Errorf("no API token configured") }})
		}
	}
	return out
}

var logMu sync.Mutex

func logEvent(line string) {
	path := os.Getenv("ATOMIC_TEST_EVENT_LOG")
	if path == "" {
		return
	}
	logMu.Lock()
	defer logMu.Unlock()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintln(f, line)
}

// keyFields renders the fields of a payload that transcripts compare.
func keyFields(payload any) string {
	b, err := json.Marshal(payload)
	if err != nil {
		return ""
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return ""
	}
	var parts []string
	for _, k := range []string{"reason", "turnIndex", "toolCallId", "toolName", "isError", "position", "source", "text"} {
		if v, ok := m[k]; ok && v != "" {
			parts = append(parts, fmt.Sprintf("%s=%v", k, v))
		}
	}
	if msg, ok := m["message"].(map[string]any); ok {
		parts = append(parts, fmt.Sprintf("role=%v", msg["role"]))
		if id, ok := msg["toolCallId"].(string); ok {
			parts = append(parts, "call="+id)
		}
	}
	if v, ok := m["previousSessionFile"].(string); ok && v != "" {
		parts = append(parts, "previous=yes")
	}
	return strings.Join(parts, " ")
}

// recorder logs every event (message_update and tool_execution_update excluded: they depend on
// chunking) and, when commands is set, registers the lifecycle commands.
func recorder(name string, commands bool) ext.Factory {
	return func(api ext.API) error {
		for _, spec := range ext.Table {
			if spec.Name == "message_update" || spec.Name == "tool_execution_update" {
				continue
			}
			event := spec.Name
			if _, err := api.OnName(event, func(c ext.Context, payload any) (any, error) {
				logEvent(strings.TrimSpace(name + " " + event + " " + keyFields(payload)))
				return nil, nil
			}); err != nil {
				return err
			}
		}
		if !commands {
			return nil
		}
		var stale ext.Context
		cmds := map[string]func(ctx context.Context, c ext.CommandContext, args string) error{
			"lc-new": func(ctx context.Context, c ext.CommandContext, _ string) error {
				_, err := c.NewSession(ctx, ext.NewSessionOptions{WithSession: func(ctx context.Context, nc ext.CommandContext) error {
					logEvent(name + " withSession new")
					return nil
				}})
				return err
			},
			"lc-fork": func(ctx context.Context, c ext.CommandContext, args string) error {
				fields := strings.Fields(args)
				pos := "before"
				if len(fields) > 1 {
					pos = fields[1]
				}
				id := userEntry(c.SessionManager(), fields)
				_, err := c.Fork(ctx, id, ext.ForkOptions{Position: pos, WithSession: func(ctx context.Context, nc ext.CommandContext) error {
					logEvent(name + " withSession fork")
					return nil
				}})
				return err
			},
			"lc-resume": func(ctx context.Context, c ext.CommandContext, args string) error {
				_, err := c.SwitchSession(ctx, strings.TrimSpace(args), ext.SwitchOptions{WithSession: func(ctx context.Context, nc ext.CommandContext) error {
					logEvent(name + " withSession resume")
					return nil
				}})
				return err
			},
			"lc-tree": func(ctx context.Context, c ext.CommandContext, args string) error {
				id := userEntry(c.SessionManager(), strings.Fields(args))
				_, err := c.NavigateTree(ctx, id, ext.NavigateOptions{Label: "checkpoint"})
				return err
			},
			"lc-reload": func(ctx context.Context, c ext.CommandContext, _ string) error {
				stale = c
				if err := c.Reload(ctx); err != nil {
					return err
				}
				if err := stale.Err(); err != nil {
					logEvent(name + " stale " + err.Error())
				}
				return nil
			},
		}
		for cmd, fn := range cmds {
			if err := api.RegisterCommand(cmd, ext.Command{Description: "lifecycle test: " + cmd, Handler: fn}); err != nil {
				return err
			}
		}
		return nil
	}
}

// userEntry picks the id of the n-th user message entry (default: the first).
func userEntry(sm ext.SessionView, fields []string) string {
	n := 1
	if len(fields) > 0 {
		if v, err := strconv.Atoi(fields[0]); err == nil {
			n = v
		}
	}
	seen := 0
	for _, e := range sm.Entries() {
		if e.Type == store.TypeMessage && e.Role() == "user" {
			seen++
			if seen == n {
				return e.ID
			}
		}
	}
	return ""
}

func flagsExtension(api ext.API) error {
	if err := api.RegisterFlag("plan", ext.Flag{Description: "plan only", Type: "boolean", Default: false}); err != nil {
		return err
	}
	if err := api.RegisterFlag("persona", ext.Flag{Description: "who to be", Type: "string", Default: "nobody"}); err != nil {
		return err
	}
	ext.On(api, func(c ext.Context, e *ext.BeforeAgentStart) (*ext.BeforeAgentStartResult, error) {
		plan, _ := api.GetFlag("plan")
		persona, _ := api.GetFlag("persona")
		p := fmt.Sprintf("%s\nflags: plan=%v persona=%v", c.GetSystemPrompt(), plan, persona)
		return &ext.BeforeAgentStartResult{SystemPrompt: &p}, nil
	})
	return nil
}

// retryAbortExtension calls ctx.abort() as soon as an automatic retry is scheduled, which must
// cancel the backoff at once (retry_abort.txtar).
func retryAbortExtension(api ext.API) error {
	ext.On(api, func(c ext.Context, e *ext.AutoRetryStart) (ext.None, error) {
		c.Abort()
		return nil, nil
	})
	return nil
}
