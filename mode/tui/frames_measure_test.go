package tui_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/atomic-cli/atomic/internal/fakellm"
	"github.com/atomic-cli/atomic/mode/tui/tuitest"
)

// streamWidgetExtension re-renders a factory widget on every streamed delta.
const streamWidgetExtension = `import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { Text } from "@mariozechner/pi-tui";

export default function (pi: ExtensionAPI) {
	let deltas = 0;
	let text: any;
	let tui: any;
	pi.on("session_start", (_e, ctx) => {
		ctx.ui.setWidget("deltas", (t) => {
			tui = t;
			text = new Text("DELTAS 0", 0, 0);
			return text;
		});
	});
	pi.on("message_update", () => {
		deltas++;
		text?.setText("DELTAS " + deltas);
		tui?.requestRender();
	});
}
`

// TestMeasureFramesWithComponent measures the frames per second the terminal receives while
// 2,000 deltas stream and a factory widget re-renders on each of them (ATOMIC_MEASURE_FRAMES=1;
// a measurement, not a CI test). Frames are counted by the cursor-home/erase sequences the
// renderer starts each one with; CPU is the process's user+sys from /proc.
func TestMeasureFramesWithComponent(t *testing.T) {
	if os.Getenv("ATOMIC_MEASURE_FRAMES") == "" {
		t.Skip("a measurement: set ATOMIC_MEASURE_FRAMES=1")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("needs node")
	}
	n := 2000
	if v, err := strconv.Atoi(os.Getenv("ATOMIC_MEASURE_DELTAS")); err == nil && v > 0 {
		n = v
	}
	bin := tuitest.Build(t)
	env := tuitest.NewEnv(t, script(fakellm.Turn{Text: strings.Repeat("word ", n), Chunks: n, DelayMS: 1}))
	p := filepath.Join(env.Work, "stream.ts")
	env.WriteFile(t, p, streamWidgetExtension)
	// ATOMIC_MEASURE_BASELINE=1: the same stream without the extension, for comparison.
	baseline := os.Getenv("ATOMIC_MEASURE_BASELINE") != ""
	args := []string{"--model", "fake/fake-model", "-e", p}
	if baseline {
		args = args[:2]
	}
	term := env.Start(t, bin, args...)
	term.WaitFor("fake-model")
	if !baseline {
		term.WaitFor("DELTAS 0")
	}
	cpu0 := cpuTicks(t, term.Pid())
	term.Record()
	start := time.Now()
	term.Type("go")
	term.Press("enter")
	// message_update also fires at the message's start and end: at least n updates.
	term.WaitScreen("DELTAS ≥ n", func(screen string) bool {
		if baseline {
			return strings.Count(screen, "word") > 0 && !strings.Contains(screen, "Working")
		}
		i := strings.Index(screen, "DELTAS ")
		if i < 0 {
			return false
		}
		f := strings.Fields(screen[i+len("DELTAS "):])
		v, err := strconv.Atoi(f[0])
		return err == nil && v >= n
	})
	elapsed := time.Since(start)
	cpu := cpuTicks(t, term.Pid()) - cpu0
	raw := term.Recorded()
	frames := bytes.Count(raw, []byte("\x1b[?2026h"))
	how := "synchronized-output frames"
	if frames == 0 {
		frames = bytes.Count(raw, []byte("\x1b[?25l"))
		how = "cursor-hide frames"
	}
	t.Logf("%d deltas in %v: %d %s (%.1f frames/s), %d bytes written, CPU user+sys %.2fs",
		n, elapsed.Round(time.Millisecond), frames, how, float64(frames)/elapsed.Seconds(), len(raw), float64(cpu)/100)
	quit(t, term)
}

// cpuTicks is utime+stime of pid in clock ticks (100 per second).
func cpuTicks(t *testing.T, pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:]))
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return u + s
}
