// Command streamfloor is the floor of bench/tui-vs-pi.sh's streaming numbers: it sends one
// Anthropic Messages request to the fake LLM and reads the streamed answer line by line with
// net/http and doing nothing else, then prints its own CPU time (user+sys, ms). Whatever a Go
// program does with the deltas costs more than this.
//
// Usage: streamfloor BASE_URL
package main

import (
	"bufio"
	"fmt"
	"net/http"
	"os"
	"strings"
	"syscall"
	"time"
)

func cpuMS() int64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return (ru.Utime.Nano() + ru.Stime.Nano()) / 1e6
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: streamfloor BASE_URL")
		os.Exit(2)
	}
	c0 := cpuMS()
	body := `{"model":"fake-model","max_tokens":4096,"stream":true,"messages":[{"role":"user","content":"stream please"}]}`
	req, err := http.NewRequest("POST", strings.TrimSuffix(os.Args[1], "/")+"/v1/messages", strings.NewReader(body))
	if err != nil {
		fmt.Fprintln(os.Stderr, "streamfloor: request:", err)
		os.Exit(1)
	}
	req.Header.Set("content-type", "application/json")
	req.Header.Set("x-api-key", "x")
	req.Header.Set("anthropic-version", "2023-06-01")
	client := &http.Client{Timeout: 2 * time.Minute}
	resp, err := client.Do(req)
	if err != nil {
		fmt.Fprintln(os.Stderr, "streamfloor: send:", err)
		os.Exit(1)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "streamfloor: read:", err)
		os.Exit(1)
	}
	fmt.Println(cpuMS() - c0)
}
