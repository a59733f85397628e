package fakellm

import (
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/atomic-cli/atomic/llm"
)

// TurnHeader is the response header naming the index of the scripted turn that answered a
// request. It is absent when the fake answered with an error of its own (unknown path, no turn
// left, non-streaming request).
const TurnHeader = "X-Fakellm-Turn"

// Request is one request the fake received, recorded before it was answered.
type Request struct {
	// Seq is the 1-based arrival number among all requests, answered or not.
	Seq int
	// Method is the HTTP method.
	Method string
	// Path is the URL path, without the query.
	Path string
	// Header is a copy of the request headers, credentials included.
	Header http.Header
	// Body is the raw request body.
	Body []byte
	// JSON is the decoded body; nil when the body is not a JSON object.
	JSON map[string]any
	// API is the wire API of Path (an llm.API* constant); "" for an unknown path.
	API string
	// AssistantCount is CountAssistantTurns of Body; -1 when the body holds no conversation.
	AssistantCount int
	// Turn is the index of the scripted turn played; -1 when the fake answered with an error of
	// its own.
	Turn int
}

// Handler is the fake provider as an http.Handler, for mounting on a Server or on any transport.
// It is safe for concurrent use. A dropped turn aborts the response with
// panic(http.ErrAbortHandler), so whoever serves a Handler must recover that panic, as net/http
// does.
type Handler struct {
	script Script

	mu     sync.Mutex // guards reqs and served
	reqs   []Request
	served int // requests routed to an endpoint: the turn index of MatchRequestCount
}

// NewHandler returns a Handler playing script. It panics when the script is invalid (see
// Script.Validate): a broken script is a bug in the test that wrote it.
func NewHandler(script Script) *Handler {
	if err := script.Validate(); err != nil {
		panic(err.Error())
	}
	return &Handler{script: script}
}

// Requests returns a copy of the requests received so far, in arrival order.
func (h *Handler) Requests() []Request {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]Request, len(h.reqs))
	copy(out, h.reqs)
	return out
}

// apiForPath maps a request path to its wire API, "" when the path is not an endpoint.
func apiForPath(path string) string {
	switch path {
	case "/v1/messages", "/messages":
		return llm.APIAnthropicMessages
	case "/v1/chat/completions", "/chat/completions":
		return llm.APIOpenAICompletions
	case "/v1/responses", "/responses":
		return llm.APIOpenAIResponses
	}
	return ""
}

// ServeHTTP records the request, selects the turn, and answers with it.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, readErr := io.ReadAll(r.Body)
	rec := Request{
		Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body,
		API: apiForPath(r.URL.Path), AssistantCount: -1, Turn: -1,
	}
	if n, ok := CountAssistantTurns(body); ok {
		rec.AssistantCount = n
	}
	if err := json.Unmarshal(body, &rec.JSON); err != nil {
		rec.JSON = nil
	}

	api, fail := rec.API, (*APIError)(nil)
	switch {
	case api == "":
		api = llm.APIOpenAICompletions
		fail = &APIError{Status: http.StatusNotFound, Type: "invalid_request_error", Code: "unknown_url",
			Message: fmt.Sprintf("fakellm: no endpoint at %s; use /v1/messages, /v1/chat/completions or /v1/responses", r.URL.Path)}
	case r.Method != http.MethodPost:
		fail = &APIError{Status: http.StatusMethodNotAllowed,
			Message: fmt.Sprintf("fakellm: %s %s: only POST is served", r.Method, r.URL.Path)}
	case readErr != nil:
		fail = &APIError{Status: http.StatusBadRequest, Message: "fakellm: read request body: " + readErr.Error()}
	case rec.JSON == nil:
		fail = &APIError{Status: http.StatusBadRequest, Message: "fakellm: the request body is not a JSON object"}
	case rec.JSON["stream"] != true:
		fail = &APIError{Status: http.StatusBadRequest,
			Message: `fakellm: only streaming requests are served; set "stream": true`}
	}

	h.mu.Lock()
	rec.Seq = len(h.reqs) + 1
	if fail == nil {
		turn := h.served
		h.served++
		if h.script.Match == MatchAssistantCount {
			turn = rec.AssistantCount
		}
		switch {
		case turn < 0:
			fail = &APIError{Status: http.StatusBadRequest,
				Message: "fakellm: cannot count assistant turns: the body has no messages or input array"}
		case turn >= len(h.script.Turns):
			fail = &APIError{Status: http.StatusInternalServerError,
				Message: fmt.Sprintf("fakellm: no scripted turn %d: the script has %d turns", turn, len(h.script.Turns))}
		default:
			rec.Turn = turn
		}
	}
	h.reqs = append(h.reqs, rec)
	h.mu.Unlock()

	t := Turn{Error: fail}
	if fail == nil {
		t = h.script.Turns[rec.Turn]
	}
	info := Info{Turn: max(rec.Turn, 0), Seq: rec.Seq, InputTokens: EstimateTokens(len(body))}
	info.Model, _ = rec.JSON["model"].(string)
	if opts, ok := rec.JSON["stream_options"].(map[string]any); ok {
		info.IncludeUsage = opts["include_usage"] == true
	}
	out, err := Render(api, t, info)
	if err != nil {
		// The script was validated and api is one of three; a failure here is a fakellm bug.
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	if out.Stall == StallHeaders {
		hang(r)
		return
	}
	for k, v := range out.Header {
		w.Header()[k] = v
	}
	if rec.Turn >= 0 {
		w.Header().Set(TurnHeader, strconv.Itoa(rec.Turn))
	}
	w.WriteHeader(out.Status)
	if out.Frames == nil {
		_, _ = w.Write(out.Body)
		return
	}
	stream(w, r, out)
}

// stream writes the frames of out one by one, flushing each, pausing out.DelayMS between them,
// and aborts the connection after the last one when out is truncated.
func stream(w http.ResponseWriter, r *http.Request, out *Rendered) {
	rc := http.NewResponseController(w)
	var buf []byte
	for i, f := range out.Frames {
		if i > 0 && out.DelayMS > 0 {
			timer := time.NewTimer(time.Duration(out.DelayMS) * time.Millisecond)
			select {
			case <-r.Context().Done():
				timer.Stop()
				return
			case <-timer.C:
			}
		}
		if out.Stall == StallEvents && i == out.StallAfter {
			hang(r)
			return
		}
		buf = f.AppendTo(buf[:0])
		if _, err := w.Write(buf); err != nil {
			return
		}
		if err := rc.Flush(); err != nil {
			return
		}
	}
	if out.Truncated {
		panic(http.ErrAbortHandler)
	}
}

// hang waits until the client goes away (or the server closes) or MaxStall passed.
func hang(r *http.Request) {
	t := time.NewTimer(MaxStall)
	defer t.Stop()
	select {
	case <-r.Context().Done():
	case <-t.C:
	}
}

// Server is a Handler listening on a loopback port.
type Server struct {
	handler *Handler
	srv     *http.Server
	url     string
	client  *http.Client
	served  chan struct{} // closed when the Serve goroutine returns

	mu     sync.Mutex // guards closed and the Add side of active
	closed bool
	active sync.WaitGroup // running handler calls
}

// New starts a Server playing script on a free loopback port. It panics when the script is
// invalid or no port can be opened; use Listen to get an error instead.
func New(script Script) *Server {
	s, err := Listen("127.0.0.1:0", script)
	if err != nil {
		panic(err.Error())
	}
	return s
}

// Listen starts a Server playing script on addr ("127.0.0.1:0" for a free port).
func Listen(addr string, script Script) (*Server, error) {
	if err := script.Validate(); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("fakellm: listen on %s: %w", addr, err)
	}
	s := &Server{
		handler: &Handler{script: script},
		url:     "http://" + ln.Addr().String(),
		client:  &http.Client{Transport: &http.Transport{}},
		served:  make(chan struct{}),
	}
	s.srv = &http.Server{
		Handler:           http.HandlerFunc(s.serve),
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          log.New(io.Discard, "", 0),
	}
	go func() {
		defer close(s.served)
		_ = s.srv.Serve(ln) // returns http.ErrServerClosed after Close
	}()
	return s, nil
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		http.Error(w, "fakellm: server closed", http.StatusServiceUnavailable)
		return
	}
	s.active.Add(1)
	s.mu.Unlock()
	defer s.active.Done()
	s.handler.ServeHTTP(w, r)
}

// URL returns the server's base URL, "http://127.0.0.1:<port>", without a trailing slash or /v1.
func (s *Server) URL() string { return s.url }

// Handler returns the server's Handler.
func (s *Server) Handler() *Handler { return s.handler }

// Requests returns a copy of the requests received so far, in arrival order.
func (s *Server) Requests() []Request { return s.handler.Requests() }

// Client returns an HTTP client for the server whose idle connections Close closes.
func (s *Server) Client() *http.Client { return s.client }

// Close stops the server, cuts open connections, and waits for running handlers and the serve
// goroutine to return.
func (s *Server) Close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	_ = s.srv.Close()
	s.active.Wait()
	<-s.served
	s.client.CloseIdleConnections()
}
