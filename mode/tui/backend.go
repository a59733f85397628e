package tui

import (
	"github.com/atomic-cli/atomic/session"
)

// subscribe feeds the runtime's events (kept across session replacement) into q. This is the
// one place the UI reads the session's event stream.
func subscribe(rt *session.Runtime, q *queue) func() {
	sub := rt.Subscribe(func(e session.Event) {
		if v := convert(e); v != nil {
			q.push(v)
		}
	}, session.SubscribeOptions{Snapshots: true})
	return sub.Close
}
