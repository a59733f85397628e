package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/atomic-cli/atomic/internal/fixture"
)

func TestRunServesTheScenario(t *testing.T) {
	opts, err := parse([]string{fixture.Path("scenarios", "text-only.json")}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan error, 1)
	go func() { done <- run(ctx, opts, pw, &stderr); pw.Close() }()

	lines := bufio.NewScanner(pr)
	if !lines.Scan() {
		t.Fatalf("no output; run returned %v", <-done)
	}
	first := lines.Text()
	go func() {
		for lines.Scan() {
		}
	}()
	url := first[strings.LastIndex(first, " ")+1:]
	resp, err := http.Post(url+"/v1/chat/completions", "application/json",
		strings.NewReader(`{"stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), "plain text answer") || !strings.HasSuffix(string(body), "data: [DONE]\n\n") {
		t.Errorf("body:\n%s", body)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr.String(), "POST /v1/chat/completions -> 200 turn 0 done") {
		t.Errorf("log: %s", stderr.String())
	}
}

func TestParseWantsOneScenario(t *testing.T) {
	if _, err := parse(nil, io.Discard); err == nil {
		t.Error("parse accepted no scenario")
	}
}
