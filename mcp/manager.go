package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ConnectTimeout bounds one server start: spawning or reaching it, the initialize handshake and
// the first tools/list.
var ConnectTimeout = 30 * time.Second

// reconnectDelay is the first pause before a keep-alive server is reconnected; it doubles up to
// reconnectMaxDelay.
var (
	reconnectDelay    = time.Second
	reconnectMaxDelay = 30 * time.Second
)

// NotificationBuffer is how many server notifications wait for a listener before the oldest is
// dropped (events.md §1.6, mcp_notification).
const NotificationBuffer = 100

// ErrClosed is returned by every operation of a Manager after Close.
var ErrClosed = errors.New("mcp: the MCP manager is shut down")

// errInactive is the cause of a call cut by its server's timeoutMs.
var errInactive = errors.New("no response or progress")

// Notification is one notification an MCP server sent, as it came: the server's name in the
// configuration, the JSON-RPC method and the raw params (nil when there were none).
type Notification struct {
	Server string
	Method string
	Params json.RawMessage
}

// Options configure a Manager.
type Options struct {
	// AgentDir holds the metadata cache (<AgentDir>/mcp-cache.json); empty disables the cache.
	AgentDir string
	// Stderr receives the stderr of servers configured with debug; nil discards it.
	Stderr io.Writer
	// ClientVersion is the version atomic reports in initialize.
	ClientVersion string
}

// Manager owns the connections to the configured MCP servers for the life of a runtime: a
// server starts on first use (or in the background for eager and keep-alive servers), calls
// racing to start it share one start, it is disconnected after its idle timeout, and Close ends
// every server process. Safe for concurrent use.
type Manager struct {
	cfg  *Config
	opts Options

	life   context.Context
	cancel context.CancelFunc
	closed atomic.Bool
	wg     sync.WaitGroup // background starts and watchers

	servers map[string]*server
	names   []string

	cacheOnce sync.Once
	cacheMu   sync.Mutex
	cache     *cacheFile

	changedMu sync.Mutex
	onChanged func()

	notes noteQueue
	seq   atomic.Int64 // progress tokens

	// warming is closed when the background starts of servers whose direct tools were unknown
	// have ended (nil when there were none).
	warming atomic.Pointer[chan struct{}]

	// disconnected, for tests, is told each time a server's connection ends.
	disconnected func(name string)
}

func (m *Manager) noteDisconnected(name string) {
	if m.disconnected != nil {
		m.disconnected(name)
	}
}

// New returns a Manager for cfg; nothing starts until Start or first use.
func New(cfg *Config, o Options) *Manager {
	if cfg == nil {
		cfg = &Config{}
	}
	m := &Manager{cfg: cfg, opts: o, servers: make(map[string]*server, len(cfg.Servers))}
	m.life, m.cancel = context.WithCancel(context.Background())
	for _, s := range cfg.Servers {
		m.servers[s.Name] = &server{m: m, cfg: s}
		m.names = append(m.names, s.Name)
	}
	sort.Strings(m.names)
	return m
}

// Config returns the configuration the manager was built from.
func (m *Manager) Config() *Config { return m.cfg }

// Servers returns the configured server names in order.
func (m *Manager) Servers() []string { return append([]string(nil), m.names...) }

// Start connects eager and keep-alive servers in the background, and servers whose direct
// tools are not known from the cache, so their tools can be registered; it returns at once.
func (m *Manager) Start() {
	var direct sync.WaitGroup
	unknowns := 0
	for _, n := range m.names {
		s := m.servers[n]
		warm := s.cfg.Lifecycle == Eager || s.cfg.Lifecycle == KeepAlive
		unknown := s.cfg.DirectAll && m.cachedTools(s.cfg) == nil
		if !warm && !unknown {
			continue
		}
		if unknown {
			direct.Add(1)
			unknowns++
		}
		m.background(func() {
			_, err := s.connect(m.life)
			if unknown {
				direct.Done()
			}
			if err != nil && !m.closed.Load() {
				s.scheduleReconnect()
			}
		})
	}
	if unknowns > 0 {
		ch := make(chan struct{})
		m.warming.Store(&ch)
		go func() { direct.Wait(); close(ch) }()
	}
}

// WaitDirect waits, at most d, for the servers whose direct tools Start had to list (directTools
// true and nothing cached), so the first request can offer them; it reports whether any such
// server was started. After they are done once, it returns false at once.
func (m *Manager) WaitDirect(d time.Duration) bool {
	p := m.warming.Load()
	if p == nil {
		return false
	}
	select {
	case <-*p:
		m.warming.CompareAndSwap(p, nil) // later prompts need not wait or refresh
	case <-time.After(d):
	}
	return true
}

func (m *Manager) background(fn func()) {
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		fn()
	}()
}

// OnToolsChanged sets fn, called (on its own goroutine) when a server's tool list changed, so
// the tools of Tools() should be registered again. fn may be nil.
func (m *Manager) OnToolsChanged(fn func()) {
	m.changedMu.Lock()
	m.onChanged = fn
	m.changedMu.Unlock()
}

func (m *Manager) toolsChanged() {
	m.changedMu.Lock()
	fn := m.onChanged
	m.changedMu.Unlock()
	if fn != nil {
		fn()
	}
}

// BindNotifications sets the listener of server notifications, and delivers the ones buffered
// before (at most NotificationBuffer, the oldest dropped). Notifications are delivered one at a
// time, in arrival order, on a goroutine of the manager. nil unbinds: notifications buffer again.
func (m *Manager) BindNotifications(fn func(Notification)) { m.notes.bind(fn) }

// FlushNotifications waits, at most d, until the notifications received so far reached the
// listener; the runtime calls it before its session shuts down.
func (m *Manager) FlushNotifications(d time.Duration) { m.notes.flush(d) }

// Connect starts the named server if it is not connected, sharing a start in progress.
func (m *Manager) Connect(ctx context.Context, name string) error {
	s, err := m.server(name)
	if err != nil {
		return err
	}
	_, err = s.connect(ctx)
	return err
}

// Disconnect stops the named server (its process ends); it starts again on next use.
func (m *Manager) Disconnect(name string) error {
	s, err := m.server(name)
	if err != nil {
		return err
	}
	s.disconnect(true)
	return nil
}

func (m *Manager) server(name string) (*server, error) {
	if m.closed.Load() {
		return nil, ErrClosed
	}
	s := m.servers[name]
	if s == nil {
		return nil, fmt.Errorf("mcp: no MCP server named %q (configured: %s)", name, joinOr(m.names, "none"))
	}
	return s, nil
}

// Close disconnects every server, ending every server process, and waits (bounded) for the
// background work to finish. Later calls fail with ErrClosed.
func (m *Manager) Close() {
	if m.closed.Swap(true) {
		return
	}
	m.cancel()
	var wg sync.WaitGroup
	for _, n := range m.names {
		s := m.servers[n]
		wg.Add(1)
		go func() { defer wg.Done(); s.disconnect(true) }()
	}
	wg.Wait()
	done := make(chan struct{})
	go func() { m.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
	}
	m.notes.bind(nil)
}

// CallTool calls tool name of server with args. The call is cut when the server sends neither
// a result nor progress for its timeoutMs; cancelling ctx cancels the MCP request.
func (m *Manager) CallTool(ctx context.Context, server, name string, args map[string]any) (*sdk.CallToolResult, error) {
	s, err := m.server(server)
	if err != nil {
		return nil, err
	}
	var res *sdk.CallToolResult
	err = s.use(ctx, "calling tool "+name, func(ctx context.Context, sess *sdk.ClientSession, token string) error {
		p := &sdk.CallToolParams{Name: name, Arguments: args}
		if args == nil {
			p.Arguments = map[string]any{}
		}
		p.SetProgressToken(token)
		var err error
		res, err = sess.CallTool(ctx, p)
		return err
	})
	return res, err
}

// ReadResource reads the resource uri of server.
func (m *Manager) ReadResource(ctx context.Context, server, uri string) (*sdk.ReadResourceResult, error) {
	s, err := m.server(server)
	if err != nil {
		return nil, err
	}
	var res *sdk.ReadResourceResult
	err = s.use(ctx, "reading resource "+uri, func(ctx context.Context, sess *sdk.ClientSession, token string) error {
		p := &sdk.ReadResourceParams{URI: uri}
		p.SetProgressToken(token)
		var err error
		res, err = sess.ReadResource(ctx, p)
		return err
	})
	return res, err
}

// ServerTools returns the tools of server, starting it when neither a live connection nor the
// cache knows them.
func (m *Manager) ServerTools(ctx context.Context, name string) ([]ToolMeta, error) {
	s, err := m.server(name)
	if err != nil {
		return nil, err
	}
	if t := m.knownTools(s); t != nil {
		return t, nil
	}
	if _, err := s.connect(ctx); err != nil {
		return nil, err
	}
	return m.knownTools(s), nil
}

// knownTools returns the live tools of s, else its valid cache entry, else nil.
func (m *Manager) knownTools(s *server) []ToolMeta {
	s.mu.Lock()
	live := s.tools
	s.mu.Unlock()
	if live != nil {
		return live
	}
	return m.cachedTools(s.cfg)
}

// server is one configured server and its connection.
type server struct {
	m   *Manager
	cfg *Server

	mu       sync.Mutex
	start    *startCall
	starting context.CancelFunc // ends the connection being started (its bound passed)
	sess     *sdk.ClientSession
	// cancelConn ends the context the live connection was made with.
	cancelConn context.CancelFunc
	proc       *process
	gen        int // bumped on every connect and disconnect
	err        error
	tools      []ToolMeta // live metadata; nil until connected once
	inflight   int
	idle       *time.Timer
	manual     bool // disconnected on request: no keep-alive reconnect
	retry      *time.Timer
	delay      time.Duration
	progress   map[string]func()
}

type startCall struct {
	done chan struct{}
	sess *sdk.ClientSession
	err  error
}

// connect returns the live session, starting the server when needed; one start is shared by
// every caller, and a caller leaving (ctx) does not stop it for the others.
func (s *server) connect(ctx context.Context) (*sdk.ClientSession, error) {
	s.mu.Lock()
	if s.m.closed.Load() {
		s.mu.Unlock()
		return nil, ErrClosed
	}
	if s.sess != nil {
		sess := s.sess
		s.mu.Unlock()
		return sess, nil
	}
	st := s.start
	if st == nil {
		st = &startCall{done: make(chan struct{})}
		s.start = st
		s.manual = false
		s.m.background(func() { s.doStart(st) })
	}
	s.mu.Unlock()
	select {
	case <-st.done:
		return st.sess, st.err
	case <-ctx.Done():
		return nil, fmt.Errorf("mcp: waiting for server %q to start: %w", s.cfg.Name, context.Cause(ctx))
	}
}

func (s *server) doStart(st *startCall) {
	connCtx, connCancel := context.WithCancel(s.m.life)
	s.mu.Lock()
	s.starting = connCancel
	s.mu.Unlock()
	sess, proc, tools, err := s.open(connCtx)
	s.mu.Lock()
	s.start, s.starting = nil, nil
	if err == nil && s.m.closed.Load() {
		err = ErrClosed
	}
	if err != nil {
		s.err = err
		st.err = err
		s.mu.Unlock()
		if sess != nil {
			_ = sess.Close()
		}
		connCancel()
		proc.stop()
		close(st.done)
		return
	}
	s.gen++
	gen := s.gen
	s.sess, s.proc, s.tools, s.err, s.delay, s.cancelConn = sess, proc, tools, nil, 0, connCancel
	st.sess = sess
	s.mu.Unlock()
	close(st.done)
	s.m.saveCache(s.cfg, tools)
	s.m.toolsChanged()
	s.m.background(func() { s.watch(sess, gen) })
}

// open starts the transport, runs initialize and lists the tools (and resources).
func (s *server) open(connCtx context.Context) (*sdk.ClientSession, *process, []ToolMeta, error) {
	// connCtx lives as long as the connection (the SSE transport holds its stream with it);
	// only the start itself is bounded.
	ctx, cancel := context.WithTimeout(s.m.life, ConnectTimeout)
	defer cancel()
	stopBound := context.AfterFunc(ctx, func() {
		if ctx.Err() == context.DeadlineExceeded {
			s.mu.Lock()
			c := s.starting
			s.mu.Unlock()
			if c != nil {
				c()
			}
		}
	})
	defer stopBound()
	name := s.cfg.Name
	client := sdk.NewClient(&sdk.Implementation{Name: "atomic", Version: s.m.opts.ClientVersion}, &sdk.ClientOptions{
		ProgressNotificationHandler: s.onProgress,
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
			s.m.background(s.refreshTools)
		},
	})
	var (
		sess *sdk.ClientSession
		proc *process
		err  error
	)
	if s.cfg.Command != "" {
		var t sdk.Transport
		t, proc, err = s.stdioTransport()
		if err != nil {
			return nil, nil, nil, fmt.Errorf("mcp: starting server %q (%s): %w", name, s.cfg.Command, err)
		}
		sess, err = client.Connect(connCtx, s.tap(t), nil)
		if err != nil {
			err = fmt.Errorf("mcp: connecting to server %q (%s): %w%s", name, s.cfg.Command, err, proc.describeExit())
		}
	} else {
		sess, err = s.connectHTTP(connCtx, client)
	}
	if err != nil {
		if ctx.Err() != nil && s.m.life.Err() == nil {
			err = fmt.Errorf("%w (no answer within %s)", err, ConnectTimeout)
		}
		return nil, proc, nil, err
	}
	tools, err := s.list(ctx, sess)
	if err != nil {
		return sess, proc, nil, fmt.Errorf("mcp: listing the tools of server %q: %w%s", name, err, proc.describeExit())
	}
	return sess, proc, tools, nil
}

// list reads the server's tools, and its resources when exposeResources is on.
func (s *server) list(ctx context.Context, sess *sdk.ClientSession) ([]ToolMeta, error) {
	tools := []ToolMeta{}
	init := sess.InitializeResult()
	if init == nil || init.Capabilities == nil || init.Capabilities.Tools != nil {
		for t, err := range sess.Tools(ctx, nil) {
			if err != nil {
				return nil, err
			}
			schema, _ := json.Marshal(t.InputSchema)
			tools = append(tools, ToolMeta{Original: t.Name, Description: t.Description, InputSchema: schema})
		}
	}
	if s.cfg.ExposeResources && init != nil && init.Capabilities != nil && init.Capabilities.Resources != nil {
		for r, err := range sess.Resources(ctx, nil) {
			if err != nil {
				break // resources are optional: the tools stand
			}
			desc := r.Description
			if desc == "" {
				desc = "Read resource: " + r.URI
			}
			tools = append(tools, ToolMeta{Original: "read_" + resourceToolName(r.Name), Description: desc, ResourceURI: r.URI, MimeType: r.MIMEType})
		}
	}
	return finishMeta(s.cfg, tools), nil
}

func (s *server) refreshTools() {
	s.mu.Lock()
	sess := s.sess
	s.mu.Unlock()
	if sess == nil {
		return
	}
	ctx, cancel := context.WithTimeout(s.m.life, ConnectTimeout)
	defer cancel()
	tools, err := s.list(ctx, sess)
	if err != nil {
		return
	}
	s.mu.Lock()
	if s.sess == sess {
		s.tools = tools
	}
	s.mu.Unlock()
	s.m.saveCache(s.cfg, tools)
	s.m.toolsChanged()
}

// watch waits for the connection to end; an end nobody asked for is recorded as the server's
// error, and a keep-alive server is reconnected.
func (s *server) watch(sess *sdk.ClientSession, gen int) {
	err := sess.Wait()
	if s.ended(gen, err) {
		s.scheduleReconnect()
	}
}

// ended records that connection gen ended by itself (err is why): the process is ended, and the
// error says how it exited and what it last wrote to stderr. It reports false when gen was
// already over (disconnected on purpose, or recorded by another caller).
func (s *server) ended(gen int, err error) bool {
	s.mu.Lock()
	proc, live := s.proc, s.gen == gen
	s.mu.Unlock()
	if !live {
		return false
	}
	msg := "the connection closed"
	if err != nil {
		msg = err.Error()
	}
	rec := fmt.Errorf("mcp: server %q disconnected: %s%s", s.cfg.Name, msg, proc.describeExit())
	s.mu.Lock()
	if s.gen != gen {
		s.mu.Unlock()
		return false
	}
	s.gen++
	cancelConn := s.cancelConn
	s.sess, s.proc, s.err, s.cancelConn = nil, nil, rec, nil
	if s.idle != nil {
		s.idle.Stop()
		s.idle = nil
	}
	s.mu.Unlock()
	if cancelConn != nil {
		cancelConn()
	}
	proc.stop()
	s.m.noteDisconnected(s.cfg.Name)
	return true
}

// scheduleReconnect reconnects a keep-alive server after a growing pause.
func (s *server) scheduleReconnect() {
	if s.cfg.Lifecycle != KeepAlive || s.m.closed.Load() {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.manual || s.retry != nil {
		return
	}
	if s.delay == 0 {
		s.delay = reconnectDelay
	} else {
		s.delay = min(s.delay*2, reconnectMaxDelay)
	}
	s.retry = time.AfterFunc(s.delay, func() {
		s.mu.Lock()
		s.retry = nil
		manual := s.manual
		s.mu.Unlock()
		if manual || s.m.closed.Load() {
			return
		}
		if _, err := s.connect(s.m.life); err != nil {
			s.scheduleReconnect()
		}
	})
}

// disconnect closes the session and ends the process. manual stops keep-alive reconnects until
// the next use.
func (s *server) disconnect(manual bool) {
	s.mu.Lock()
	if manual {
		s.manual = true
		if s.retry != nil {
			s.retry.Stop()
			s.retry = nil
		}
	}
	if s.idle != nil {
		s.idle.Stop()
		s.idle = nil
	}
	sess, proc, cancelConn := s.sess, s.proc, s.cancelConn
	s.sess, s.proc, s.cancelConn = nil, nil, nil
	s.gen++
	s.mu.Unlock()
	if sess != nil {
		_ = sess.Close()
	}
	if cancelConn != nil {
		cancelConn()
	}
	proc.stop()
	if sess != nil {
		s.m.noteDisconnected(s.cfg.Name)
	}
}

// use runs fn with the live session, starting the server if needed. While fn runs the server
// does not idle out; token is the progress token of the request, and progress for it restarts
// the server's timeoutMs.
func (s *server) use(ctx context.Context, what string, fn func(context.Context, *sdk.ClientSession, string) error) error {
	sess, err := s.connect(ctx)
	if err != nil {
		return err
	}
	token := fmt.Sprintf("atomic-%d", s.m.seq.Add(1))
	callCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var timer *time.Timer
	s.mu.Lock()
	s.inflight++
	if s.idle != nil {
		s.idle.Stop()
		s.idle = nil
	}
	if d := s.cfg.Timeout; d > 0 {
		timer = time.AfterFunc(d, func() { cancel(errInactive) })
		if s.progress == nil {
			s.progress = map[string]func(){}
		}
		s.progress[token] = func() { timer.Reset(d) }
	}
	gen := s.gen
	s.mu.Unlock()
	defer func() {
		if timer != nil {
			timer.Stop()
		}
		s.mu.Lock()
		delete(s.progress, token)
		s.inflight--
		if s.inflight == 0 && s.sess != nil && s.gen == gen && s.cfg.Lifecycle != KeepAlive && s.cfg.IdleTimeout > 0 {
			s.idle = time.AfterFunc(s.cfg.IdleTimeout, func() { s.idleOut(gen) })
		}
		s.mu.Unlock()
	}()
	err = fn(callCtx, sess, token)
	if err == nil {
		return nil
	}
	if errors.Is(context.Cause(callCtx), errInactive) {
		return fmt.Errorf("mcp: server %q: %s: cancelled after %s with no response or progress (timeoutMs)", s.cfg.Name, what, s.cfg.Timeout)
	}
	if ctx.Err() != nil {
		return fmt.Errorf("mcp: server %q: %s: %w", s.cfg.Name, what, context.Cause(ctx))
	}
	var wire *jsonrpc.Error
	if errors.As(err, &wire) {
		return fmt.Errorf("mcp: server %q: %s: %w", s.cfg.Name, what, err)
	}
	// Not an answer of the server: the connection failed. Wait (bounded) for it to end, then
	// say how the server went.
	select {
	case <-waitDone(sess):
		// Whichever of this call and watch records the end first reconnects a keep-alive
		// server; the other sees the generation over.
		if s.ended(gen, err) {
			s.scheduleReconnect()
		}
	case <-time.After(2 * time.Second):
	}
	var tail string
	s.mu.Lock()
	if s.gen != gen && s.err != nil {
		tail = " (" + s.err.Error() + ")"
	}
	s.mu.Unlock()
	return fmt.Errorf("mcp: server %q: %s: %w%s", s.cfg.Name, what, err, tail)
}

func waitDone(sess *sdk.ClientSession) <-chan struct{} {
	ch := make(chan struct{})
	go func() { _ = sess.Wait(); close(ch) }()
	return ch
}

func (s *server) idleOut(gen int) {
	s.mu.Lock()
	ok := s.gen == gen && s.inflight == 0 && s.sess != nil
	s.mu.Unlock()
	if ok {
		s.disconnect(false)
	}
}

func (s *server) onProgress(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
	if req == nil || req.Params == nil {
		return
	}
	tok := fmt.Sprint(req.Params.ProgressToken)
	s.mu.Lock()
	fn := s.progress[tok]
	s.mu.Unlock()
	if fn != nil {
		fn()
	}
}

// state reports the server's connection state for Status.
func (s *server) state() (state string, err error, live []ToolMeta) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.sess != nil:
		state = "connected"
	case s.start != nil:
		state = "connecting"
	case s.err != nil:
		state = "failed"
	default:
		state = "not-connected"
	}
	return state, s.err, s.tools
}

// noteQueue buffers notifications until a listener binds (NotificationBuffer, drop-oldest) and
// delivers them in order on one goroutine at a time.
type noteQueue struct {
	mu      sync.Mutex
	buf     []Notification
	sink    func(Notification)
	running bool
	drained chan struct{} // closed when the running delivery goroutine stops
}

// flush waits (at most d) until every queued notification was delivered; with no listener it
// returns at once.
func (q *noteQueue) flush(d time.Duration) {
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	for {
		q.mu.Lock()
		if q.sink == nil || !q.running && len(q.buf) == 0 {
			q.mu.Unlock()
			return
		}
		ch := q.drained
		q.mu.Unlock()
		select {
		case <-ch:
		case <-deadline.C:
			return
		}
	}
}

func (q *noteQueue) push(n Notification) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.buf = append(q.buf, n)
	if len(q.buf) > NotificationBuffer {
		q.buf = append(q.buf[:0], q.buf[len(q.buf)-NotificationBuffer:]...)
	}
	q.kick()
}

func (q *noteQueue) bind(fn func(Notification)) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.sink = fn
	q.kick()
}

// kick starts the delivery goroutine; q.mu is held.
func (q *noteQueue) kick() {
	if q.sink == nil || q.running || len(q.buf) == 0 {
		return
	}
	q.running = true
	q.drained = make(chan struct{})
	drained := q.drained
	go func() {
		for {
			q.mu.Lock()
			if q.sink == nil || len(q.buf) == 0 {
				q.running = false
				close(drained)
				q.mu.Unlock()
				return
			}
			n, sink := q.buf[0], q.sink
			q.buf = q.buf[1:]
			q.mu.Unlock()
			sink(n)
		}
	}()
}

func joinOr(names []string, none string) string {
	if len(names) == 0 {
		return none
	}
	out := ""
	for i, n := range names {
		if i > 0 {
			out += ", "
		}
		out += n
	}
	return out
}

var _ = os.Stderr
