package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/atomic-cli/atomic/internal/procgroup"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// stderrTail is how much of a stdio server's stderr is kept for error messages.
const stderrTail = 2048

// process is a running stdio server: its command, its process group (so it dies with atomic
// and with its connection) and the tail of its stderr.
type process struct {
	cmd   *exec.Cmd
	group *procgroup.Group
	tail  *tailBuffer
	done  chan struct{}
	once  sync.Once
}

// stdioTransport starts the server's command with its env and cwd in a new process group and
// returns a transport over its stdin and stdout.
func (s *server) stdioTransport() (sdk.Transport, *process, error) {
	c := exec.Command(s.cfg.Command, s.cfg.Args...)
	c.Env = os.Environ()
	for k, v := range s.cfg.Env {
		c.Env = append(c.Env, k+"="+v)
	}
	c.Dir = s.cfg.Cwd
	p := &process{cmd: c, tail: &tailBuffer{max: stderrTail}, done: make(chan struct{})}
	if g, err := procgroup.New(); err == nil {
		p.group = g
		c.SysProcAttr = g.Attr()
	}
	var stderr io.Writer = p.tail
	if s.cfg.Debug && s.m.opts.Stderr != nil {
		stderr = io.MultiWriter(p.tail, prefixWriter{w: s.m.opts.Stderr, prefix: "[mcp " + s.cfg.Name + "] "})
	}
	c.Stderr = stderr
	stdin, err := c.StdinPipe()
	if err != nil {
		p.release()
		return nil, nil, err
	}
	stdout, err := c.StdoutPipe()
	if err != nil {
		p.release()
		return nil, nil, err
	}
	if err := c.Start(); err != nil {
		p.release()
		return nil, nil, err
	}
	go func() { _ = c.Wait(); close(p.done) }()
	return &sdk.IOTransport{Reader: stdout, Writer: stdin}, p, nil
}

func (p *process) release() {
	if p != nil && p.group != nil {
		p.group.Kill()
	}
}

// stop ends the process: a short grace after its stdin closed, then the whole group is killed.
func (p *process) stop() {
	if p == nil {
		return
	}
	p.once.Do(func() {
		select {
		case <-p.done:
		case <-time.After(500 * time.Millisecond):
		}
		if p.group != nil {
			p.group.Kill()
		} else if p.cmd.Process != nil {
			_ = p.cmd.Process.Kill()
		}
		select {
		case <-p.done:
		case <-time.After(5 * time.Second):
		}
	})
}

// describeExit says how the process ended and what it last wrote to stderr, for errors; "" while
// it runs.
func (p *process) describeExit() string {
	if p == nil {
		return ""
	}
	select {
	case <-p.done:
	case <-time.After(time.Second):
		return ""
	}
	msg := "; the server process exited"
	if st := p.cmd.ProcessState; st != nil {
		msg += " (" + st.String() + ")"
	}
	if t := strings.TrimSpace(p.tail.String()); t != "" {
		msg += "; stderr: " + t
	}
	return msg
}

// tap wraps a transport so every notification the server sends is also queued for
// mcp_notification.
func (s *server) tap(t sdk.Transport) sdk.Transport {
	return &tapTransport{Transport: t, on: func(method string, params json.RawMessage) {
		s.m.notes.push(Notification{Server: s.cfg.Name, Method: method, Params: params})
	}}
}

type tapTransport struct {
	sdk.Transport
	on func(string, json.RawMessage)
}

func (t *tapTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &tapConn{Connection: c, on: t.on}, nil
}

type tapConn struct {
	sdk.Connection
	on func(string, json.RawMessage)
}

func (c *tapConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if req, ok := msg.(*jsonrpc.Request); ok && err == nil && !req.IsCall() {
		c.on(req.Method, append(json.RawMessage(nil), req.Params...))
	}
	return msg, err
}

// connectHTTP connects over streamable HTTP and falls back to the older HTTP+SSE transport when
// the endpoint does not speak it.
func (s *server) connectHTTP(ctx context.Context, client *sdk.Client) (*sdk.ClientSession, error) {
	hc := &http.Client{Transport: headerTransport{base: http.DefaultTransport, headers: s.httpHeaders()}}
	sess, err := client.Connect(ctx, s.tap(&sdk.StreamableClientTransport{Endpoint: s.cfg.URL, HTTPClient: hc, MaxRetries: -1}), nil)
	if err == nil {
		return sess, nil
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("mcp: connecting to server %q (%s): %w", s.cfg.Name, s.cfg.URL, err)
	}
	sess, err2 := client.Connect(ctx, s.tap(&sdk.SSEClientTransport{Endpoint: s.cfg.URL, HTTPClient: hc}), nil)
	if err2 == nil {
		return sess, nil
	}
	return nil, fmt.Errorf("mcp: connecting to server %q (%s): streamable HTTP: %w; SSE: %v", s.cfg.Name, s.cfg.URL, err, err2)
}

func (s *server) httpHeaders() map[string]string {
	h := map[string]string{}
	for k, v := range s.cfg.Headers {
		h[k] = v
	}
	if s.cfg.Auth == "bearer" && s.cfg.BearerToken != "" {
		h["Authorization"] = "Bearer " + s.cfg.BearerToken
	}
	return h
}

type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 {
		r = r.Clone(r.Context())
		for k, v := range t.headers {
			r.Header.Set(k, v)
		}
	}
	return t.base.RoundTrip(r)
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

type prefixWriter struct {
	w      io.Writer
	prefix string
}

func (p prefixWriter) Write(b []byte) (int, error) {
	for _, line := range strings.SplitAfter(string(b), "\n") {
		if line != "" {
			if _, err := io.WriteString(p.w, p.prefix+line); err != nil {
				return 0, err
			}
		}
	}
	return len(b), nil
}

var _ = errors.New
