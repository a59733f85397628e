package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/atomic-cli/atomic/internal/fakellm"
	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/mode/tui/tuitest"
	"github.com/atomic-cli/atomic/store"
)

// The interactive-mode benchmarks drive the real binary in a pseudo-terminal (mode/tui/tuitest)
// and read the child's CPU time (sum of /proc/<pid>/task/*/schedstat, ns) and memory
// (/proc/<pid>/status) while it runs. Linux only.

// cpuNS is the CPU time the process has used so far, in nanoseconds, over all its threads.
func cpuNS(b *testing.B, pid int) int64 {
	dirs, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	if err != nil || len(dirs) == 0 {
		b.Skipf("no /proc schedstat for pid %d", pid)
	}
	var total int64
	for _, f := range dirs {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		n, _ := strconv.ParseInt(strings.Fields(string(data))[0], 10, 64)
		total += n
	}
	return total
}

// rssKB returns VmRSS and VmHWM of pid in KiB.
func rssKB(b *testing.B, pid int) (rss, hwm int64) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Skipf("no /proc status: %v", err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 {
			continue
		}
		v, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "VmRSS:":
			rss = v
		case "VmHWM:":
			hwm = v
		}
	}
	return rss, hwm
}

// streamTurn is one answer of n deltas: words, some markdown, paragraphs every 40 words.
func streamTurn(n int) fakellm.Turn {
	var sb strings.Builder
	for i := 0; i < n; i++ {
		switch {
		case i%40 == 39:
			sb.WriteString("word.\n\n")
		case i%7 == 3:
			sb.WriteString("**bold** ")
		default:
			sb.WriteString("word ")
		}
	}
	sb.WriteString("END-OF-ANSWER")
	return fakellm.Turn{Text: sb.String(), Chunks: n, DelayMS: 1}
}

// longSession writes a session of n messages (n/2 user/assistant pairs with markdown) and
// returns its path.
func longSession(b *testing.B, cwd, dir string, n int) string { return longSessionT(b, cwd, dir, n) }

func longSessionT(b testing.TB, cwd, dir string, n int) string {
	st, err := store.Create(cwd, dir, store.CreateOptions{})
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < n/2; i++ {
		if _, err := st.AppendMessage(llm.UserText(fmt.Sprintf("question %d: what does function f%d do?", i, i), nil, int64(i))); err != nil {
			b.Fatal(err)
		}
		a := llm.Message{Role: llm.RoleAssistant, API: llm.APIAnthropicMessages, Provider: "fake", Model: "fake-model",
			StopReason: llm.StopStop, Timestamp: int64(i),
			Content: []llm.Content{llm.Text(fmt.Sprintf("## Answer %d\n\nFunction `f%d` returns **%d**.\n\n- it is pure\n- it is fast\n", i, i, i))}}
		if _, err := st.AppendMessage(a); err != nil {
			b.Fatal(err)
		}
	}
	if err := st.Close(); err != nil {
		b.Fatal(err)
	}
	return st.SessionFile()
}

// BenchmarkTUIFirstFrame is exec to the first full frame (the footer drawn) of `atomic` in a
// terminal (issue 11 target: 30 ms).
func BenchmarkTUIFirstFrame(b *testing.B) {
	bin := tuitest.Build(b)
	env := tuitest.NewEnv(b, &fakellm.Script{Turns: []fakellm.Turn{{Text: "x"}}})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		term := env.Start(b, bin, "--model", "fake/fake-model", "--no-session")
		term.WaitFor("fake-model")
		b.StopTimer()
		term.Press("ctrl+d")
		term.WaitExit()
		b.StartTimer()
	}
}

// BenchmarkTUIStream2000 is the UI process's CPU time for one answer streamed in 2,000 deltas
// (1 ms apart), from Enter to the last word on screen (issue 11 target: a tenth of pi's ≈300
// ms), on an empty session and with a 10,000-message session on screen.
func BenchmarkTUIStream2000(b *testing.B) {
	for _, long := range []bool{false, true} {
		name := "empty"
		if long {
			name = "10k-messages"
		}
		b.Run(name, func(b *testing.B) {
			bin := tuitest.Build(b)
			turns := make([]fakellm.Turn, 0, b.N)
			for i := 0; i < b.N; i++ {
				turns = append(turns, streamTurn(2000))
			}
			env := tuitest.NewEnv(b, &fakellm.Script{Turns: turns})
			if prof := os.Getenv("ATOMIC_TUI_CPUPROFILE"); prof != "" {
				env.Vars = append(env.Vars, "ATOMIC_TUI_CPUPROFILE="+prof+"."+name)
			}
			args := []string{"--model", "fake/fake-model"}
			if long {
				args = append(args, "--session", longSession(b, env.Work, filepath.Join(env.Agent, "sessions", "long"), 10000))
			}
			term := env.Start(b, bin, args...)
			term.WaitFor("fake-model")
			var cpu time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				before := cpuNS(b, term.Pid())
				term.Type(fmt.Sprintf("stream %d", i))
				term.Press("enter")
				term.WaitFor("END-OF-ANSWER")
				term.WaitGone("Working...")
				cpu += time.Duration(cpuNS(b, term.Pid()) - before)
				b.StopTimer()
				term.Press("ctrl+c") // clear nothing; keep the double-press window closed
				term.Type("x")
				term.Press("ctrl+u")
				b.StartTimer()
			}
			b.StopTimer()
			b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
			term.Press("ctrl+d")
			term.WaitExit()
		})
	}
}

// BenchmarkTUIIdleBytes is the bytes the UI writes to the terminal during 5 s of idleness after
// its first frame (issue 11 target: 0; pi#7769).
func BenchmarkTUIIdleBytes(b *testing.B) {
	bin := tuitest.Build(b)
	env := tuitest.NewEnv(b, &fakellm.Script{Turns: []fakellm.Turn{{Text: "x"}}})
	term := env.Start(b, bin, "--model", "fake/fake-model", "--no-session")
	term.WaitFor("fake-model")
	time.Sleep(500 * time.Millisecond) // let start-up replies (terminal queries) settle
	var idle, cpu int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		before, cpuBefore := term.Written(), cpuNS(b, term.Pid())
		time.Sleep(5 * time.Second)
		idle += term.Written() - before
		cpu += cpuNS(b, term.Pid()) - cpuBefore
	}
	b.StopTimer()
	b.ReportMetric(float64(idle)/float64(b.N), "bytes/5s")
	b.ReportMetric(float64(cpu)/1e6/float64(b.N), "cpu-ms/5s")
	term.Press("ctrl+d")
	term.WaitExit()
}

// BenchmarkTUIResume10k opens a 10,000-message session in the UI: time to the first frame and
// the resident memory then and after scrolling to the top and back (issue 11 target: < 100 MB).
func BenchmarkTUIResume10k(b *testing.B) {
	bin := tuitest.Build(b)
	env := tuitest.NewEnv(b, &fakellm.Script{Turns: []fakellm.Turn{{Text: "x"}}})
	path := longSession(b, env.Work, filepath.Join(env.Agent, "sessions", "long"), 10000)
	if prof := os.Getenv("ATOMIC_TUI_CPUPROFILE"); prof != "" {
		env.Vars = append(env.Vars, "ATOMIC_TUI_CPUPROFILE="+prof+".resume")
	}
	var rss, hwm int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		term := env.Start(b, bin, "--model", "fake/fake-model", "--session", path)
		term.WaitFor("Answer 4999")
		b.StopTimer()
		r, _ := rssKB(b, term.Pid())
		rss = max(rss, r)
		term.Press("ctrl+home")
		term.WaitFor("question 0:")
		term.Press("ctrl+end")
		term.WaitFor("Answer 4999")
		_, h := rssKB(b, term.Pid())
		hwm = max(hwm, h)
		term.Press("ctrl+d")
		term.WaitExit()
		b.StartTimer()
	}
	b.ReportMetric(float64(rss)/1024, "rss-MB")
	b.ReportMetric(float64(hwm)/1024, "peak-after-scroll-MB")
}

// BenchmarkPrintStream2000 is the same 2,000-delta answer in print mode (-p): the CPU the
// process spends without any UI (provider stream, agent, session file), the baseline to read
// BenchmarkTUIStream2000 against.
func BenchmarkPrintStream2000(b *testing.B) {
	bin := tuitest.Build(b)
	turns := make([]fakellm.Turn, 0, b.N)
	for i := 0; i < b.N; i++ {
		turns = append(turns, streamTurn(2000))
	}
	env := tuitest.NewEnv(b, &fakellm.Script{Turns: turns})
	var cpu time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(bin, "--model", "fake/fake-model", "--no-session", "-p", "stream")
		cmd.Dir = env.Work
		cmd.Env = append(os.Environ(), "HOME="+env.Home, "ATOMIC_CODING_AGENT_DIR="+env.Agent)
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "END-OF-ANSWER") {
			b.Fatalf("%v: %s", err, out)
		}
		cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
}

// BenchmarkTUISpinnerBytes is what the terminal receives while only the working indicator
// animates (a tool blocks): bytes per second and per spinner frame (issue 11: the spinner
// repaints only its own cell).
func BenchmarkTUISpinnerBytes(b *testing.B) {
	bin := tuitest.Build(b)
	env := tuitest.NewEnv(b, &fakellm.Script{Turns: []fakellm.Turn{
		{Text: "Waiting.", ToolCalls: []fakellm.ToolCall{fakellm.Call("bash", map[string]any{"command": "while [ ! -f go ]; do sleep 0.05; done"})}},
		{Text: "Released."},
	}})
	term := env.Start(b, bin, "--model", "fake/fake-model", "--no-session")
	term.WaitFor("fake-model")
	term.Type("start")
	term.Press("enter")
	term.WaitFor("Waiting.", "Working...")
	time.Sleep(300 * time.Millisecond) // let the tool row settle: only the spinner changes now
	term.Record()
	b.ResetTimer()
	time.Sleep(2 * time.Second)
	b.StopTimer()
	out := term.Recorded()
	// One spinner frame is one write of the glyph; count the glyphs written.
	frames := 0
	for _, g := range []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"} {
		frames += strings.Count(string(out), g)
	}
	if os.Getenv("ATOMIC_BENCH_DUMP") != "" {
		b.Logf("%q", out[:min(len(out), 400)])
	}
	b.ReportMetric(float64(len(out))/2, "bytes/s")
	if frames > 0 {
		b.ReportMetric(float64(len(out))/float64(frames), "bytes/frame")
	}
	b.ReportMetric(float64(frames)/2, "frames/s")
	if err := os.WriteFile(filepath.Join(env.Work, "go"), nil, 0o644); err != nil {
		b.Fatal(err)
	}
	term.WaitFor("Released.")
	term.Press("ctrl+d")
	term.WaitExit()
}
