// Package cli is the atomic command line as a library: it parses the command line, resolves the
// model and the session, and runs print, JSON or RPC mode (config-and-resources.md §16,
// rpc-and-json.md). cmd/atomic is Main with no compiled-in extensions; a user's own module
// builds a binary with its Go extensions compiled in by calling Main with them
// (examples/custom-binary).
//
// cli is the top layer. cli imports session, ext, ext/host, exthost/node, mcp, llm, llm/providers,
// llm/replay, llm/sse, model, resource, store, tool, export, mode/print, mode/json, mode/rpc,
// mode/tui, mode/tui/extui, mode/tui/keys, mode/tui/selector, mode/tui/slot and mode/tui/theme;
// nothing imports it but cmd/atomic (and programs of their own, such as examples/custom-binary).
package cli

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/llm"
	_ "github.com/atomic-cli/atomic/llm/providers" // the wire APIs atomic speaks
	"github.com/atomic-cli/atomic/llm/replay"
	"github.com/atomic-cli/atomic/llm/sse"
	"github.com/atomic-cli/atomic/mcp"
	printmode "github.com/atomic-cli/atomic/mode/print"
	"github.com/atomic-cli/atomic/model"
	"github.com/atomic-cli/atomic/resource"
	"github.com/atomic-cli/atomic/session"
	"github.com/atomic-cli/atomic/store"
	"github.com/atomic-cli/atomic/tool"
)

// Extension is a Go extension compiled into the binary. Name is what it is reported under
// (its extension path is "go:"+Name); Factory registers its tools, commands and handlers when
// the session's extension runner loads it, before the first request.
type Extension struct {
	Name    string
	Factory ext.Factory
}

// exitError carries a process exit code through cobra.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// Main runs atomic with args (the command line without the program name) on the process's
// standard streams and returns the process exit code: 0 on success, 1 on an error (printed to
// stderr as "Error: …"), the mode's code otherwise, 130/143/129 after a signal. exts are Go
// extensions compiled into this binary, loaded in order before any -e extension.
func Main(args []string, exts ...Extension) int {
	opts := &Options{
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		StdinIsTTY: isTerminal(os.Stdin), StdoutIsTTY: isTerminal(os.Stdout),
		Getenv: os.Getenv,
	}
	for _, e := range exts {
		opts.Extensions = append(opts.Extensions, e.Factory)
		opts.ExtensionPaths = append(opts.ExtensionPaths, "go:"+e.Name)
	}
	return execute(opts, args)
}

// execute parses args into opts and runs atomic, returning the exit code.
func execute(opts *Options, args []string) int {
	if len(args) > 0 && packageCommands[args[0]] {
		return runPackageCommand(opts, args) // packages.go
	}
	cmd := newRootCmd(opts, run)
	args = expandAliases(args)
	if sub, _, err := cmd.Find(args); err != nil || sub == cmd {
		// Only the root command takes extension flags; subcommands parse their own.
		args, opts.ExtensionFlags = splitExtensionFlags(cmd, args)
	}
	cmd.SetArgs(args)
	if err := cmd.Execute(); err != nil {
		var ee exitError
		if errors.As(err, &ee) {
			return ee.code
		}
		fmt.Fprintf(opts.Stderr, "Error: %v\n", err)
		return 1
	}
	return 0
}

// run is the whole command once flags are parsed.
func run(o *Options) error {
	if o.Version {
		fmt.Fprintln(o.Stdout, version)
		return nil
	}
	if o.Export != "" {
		return runExport(o) // export.go: before any model or session resolution
	}
	front, err := chooseFrontEnd(o) // frontend.go
	if err != nil {
		return err
	}
	o.front = front
	if r, ok := front.(stderrRouter); ok {
		var release func()
		o.Stderr, release = r.routeStderr(o.Stderr) // before anything (the extension host) keeps o.Stderr
		defer release()                             // errors returned from here on reach the terminal
	}
	if o.Thinking != "" && !llm.ValidThinkingLevel(o.Thinking) {
		fmt.Fprintf(o.Stderr, "Warning: unknown thinking level %q (use %s); ignoring it\n", o.Thinking, strings.Join(llm.ThinkingLevels, ", "))
		o.Thinking = ""
	}

	agentDir := o.agentDir()
	reg, warnings := model.Load(agentDir)
	reg.SetAPIFilter(func(api string) bool { _, err := session.ProviderFor(api); return err == nil })
	for _, w := range warnings {
		o.warnOnce(w)
	}
	if o.ListModels {
		loadExtensionProviders(o, reg, agentDir) // providers registered by extensions are listed too (ext_providers.go)
		search := ""
		if len(o.Messages) > 0 {
			search = o.Messages[0]
		}
		var usable []*llm.Model
		for _, m := range reg.Available() {
			if _, err := session.ProviderFor(m.API); err == nil {
				usable = append(usable, m)
			}
		}
		fmt.Fprint(o.Stdout, model.FormatList(usable, search))
		return nil
	}

	prompts, err := front.prompts(o)
	if err != nil {
		return err
	}

	cwd, err := os.Getwd()
	if err != nil {
		return fmt.Errorf("cannot read the working directory: %w", err)
	}
	st, err := o.openStore(agentDir, cwd)
	if err != nil {
		return err
	}
	defer st.Close() // every exit, early ones too, lets go of the session file (a no-op once closed)
	// A resumed session works in the directory it belongs to (its header cwd), as in pi.
	if sc := st.Cwd(); sc != "" && sc != cwd {
		if fi, err := os.Stat(sc); err != nil || !fi.IsDir() {
			return fmt.Errorf("stored session working directory does not exist: %s (session %s)", sc, st.SessionFile())
		}
		cwd = sc
	}
	if n := st.SkippedLines(); n > 0 {
		fmt.Fprintf(o.Stderr, "Warning: %s: skipped %d unreadable line(s)\n", st.SessionFile(), n)
	}
	for _, w := range st.LoadWarnings() {
		fmt.Fprintf(o.Stderr, "Warning: %s\n", w)
	}
	installErr := o.installTemporaryPackages(agentDir, cwd) // -e npm:/git: (packages.go)
	if err := errors.Join(o.checkExtensionSources(cwd), installErr); err != nil {
		return err
	}
	// TypeScript/JavaScript extensions (extensions.go): the Node host starts in the background.
	scripts := o.startScriptExtensions(agentDir, cwd)
	defer scripts.close()
	extFactories, extPaths := scripts.extensions(o.Extensions, o.ExtensionPaths)

	settings := o.loadSettings(agentDir, cwd) // settings.go
	// images.autoResize (on by default): attached and read images are fitted into the provider
	// limits (tool.DefaultImageLimits).
	var resizer tool.ImageResizer
	if settings.Images.AutoResize {
		resizer = tool.StdImageResizer{}
		for i := range prompts {
			prompts[i].Images = resizeAttachments(prompts[i].Images, resizer)
		}
	}
	// Provider calls close idle connections after httpIdleTimeoutMs (llm/sse).
	httpClient := sse.NewHTTPClient(time.Duration(settings.HTTPIdleTimeoutMs) * time.Millisecond)
	var mdl *llm.Model
	var pendingModel string // --model naming a provider an extension registers
	thinking := o.Thinking
	if _, empty := st.ContextInfo(); thinking == "" && empty {
		thinking = settings.DefaultThinkingLevel // a resumed session keeps its own level
	}
	if o.Replay != "" {
		f, err := replay.Load(o.Replay)
		if err != nil {
			return err
		}
		httpClient = f.HTTPClient()
		mdl = replayModel(f.API)
	} else {
		mdl, thinking, err = o.resolveModel(reg, st, thinking, o.settingsModel(reg, settings))
		if err != nil {
			// The provider may be one an extension registers once it loads: start on any model
			// atomic can speak and resolve --model again after loading (see pendingModel below).
			placeholder := firstSpeakable(reg)
			if o.Model == "" || !errors.Is(err, model.ErrNotFound) || len(extFactories) == 0 || placeholder == nil {
				return err
			}
			pendingModel, mdl = o.Model, placeholder
		}
		if o.APIKey != "" {
			reg.SetRuntimeAPIKey(mdl.Provider, o.APIKey)
		}
	}

	// Long bash outputs spill into the session's private directory; old sessions' spills are
	// reaped, and an in-memory session's are removed at exit (nobody can come back to them).
	reapSpillsDaily(time.Now())
	spillDir, err := tool.SpillDir(st.SessionID())
	if err != nil {
		fmt.Fprintf(o.Stderr, "Warning: %v; long bash outputs go to %s\n", err, os.TempDir())
		spillDir = ""
	}
	if o.NoSession {
		defer tool.RemoveSpillDir(st.SessionID())
	}
	active, all := o.tools(cwd, spillDir, resizer, settings)
	// MCP servers (mcp.go): configured now, started on first use, ended at exit.
	var mcpMgr *mcp.Manager
	if !o.NoTools {
		mcpMgr = o.loadMCP(agentDir, cwd)
	}
	if mcpMgr != nil {
		defer mcpMgr.Close()
	}
	o.loadResources(agentDir, cwd, settings) // skills and prompt templates (resources.go)
	skills, templates := o.resources()
	ctx, received, stop := signalContext()
	defer stop()
	front.start(o)
	if s, ok := front.(interface {
		showScreen(*Options, string, *llm.Model)
	}); ok {
		s.showScreen(o, cwd, mdl) // interactive: the first frame does not wait for extensions
	}
	// An extension that fails to load stops the run: NewRuntime returns the failures, which
	// are printed once, as the error (not also as extension errors).
	var starting atomic.Bool
	starting.Store(true)
	var consumed []string // the arguments extension flags took as values
	rt, err := session.NewRuntime(ctx, session.Options{
		Store:         st,
		Registry:      regOrNil(reg, o.Replay == ""),
		Model:         mdl,
		ThinkingLevel: thinking,
		Tools:         active,
		AllBuiltins:   all,
		ToolAllowlist: o.toolAllowlist(),
		ToolDenylist:  o.toolDenylist(),
		ShellPath:     settings.ShellPath,
		// The user's `!` commands get the prefix too (pi's executeBash).
		ShellCommandPrefix: settings.ShellCommandPrefix,
		SystemPrompt:       o.systemPrompt(agentDir, cwd, withMCPTools(active, mcpMgr)),
		HTTPClient:         httpClient,
		MCP:                mcpMgr,
		ImageResizer:       resizer,
		OnError:            func(err error) { fmt.Fprintf(o.Stderr, "Warning: %v\n", err) },
		Extensions:         extFactories,
		ExtensionPaths:     extPaths,
		Mode:               front.mode(),
		UI:                 front.ui(),
		Cwd:                cwd,
		Skills:             skills,
		PromptTemplates:    templates,
		ReloadResources: func() ([]resource.Skill, []resource.PromptTemplate) {
			o.setExtensionResources(cwd, nil) // resources_discover contributes them again
			o.loadResources(agentDir, cwd, settings)
			return o.resources()
		},
		ExtensionSourceInfo: scripts.infos,
		ExtendResources: func(found []ext.DiscoveredResources) ([]resource.Skill, []resource.PromptTemplate) {
			o.setExtensionResources(cwd, found)
			o.loadResources(agentDir, cwd, settings)
			return o.resources()
		},
		// The trust decision startScriptExtensions made (trust.go).
		ProjectUntrusted: !o.projectTrusted(agentDir, cwd, nil).trusted,
		OnExtensionError: skipStartupLoadErrors(&starting, front.extensionErrors(func(e *ext.Error) {
			fmt.Fprintf(o.Stderr, "Extension error (%s): %s: %s\n", e.ExtensionPath, e.Event, e.Message)
		})),
		SystemPromptBuilder:     func(tools []tool.Tool) string { return o.systemPrompt(agentDir, cwd, tools) },
		SystemPromptOptions:     func(tools []tool.Tool) ext.SystemPromptOptions { return o.systemPromptOptions(agentDir, cwd, tools) },
		Retry:                   o.retryOptions(regOrNil(reg, o.Replay == ""), settings, mdl),
		StreamReadInterval:      streamReadInterval(front),
		Compaction:              compactionOptions(settings),
		SteeringMode:            settings.SteeringMode,
		FollowUpMode:            settings.FollowUpMode,
		ExtensionHandlerTimeout: settings.ExtensionHandlerTimeout(),
		// Extension flags are set before session_start, so pi.getFlag() there sees them.
		BeforeStart: func(s *session.Session) error {
			var err error
			consumed, err = applyExtensionFlags(s.Runner(), o.ExtensionFlags)
			return err
		},
	})
	starting.Store(false)
	if err != nil {
		return err
	}
	if len(consumed) > 0 {
		prompts = dropConsumed(prompts, o.Messages, consumed)
	}
	if _, rpc := front.(*rpcFront); rpc && len(o.Messages) > len(consumed) {
		rt.Shutdown(context.Background())
		return errors.New("messages are not taken as arguments in RPC mode: send them as prompt commands on stdin")
	}
	if pendingModel != "" {
		if err := useModel(rt.Session(), reg, pendingModel, o.Provider, o.Thinking); err != nil {
			rt.Shutdown(context.Background())
			return err
		}
	}
	if o.Verbose {
		o.describe(rt.Session())
	}
	code := front.run(ctx, rt, prompts, o)
	rt.Shutdown(context.Background())
	if rt.Session().PersistFailed() && code == 0 {
		fmt.Fprintf(o.Stderr, "Error: the session could not be saved (see the warnings above)\n")
		code = 1
	}
	if sig := received(); sig != nil {
		code = signalExitCode(sig, code)
	}
	if code != 0 {
		return exitError{code}
	}
	return nil
}

// reapSpillStamp names the file in tool.SpillRoot whose modification time is the last reaping.
const reapSpillStamp = ".reaped"

// reapSpillsDaily reaps old sessions' bash spill directories (tool.ReapSpills) at most once a
// day: the reaping reads every session's directory, which would otherwise cost each start-up
// time in proportion to the sessions of the last 30 days.
func reapSpillsDaily(now time.Time) {
	stamp := filepath.Join(tool.SpillRoot(), reapSpillStamp)
	if fi, err := os.Stat(stamp); err == nil && now.Sub(fi.ModTime()) < 24*time.Hour {
		return
	}
	tool.ReapSpills("", tool.SpillMaxAge, now)
	if f, err := os.OpenFile(stamp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600); err == nil {
		_ = f.Close()
		_ = os.Chtimes(stamp, now, now)
	}
}

// skipStartupLoadErrors passes extension errors to report, except load failures while starting
// is true: NewRuntime returns those as its error.
func skipStartupLoadErrors(starting *atomic.Bool, report func(*ext.Error)) func(*ext.Error) {
	return func(e *ext.Error) {
		if e.Event == "load" && starting.Load() {
			return
		}
		report(e)
	}
}

// signalContext is cancelled by the first SIGINT, SIGTERM or SIGHUP, which aborts the run
// cleanly (the partial message is saved); a second signal ends the process at once. received
// reports the first signal, nil when none came.
func signalContext() (ctx context.Context, received func() os.Signal, stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	var mu sync.Mutex
	var first os.Signal
	go func() {
		for sig := range ch {
			mu.Lock()
			again := first != nil
			if !again {
				first = sig
			}
			mu.Unlock()
			if again {
				os.Exit(signalExitCode(sig, 130))
			}
			cancel()
		}
	}()
	received = func() os.Signal {
		mu.Lock()
		defer mu.Unlock()
		return first
	}
	return ctx, received, func() { signal.Stop(ch); cancel() }
}

// signalExitCode is the exit code after a signal (rpc-and-json.md §8, Atomic): 143 for SIGTERM,
// 129 for SIGHUP, else code (SIGINT keeps the mode's code: 1 for the aborted run).
func signalExitCode(sig os.Signal, code int) int {
	switch sig {
	case syscall.SIGTERM:
		return 143
	case syscall.SIGHUP:
		return 129
	}
	return code
}

func (o *Options) agentDir() string {
	for _, k := range []string{"ATOMIC_CODING_AGENT_DIR", "PI_CODING_AGENT_DIR"} {
		if v := o.Getenv(k); v != "" {
			return model.ExpandHome(v)
		}
	}
	return model.AgentDir()
}

// prompts assembles the prompts (rpc-and-json.md §8, Atomic): the first prompt is the piped
// stdin text, then the text of the @files, then the first message, concatenated; every further
// message is a later prompt. Images from @files go with the first prompt.
func (o *Options) prompts() ([]printmode.Prompt, error) {
	var first strings.Builder
	if !o.StdinIsTTY && o.Stdin != nil {
		b, err := io.ReadAll(o.Stdin)
		if err != nil {
			return nil, fmt.Errorf("reading stdin: %w", err)
		}
		first.WriteString(strings.TrimSpace(string(b)))
	}
	var images []llm.Content
	for _, f := range o.Files {
		text, img, err := readAttachment(f)
		if err != nil {
			return nil, err
		}
		first.WriteString(text)
		if img != nil {
			images = append(images, *img)
		}
	}
	msgs := o.Messages
	if len(msgs) > 0 {
		first.WriteString(msgs[0])
		msgs = msgs[1:]
	}
	var out []printmode.Prompt
	if first.Len() > 0 || len(images) > 0 {
		out = append(out, printmode.Prompt{Text: first.String(), Images: images})
	}
	for _, m := range msgs {
		out = append(out, printmode.Prompt{Text: m})
	}
	return out, nil
}

// readAttachment reads an @file argument: text files become a <file> block, images an
// attachment plus an empty <file> tag; empty files are skipped.
func readAttachment(path string) (string, *llm.Content, error) {
	abs, err := filepath.Abs(tool.ResolveReadPath(path, mustGetwd()))
	if err != nil {
		return "", nil, err
	}
	b, err := os.ReadFile(abs)
	if err != nil {
		return "", nil, fmt.Errorf("cannot read @%s: %w", path, err)
	}
	if len(b) == 0 {
		return "", nil, nil
	}
	if mime := imageMIME(b); mime != "" {
		img := llm.Image(base64.StdEncoding.EncodeToString(b), mime)
		return fmt.Sprintf("<file name=%q></file>\n", abs), &img, nil
	}
	return fmt.Sprintf("<file name=%q>\n%s\n</file>\n", abs, string(b)), nil, nil
}

// resizeAttachments fits attached images into the provider limits; an image that cannot be
// decoded or shrunk is kept as it is (the provider's answer decides).
func resizeAttachments(images []llm.Content, r tool.ImageResizer) []llm.Content {
	for i, img := range images {
		data, err := base64.StdEncoding.DecodeString(img.Data)
		if err != nil {
			continue
		}
		out, err := r.ResizeImage(context.Background(), data, img.MimeType)
		if err != nil || !out.WasResized {
			continue
		}
		images[i] = llm.Image(base64.StdEncoding.EncodeToString(out.Data), out.MimeType)
	}
	return images
}

// imageMIME returns the MIME type of a jpeg, png, gif or webp image by its magic bytes, else "".
func imageMIME(b []byte) string {
	switch m := http.DetectContentType(b); m {
	case "image/jpeg", "image/png", "image/gif", "image/webp":
		return m
	}
	return ""
}

func mustGetwd() string {
	wd, _ := os.Getwd()
	return wd
}

// openStore opens the session the flags ask for (session-format.md §11).
func (o *Options) openStore(agentDir, cwd string) (*store.Session, error) {
	if o.NoSession {
		return store.InMemory(cwd), nil
	}
	dir := model.ExpandHome(o.SessionDir)
	if dir == "" {
		for _, k := range []string{"ATOMIC_CODING_AGENT_SESSION_DIR", "PI_CODING_AGENT_SESSION_DIR"} {
			if v := o.Getenv(k); v != "" {
				dir = model.ExpandHome(v)
				break
			}
		}
	}
	if dir == "" {
		dir = store.DefaultSessionDir(agentDir, cwd)
	}
	switch {
	case o.Session != "" || o.Resume != "":
		arg := o.Session
		if arg == "" {
			arg = o.Resume
		}
		arg = model.ExpandHome(arg)
		m, err := store.FindSession(cwd, dir, arg)
		if err != nil {
			return nil, err
		}
		if o.Session == "" {
			if _, err := os.Stat(m.Path); err != nil {
				return nil, fmt.Errorf("no session to resume at %s: %w", m.Path, err)
			}
		}
		st, err := store.Open(m.Path, "")
		if err != nil {
			return nil, err
		}
		return st, nil
	case o.Continue:
		return store.ContinueRecent(cwd, dir)
	}
	return store.Create(cwd, dir, store.CreateOptions{})
}

// resolveModel picks the model (config-and-resources.md §9): --model / --provider, else the model
// the session last used, else the first available one.
// saved is the settings' defaultProvider/defaultModel (nil: none), chosen after the session's own
// model and before the registry's default (config-and-resources.md §9).
func (o *Options) resolveModel(reg *model.Registry, st *store.Session, thinking string, saved *llm.Model) (*llm.Model, string, error) {
	if o.Model != "" {
		m, level, err := reg.Resolve(o.Model, o.Provider)
		if err != nil {
			return nil, "", err
		}
		if thinking == "" {
			thinking = level
		}
		return m, thinking, nil
	}
	if o.Provider != "" {
		id := model.DefaultModelID(o.Provider)
		if m := reg.Find(o.Provider, id); m != nil {
			return m, thinking, nil
		}
		for _, m := range reg.All() {
			if m.Provider == o.Provider {
				return m, thinking, nil
			}
		}
		return nil, "", fmt.Errorf("unknown provider %q (see atomic --list-models)", o.Provider)
	}
	if info, _ := st.ContextInfo(); info.Model != nil {
		ref := info.Model
		if m := reg.Find(ref.Provider, ref.ModelID); m != nil && reg.HasAuth(m.Provider) {
			return m, thinking, nil
		}
	}
	if saved != nil {
		return saved, thinking, nil
	}
	m, err := reg.Default()
	return m, thinking, err
}

// tools returns the active built-in tools per --tools / --no-tools / --no-builtin-tools and the
// settings' defaultTools, and every built-in (which extensions may activate with
// setActiveTools). An explicit --tools list wins over the two --no-* flags, as in Atomic and pi
// (the flags only change the default set); defaultTools replaces pi's default set when neither is
// given (Atomic). --exclude-tools names are left out of both. The bash tool runs with the
// settings' shellPath and shellCommandPrefix.
func (o *Options) tools(cwd, spillDir string, resizer tool.ImageResizer, settings resource.Settings) (active, all []tool.Tool) {
	set := tool.Builtins(cwd, tool.Options{
		Bash: tool.BashOptions{TempDir: spillDir, ShellPath: settings.ShellPath, CommandPrefix: settings.ShellCommandPrefix},
		Read: tool.ReadOptions{ImageResizer: resizer},
	})
	for _, n := range o.toolDenylist() {
		delete(set, n)
	}
	allNames := tool.Names(set)
	all = tool.Select(set, allNames)
	if o.Tools == "" && (o.NoTools || o.NoBuiltinTools) {
		return nil, all
	}
	names := tool.DefaultNames
	if o.Tools == "" && settings.DefaultTools != nil {
		names = settings.DefaultTools
	}
	if o.Tools != "" {
		names = splitNames(o.Tools)
	}
	var known []string
	for _, n := range names {
		if _, ok := set[n]; ok { // other names: extension tools, checked once they load
			known = append(known, n)
		}
	}
	return tool.Select(set, known), all
}

// splitNames splits a comma-separated list of tool names, dropping blanks.
func splitNames(list string) []string {
	var out []string
	for _, n := range strings.Split(list, ",") {
		if n = strings.TrimSpace(n); n != "" {
			out = append(out, n)
		}
	}
	return out
}

// toolDenylist is session.Options.ToolDenylist: the --exclude-tools names (Atomic's
// excludedToolNames), nil when none.
func (o *Options) toolDenylist() []string {
	var out []string
	for _, l := range o.ExcludeTools {
		out = append(out, splitNames(l)...)
	}
	return out
}

// toolAllowlist is session.Options.ToolAllowlist as pi 0.73.1 derives it: the --tools names
// (built-in, MCP and extension tools alike), none for --no-tools, nil (everything) otherwise;
// --no-builtin-tools only empties the default set.
func (o *Options) toolAllowlist() []string {
	if o.Tools != "" {
		list := []string{}
		for _, n := range strings.Split(o.Tools, ",") {
			if n = strings.TrimSpace(n); n != "" {
				list = append(list, n)
			}
		}
		return list
	}
	if o.NoTools {
		return []string{}
	}
	return nil
}

func (o *Options) systemPrompt(agentDir, cwd string, tools []tool.Tool) string {
	return resource.BuildSystemPrompt(o.promptOptions(agentDir, cwd, tools))
}

// systemPromptOptions describes the system prompt's inputs for tools as before_agent_start's
// systemPromptOptions (seed 004): the custom prompt, the tools with their snippets and
// guidelines, the appended text, the cwd, the context files and the skills.
func (o *Options) systemPromptOptions(agentDir, cwd string, tools []tool.Tool) ext.SystemPromptOptions {
	po := o.promptOptions(agentDir, cwd, tools)
	out := ext.SystemPromptOptions{CustomPrompt: po.CustomPrompt, AppendSystemPrompt: po.AppendPrompt, Cwd: po.Cwd, SelectedTools: []string{}}
	for _, t := range po.Tools {
		out.SelectedTools = append(out.SelectedTools, t.Name)
		if t.Snippet != "" {
			if out.ToolSnippets == nil {
				out.ToolSnippets = map[string]string{}
			}
			out.ToolSnippets[t.Name] = t.Snippet
		}
		out.PromptGuidelines = append(out.PromptGuidelines, t.Guidelines...)
	}
	for _, f := range po.ContextFiles {
		out.ContextFiles = append(out.ContextFiles, ext.PromptContextFile{Path: f.Path, Content: f.Content})
	}
	for _, sk := range po.Skills {
		out.Skills = append(out.Skills, ext.PromptSkill{Name: sk.Name, Description: sk.Description, FilePath: sk.FilePath, BaseDir: sk.BaseDir, DisableModelInvocation: sk.DisableModelInvocation})
	}
	return out
}

// promptOptions are the inputs of the system prompt for tools.
func (o *Options) promptOptions(agentDir, cwd string, tools []tool.Tool) resource.PromptOptions {
	var pts []resource.PromptTool
	for _, t := range tools {
		pt := resource.PromptTool{Name: t.Name()}
		if p, ok := t.(tool.Prompter); ok {
			pt.Snippet, pt.Guidelines = p.PromptSnippet(), p.PromptGuidelines()
		}
		pts = append(pts, pt)
	}
	trusted := o.projectTrusted(agentDir, cwd, nil).trusted
	// --system-prompt, else SYSTEM.md (project, then global); --append-system-prompt, else
	// APPEND_SYSTEM.md (config-and-resources.md §12). Flag values naming a file are read.
	pf := resource.FindPromptFiles(agentDir, cwd, trusted)
	custom := resource.ReadTextOrFile(o.SystemPrompt)
	if o.SystemPrompt == "" && pf.System != "" {
		custom = o.readPromptFile(pf.System)
	}
	var appendParts []string
	for _, a := range o.AppendSystemPrompt {
		appendParts = append(appendParts, resource.ReadTextOrFile(a))
	}
	if len(o.AppendSystemPrompt) == 0 && pf.Append != "" {
		appendParts = append(appendParts, o.readPromptFile(pf.Append))
	}
	var files []resource.ContextFile
	if !o.NoContextFiles {
		files = resource.LoadContextFiles(agentDir, cwd, trusted)
	}
	skills, _ := o.resources()
	return resource.PromptOptions{
		Skills:       skills,
		CustomPrompt: custom,
		AppendPrompt: strings.Join(appendParts, "\n\n"),
		Tools:        pts,
		ContextFiles: files,
		Cwd:          cwd,
	}
}

// readPromptFile reads a SYSTEM.md or APPEND_SYSTEM.md file; one that cannot be read is
// reported once per build and contributes nothing.
func (o *Options) readPromptFile(path string) string {
	text, err := resource.ReadPromptFile(path)
	if err != nil {
		fmt.Fprintf(o.Stderr, "Warning: %v\n", err)
	}
	return text
}

// replayModel is the model a replay file plays: its API decides which real provider code parses it.
func replayModel(api string) *llm.Model {
	return &llm.Model{
		ID: "replay", Name: "replay", API: api, Provider: "replay",
		BaseURL: "http://replay.invalid", Input: []string{"text"},
		ContextWindow: 200000, MaxTokens: 8192,
	}
}

func regOrNil(reg *model.Registry, use bool) *model.Registry {
	if use {
		return reg
	}
	return nil
}

// shortAliases are pi's and Atomic's multi-letter short flags, which the flag parser cannot
// express (config-and-resources.md §16).
var shortAliases = map[string]string{
	"-nc":  "--no-context-files",
	"-nt":  "--no-tools",
	"-nbt": "--no-builtin-tools",
	"-xt":  "--exclude-tools",
	"-ns":  "--no-skills",
	"-np":  "--no-prompt-templates",
	"-ne":  "--no-extensions", // extensions.go
	"-na":  "--no-approve",    // extensions.go
}

// expandAliases rewrites multi-letter short flags before parsing; "--" ends option parsing.
func expandAliases(args []string) []string {
	out := make([]string, 0, len(args))
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...)
		}
		if long, ok := shortAliases[a]; ok {
			a = long
		}
		out = append(out, a)
	}
	return out
}

// describe prints the start-up choices (--verbose) to stderr.
func (o *Options) describe(s *session.Session) {
	m := s.Model()
	file := s.Store().SessionFile()
	if file == "" {
		file = "(not saved)"
	}
	var tools []string
	for _, t := range s.Agent().Config().Tools {
		tools = append(tools, t.Name())
	}
	fmt.Fprintf(o.Stderr, "atomic %s\n  model:      %s/%s (%s), thinking %s\n  session:    %s\n  cwd:        %s\n  tools:      %s\n  extensions: %d\n",
		version, m.Provider, m.ID, m.API, s.ThinkingLevel(), file, s.Store().Cwd(), strings.Join(tools, ", "), len(s.Runner().Extensions()))
}

// extensionFlag is a --name or --name=value option the built-in flags do not know; extensions
// may register it (config-and-resources.md §16: unknown long options are extension flags).
type extensionFlag struct {
	name, value string
	hasValue    bool
	// next is the argument after a --name without "=": the value of a string flag (the
	// "--name value" form), else a message; which one is known once extensions registered the
	// flag (applyExtensionFlags).
	next    string
	hasNext bool
}

// splitExtensionFlags removes unknown long options from args, up to "--".
func splitExtensionFlags(cmd interface{ Flags() *pflag.FlagSet }, args []string) ([]string, []extensionFlag) {
	var out []string
	var flags []extensionFlag
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...), flags
		}
		if strings.HasPrefix(a, "--") && len(a) > 2 {
			name, value, has := strings.Cut(a[2:], "=")
			if name != "help" && cmd.Flags().Lookup(name) == nil {
				f := extensionFlag{name: name, value: value, hasValue: has}
				if !has && i+1 < len(args) && args[i+1] != "--" && !strings.HasPrefix(args[i+1], "-") && !strings.HasPrefix(args[i+1], "@") {
					f.next, f.hasNext = args[i+1], true
				}
				flags = append(flags, f)
				continue
			}
		}
		out = append(out, a)
	}
	return out, flags
}

// applyExtensionFlags sets the registered extension flags; an unregistered one is an error.
// consumed lists the arguments string flags took as their value ("--name value"), which are
// then not messages.
func applyExtensionFlags(r *ext.Runner, flags []extensionFlag) (consumed []string, err error) {
	defs := r.Flags()
	for _, f := range flags {
		def, ok := defs[f.name]
		if !ok {
			return consumed, fmt.Errorf("unknown flag: --%s\nRun 'atomic --help' for usage.", f.name)
		}
		var v any = true
		switch {
		case def.Type == "string" && !f.hasValue && f.hasNext:
			v = f.next
			consumed = append(consumed, f.next)
		case def.Type == "string" && !f.hasValue:
			return consumed, fmt.Errorf("flag --%s needs a value: --%s <value> or --%s=<value>", f.name, f.name, f.name)
		case def.Type == "string":
			v = f.value
		case f.hasValue:
			switch f.value {
			case "true", "1", "yes":
			case "false", "0", "no":
				v = false
			default:
				return consumed, fmt.Errorf("flag --%s is boolean: use --%s or --%s=false", f.name, f.name, f.name)
			}
		}
		if err := r.SetFlag(f.name, v); err != nil {
			return consumed, err
		}
	}
	return consumed, nil
}

// flagCandidates are the arguments that may be the value of an extension flag.
func flagCandidates(flags []extensionFlag) []string {
	var out []string
	for _, f := range flags {
		if f.hasNext {
			out = append(out, f.next)
		}
	}
	return out
}

// dropConsumed removes from prompts the messages extension flags took as values: msgs are the
// message arguments prompts were made of (Options.prompts: the first one ends the first prompt,
// each later one is its own prompt).
func dropConsumed(prompts []printmode.Prompt, msgs, consumed []string) []printmode.Prompt {
	drop := map[int]bool{}
	for _, c := range consumed {
		for i, m := range msgs {
			if m == c && !drop[i] {
				drop[i] = true
				break
			}
		}
	}
	if len(drop) == 0 || len(prompts) == 0 {
		return prompts
	}
	out := make([]printmode.Prompt, 0, len(prompts))
	for i, p := range prompts {
		if i == 0 && drop[0] {
			p.Text = strings.TrimSuffix(p.Text, msgs[0])
			if p.Text == "" && len(p.Images) == 0 {
				continue
			}
		} else if i > 0 && drop[i] {
			continue
		}
		out = append(out, p)
	}
	return out
}

// firstSpeakable returns a model whose API atomic speaks, to start a session on before
// extensions have registered their providers; nil when there is none.
func firstSpeakable(reg *model.Registry) *llm.Model {
	for _, m := range reg.All() {
		if _, err := session.ProviderFor(m.API); err == nil {
			return m
		}
	}
	return nil
}

// useModel resolves pattern now that extensions have registered their providers (registerProvider
// takes effect when the runner binds) and switches the session to it.
func useModel(s *session.Session, reg *model.Registry, pattern, provider, thinking string) error {
	m, level, err := reg.Resolve(pattern, provider)
	if err != nil {
		return err
	}
	if err := s.SetModel(m); err != nil {
		return err
	}
	if thinking == "" {
		thinking = level
	}
	if thinking != "" {
		return s.SetThinkingLevel(thinking)
	}
	return nil
}
