// Command streamfloor is the floor of bench/tui-vs-pi.sh's streaming numbers: it sends one
// Anthropic Messages request to the fake LLM and reads the streamed answer's server-sent events
// with atomic's own SSE client (llm/sse) and doing nothing else, then prints its own CPU time
// (user+sys, ms). Whatever a Go program does with the deltas costs more than this.
//
// With INTERVAL_MS (e.g. 33) the body is read with that sse.Call.ReadInterval, as the interactive
// mode reads it: the coalesced floor, one wakeup per interval instead of one per delta.
//
// Usage: streamfloor BASE_URL [INTERVAL_MS]
package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/atomic-cli/atomic/llm/sse"
)

func cpuMS() int64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return (ru.Utime.Nano() + ru.Stime.Nano()) / 1e6
}

func fail(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "streamfloor: "+format+"\n", a...)
	os.Exit(1)
}

func main() {
	if len(os.Args) != 2 && len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: streamfloor BASE_URL [INTERVAL_MS]")
		os.Exit(2)
	}
	var interval time.Duration
	if len(os.Args) == 3 {
		ms, err := strconv.Atoi(os.Args[2])
		if err != nil || ms < 0 {
			fail("INTERVAL_MS %q is not a number of milliseconds", os.Args[2])
		}
		interval = time.Duration(ms) * time.Millisecond
	}
	c0 := cpuMS()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := sse.Open(ctx, &sse.Call{
		Client: http.DefaultClient,
		URL:    strings.TrimSuffix(os.Args[1], "/") + "/v1/messages",
		Headers: map[string]string{
			"content-type":      "application/json",
			"x-api-key":         "x",
			"anthropic-version": "2023-06-01",
		},
		Payload: func() any {
			return map[string]any{"model": "fake-model", "max_tokens": 4096, "stream": true,
				"messages": []any{map[string]any{"role": "user", "content": "stream please"}}}
		},
		ReadInterval: interval,
	})
	if err != nil {
		fail("send the request to %s: %v", os.Args[1], err)
	}
	defer res.Close()
	for {
		if _, err := res.Events.Next(); err != nil {
			if err != io.EOF {
				fail("read the stream of %s: %v", os.Args[1], err)
			}
			break
		}
	}
	fmt.Println(cpuMS() - c0)
}
