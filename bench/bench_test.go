package bench

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/atomic-cli/atomic/internal/fakellm"
	"github.com/atomic-cli/atomic/llm"
	_ "github.com/atomic-cli/atomic/llm/providers" // the wire APIs, as the binary links them
	"github.com/atomic-cli/atomic/llm/replay"
	jsonmode "github.com/atomic-cli/atomic/mode/json"
	printmode "github.com/atomic-cli/atomic/mode/print"
	"github.com/atomic-cli/atomic/session"
	"github.com/atomic-cli/atomic/store"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// binary builds cmd/atomic once per test process.
func binary(b *testing.B) string {
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "atomic-bench")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "atomic")
		out, err := exec.Command("go", "build", "-o", binPath, "../cmd/atomic").CombinedOutput()
		if err != nil {
			buildErr = err
			b.Logf("%s", out)
		}
	})
	if buildErr != nil {
		b.Fatal(buildErr)
	}
	return binPath
}

// runMeasured runs cmd and reports its peak RSS in KiB.
func runMeasured(b *testing.B, cmd *exec.Cmd) int64 {
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("%v: %v\n%s", cmd.Args, err, out)
	}
	return cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss
}

// BenchmarkVersion is `atomic --version`: process start to exit (target < 8 ms, < 25 MB).
func BenchmarkVersion(b *testing.B) {
	bin := binary(b)
	var peak int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		peak = max(peak, runMeasured(b, exec.Command(bin, "--version")))
	}
	b.ReportMetric(float64(peak)/1024, "peak-MB")
}

// BenchmarkPrintRunOneBash is a whole `atomic -p` run against the fake server over loopback:
// one bash tool call, then an answer, with the session saved (target < 30 ms, < 30 MB).
func BenchmarkPrintRunOneBash(b *testing.B) {
	bin := binary(b)
	srv := fakellm.New(fakellm.Script{Match: fakellm.MatchAssistantCount, Turns: []fakellm.Turn{
		{Text: "Listing.", ToolCalls: []fakellm.ToolCall{fakellm.Call("bash", map[string]any{"command": "ls"})}},
		{Text: "Done."},
	}})
	defer srv.Close()
	dir := b.TempDir()
	agentDir := filepath.Join(dir, "agent")
	os.MkdirAll(agentDir, 0o755)
	os.WriteFile(filepath.Join(agentDir, "models.json"), []byte(`{"providers":{"fake":{"baseUrl":"`+srv.URL()+`/v1","api":"openai-completions","models":[{"id":"fake-model"}]}}}`), 0o644)
	work := filepath.Join(dir, "work")
	os.MkdirAll(work, 0o755)
	var peak int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(bin, "-p", "list the files")
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "ATOMIC_CODING_AGENT_DIR="+agentDir)
		peak = max(peak, runMeasured(b, cmd))
	}
	b.ReportMetric(float64(peak)/1024, "peak-MB")
}

// BenchmarkJSONModeDeltas streams one assistant message of 10,000 text deltas through the real
// Anthropic provider code (SSE parsing from a replayed response), the agent loop, the session
// (persisting the final message in memory) and the JSON-mode writer, and reports the harness
// time per delta (target < 5 µs).
func BenchmarkJSONModeDeltas(b *testing.B) {
	const deltas = 10000
	text := strings.Repeat("abcd ", deltas) // chunks of one word each
	f, err := replay.FromScript(llm.APIAnthropicMessages, fakellm.Script{Turns: []fakellm.Turn{{Text: text, Chunks: deltas}}})
	if err != nil {
		b.Fatal(err)
	}
	f.Match = replay.MatchRequestCount
	mdl := &llm.Model{ID: "bench", Provider: "bench", API: llm.APIAnthropicMessages, BaseURL: "http://replay.invalid", MaxTokens: 1000}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		st := store.InMemory(b.TempDir())
		s, err := session.New(session.Options{Store: st, Model: mdl, HTTPClient: f.HTTPClient()})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		code := jsonmode.Run(context.Background(), s, []printmode.Prompt{{Text: "go"}}, io.Discard, io.Discard)
		if code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*deltas), "ns/delta")
}
