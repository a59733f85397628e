package rpc

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"sync"
	"time"

	"github.com/atomic-cli/atomic/llm"
)

// dialogs implements ext.UI by forwarding to the client (rpc-and-json.md §6). A dialog (select,
// confirm, input, editor) writes an extension_ui_request and waits for the extension_ui_response
// with its id, for ctx to end, or for the server to close; the last two resolve to the dialog's
// default (no choice, false). The agent-side timeout is ctx's deadline: the request carries it as
// "timeout" in milliseconds for select, confirm and input, so the client may show it, but the
// client need not track it. A dialog asked with an already-ended ctx resolves at once without a
// request. Answers to unknown or finished ids are ignored. Safe for concurrent use; mu guards
// pending and closed.
type dialogs struct {
	s       *Server
	mu      sync.Mutex
	pending map[string]chan uiAnswer
	closed  bool
	done    chan struct{} // closed by close

	// The components (components.go): custom ones by request id, the widget, footer and header
	// ones by slot; cols and rows are the client's size (0: 80×24).
	comps      map[string]*rpcComp
	slots      map[string]*rpcComp
	cols, rows int
	loop       compLoop
}

func newDialogs(s *Server) *dialogs {
	d := &dialogs{s: s, pending: map[string]chan uiAnswer{}, done: make(chan struct{}),
		comps: map[string]*rpcComp{}, slots: map[string]*rpcComp{}}
	d.loop.done = d.done
	return d
}

// close resolves every pending and future dialog to its default.
func (d *dialogs) close() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.closed {
		d.closed = true
		close(d.done)
	}
}

// answer delivers a client's response to the dialog waiting for it, if any.
func (d *dialogs) answer(a uiAnswer) {
	d.mu.Lock()
	ch := d.pending[a.ID]
	delete(d.pending, a.ID)
	d.mu.Unlock()
	if ch != nil {
		ch <- a // buffered: never blocks
	}
}

// field is one member of a request after "type", "id" and "method"; omit leaves it out.
type field struct {
	key   string
	value any // string, []string or int64
	omit  bool
}

// ask shows a dialog and waits; ok is false when it resolved to its default without an answer.
func (d *dialogs) ask(ctx context.Context, method string, timed bool, fields ...field) (uiAnswer, bool) {
	if ctx == nil {
		ctx = context.Background()
	}
	if ctx.Err() != nil {
		return uiAnswer{}, false
	}
	if timed {
		if dl, ok := ctx.Deadline(); ok {
			ms := time.Until(dl).Milliseconds()
			if ms <= 0 {
				return uiAnswer{}, false
			}
			fields = append(fields, field{key: "timeout", value: ms})
		}
	}
	id := newID()
	ch := make(chan uiAnswer, 1)
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return uiAnswer{}, false
	}
	d.pending[id] = ch
	d.mu.Unlock()
	d.s.writeLine(appendRequest(id, method, fields))
	select {
	case a := <-ch:
		return a, true
	case <-ctx.Done():
	case <-d.done:
	}
	d.mu.Lock()
	delete(d.pending, id)
	d.mu.Unlock()
	return uiAnswer{}, false
}

// notify writes a fire-and-forget request (it has an id too, which the client ignores).
func (d *dialogs) notify(method string, fields ...field) {
	d.s.writeLine(appendRequest(newID(), method, fields))
}

// Select implements ext.UI: {value} picks, {cancelled:true}, another answer, timeout or abort
// give no choice.
func (d *dialogs) Select(ctx context.Context, title string, options []string) (string, bool) {
	if options == nil {
		options = []string{}
	}
	a, ok := d.ask(ctx, "select", true, field{key: "title", value: title}, field{key: "options", value: options})
	if !ok || a.Cancelled || a.Value == nil {
		return "", false
	}
	return *a.Value, true
}

// Confirm implements ext.UI: false unless the client answers {confirmed:true}.
func (d *dialogs) Confirm(ctx context.Context, title, message string) bool {
	a, ok := d.ask(ctx, "confirm", true, field{key: "title", value: title}, field{key: "message", value: message})
	return ok && !a.Cancelled && a.Confirmed != nil && *a.Confirmed
}

// Input implements ext.UI: {value} is the text; anything else, a timeout or an abort is no text.
func (d *dialogs) Input(ctx context.Context, title, placeholder string) (string, bool) {
	a, ok := d.ask(ctx, "input", true, field{key: "title", value: title}, field{key: "placeholder", value: placeholder, omit: placeholder == ""})
	if !ok || a.Cancelled || a.Value == nil {
		return "", false
	}
	return *a.Value, true
}

// Editor implements ext.UI. The request carries no timeout (pi's editor has none), but ctx still
// ends the wait.
func (d *dialogs) Editor(ctx context.Context, title, prefill string) (string, bool) {
	a, ok := d.ask(ctx, "editor", false, field{key: "title", value: title}, field{key: "prefill", value: prefill, omit: prefill == ""})
	if !ok || a.Cancelled || a.Value == nil {
		return "", false
	}
	return *a.Value, true
}

// Notify implements ext.UI; an empty level leaves notifyType out (the client shows info).
func (d *dialogs) Notify(message, level string) {
	d.notify("notify", field{key: "message", value: message}, field{key: "notifyType", value: level, omit: level == ""})
}

// SetStatus implements ext.UI; empty text clears the key (statusText left out).
func (d *dialogs) SetStatus(key, text string) {
	d.notify("setStatus", field{key: "statusKey", value: key}, field{key: "statusText", value: text, omit: text == ""})
}

// SetWidget implements ext.UI; nil lines clear the widget (widgetLines left out).
func (d *dialogs) SetWidget(key string, lines []string) {
	d.notify("setWidget", field{key: "widgetKey", value: key}, field{key: "widgetLines", value: lines, omit: lines == nil})
}

// SetTitle implements ext.UI.
func (d *dialogs) SetTitle(title string) {
	d.notify("setTitle", field{key: "title", value: title})
}

// SetEditorText implements ext.UI.
func (d *dialogs) SetEditorText(text string) {
	d.notify("set_editor_text", field{key: "text", value: text})
}

// GetEditorText implements ext.UI: RPC cannot read the client's editor synchronously, so it is
// always "" (rpc-and-json.md §6.3).
func (d *dialogs) GetEditorText() string { return "" }

// appendRequest encodes {"type":"extension_ui_request","id","method",…fields}.
func appendRequest(id, method string, fields []field) []byte {
	b := append(make([]byte, 0, 128), `{"type":"extension_ui_request","id":`...)
	b = llm.AppendJSONString(b, id)
	b = append(b, `,"method":`...)
	b = llm.AppendJSONString(b, method)
	for _, f := range fields {
		if f.omit {
			continue
		}
		b = append(b, ',')
		b = llm.AppendJSONString(b, f.key)
		b = append(b, ':')
		switch v := f.value.(type) {
		case string:
			b = llm.AppendJSONString(b, v)
		case int64:
			b, _ = appendValue(b, v)
		case bool:
			b, _ = appendValue(b, v)
		case rawJSON:
			b = append(b, v...)
		case []string:
			b = append(b, '[')
			for i, s := range v {
				if i > 0 {
					b = append(b, ',')
				}
				b = llm.AppendJSONString(b, s)
			}
			b = append(b, ']')
		}
	}
	return append(b, '}')
}

// newID returns a random UUID (version 4), the id of a UI request.
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}
