//go:build unix

package tool

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func TestBashResults(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a.txt": "", "b.txt": ""})
	bash := NewBash(dir, BashOptions{TempDir: t.TempDir()})
	tests := []struct {
		name    string
		command string
		want    string
		isError bool
	}{
		{"stdout kept verbatim", "ls", "a.txt\nb.txt\n", false},
		{"no output", "true", "(no output)", false},
		{"stderr merged in order", "echo out; echo err >&2; echo out2", "out\nerr\nout2\n", false},
		{"non-zero exit", "echo partial; exit 3", "partial\n\n\nCommand exited with code 3", true},
		{"non-zero exit without output", "exit 1", "(no output)\n\nCommand exited with code 1", true},
		{"runs in cwd", "pwd", dir + "\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mustRun(t, bash, map[string]any{"command": tt.command})
			if got := text(r); got != tt.want || r.IsError != tt.isError {
				t.Errorf("got %q (isError %v), want %q (isError %v)", got, r.IsError, tt.want, tt.isError)
			}
			if r.Details != nil {
				t.Errorf("details = %#v, want nil", r.Details)
			}
		})
	}
}

// processGone reports whether pid has exited (a zombie counts as gone).
func processGone(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return true
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return len(fields) > 0 && fields[0] == "Z"
}

func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for !processGone(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("process %d survived", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestBashTimeoutKillsProcessGroup(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	bash := NewBash(dir, BashOptions{})
	start := time.Now()
	_, err := run(t, bash, map[string]any{
		"command": "sleep 30 & echo $! > " + pidFile + "; echo started; sleep 30",
		"timeout": 0.5,
	})
	if err == nil || err.Error() != "started\n\n\nCommand timed out after 0.5 seconds" {
		t.Fatalf("err = %q", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
	pid, perr := strconv.Atoi(strings.TrimSpace(readFile(t, pidFile)))
	if perr != nil {
		t.Fatal(perr)
	}
	waitGone(t, pid)
}

func TestBashAbortKillsProcessGroup(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	bash := NewBash(dir, BashOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for {
			if _, err := os.Stat(pidFile); err == nil {
				time.Sleep(50 * time.Millisecond)
				cancel()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	_, err := bash.Execute(ctx, Call{Args: map[string]any{"command": "sleep 30 & echo $! > " + pidFile + "; wait"}}, func(Result) {})
	if err == nil || err.Error() != "Command aborted" {
		t.Fatalf("err = %q", err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(readFile(t, pidFile)))
	waitGone(t, pid)

	if _, err := bash.Execute(ctx, Call{Args: map[string]any{"command": "echo hi"}}, nil); !errors.Is(err, ErrAborted) {
		t.Errorf("pre-aborted: %v", err)
	}
}

func TestBashBackgroundProcessDoesNotHold(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	start := time.Now()
	r := mustRun(t, NewBash(dir, BashOptions{}), map[string]any{"command": "sleep 30 & echo $! > " + pidFile + "; echo done"})
	if text(r) != "done\n" || time.Since(start) > 5*time.Second {
		t.Errorf("got %q after %v", text(r), time.Since(start))
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(readFile(t, pidFile)))
	syscall.Kill(pid, syscall.SIGKILL)
}

var fullOutputRE = regexp.MustCompile(`Full output: (\S+atomic-bash-[0-9a-f]{16}\.log)\]`)

func TestBashSpillsLongOutput(t *testing.T) {
	tmp := t.TempDir()
	bash := NewBash(t.TempDir(), BashOptions{TempDir: tmp})
	tests := []struct {
		name    string
		command string
		notice  string
		by      TruncatedBy
		total   int
	}{
		{"lines", "seq 1 3000", "[Showing lines 1002-3001 of 3001. Full output: ", TruncatedByLines, 3001},
		{"bytes", "for i in $(seq 1 1000); do printf '%0199d\\n' $i; done", "[Showing lines 745-1001 of 1001 (50.0KB limit). Full output: ", TruncatedByBytes, 1001},
		{"partial last line", "head -c 120000 /dev/zero | tr '\\0' x", "[Showing last 50.0KB of line 1 (line is 117.2KB). Full output: ", TruncatedByBytes, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mustRun(t, bash, map[string]any{"command": tt.command})
			got := text(r)
			if !strings.Contains(got, "\n\n"+tt.notice) {
				t.Fatalf("notice missing: %s", clip(got))
			}
			m := fullOutputRE.FindStringSubmatch(got)
			if m == nil || filepath.Dir(m[1]) != tmp {
				t.Fatalf("no spill path in %s", clip(got))
			}
			d, ok := r.Details.(BashDetails)
			if !ok || d.FullOutputPath != m[1] || d.Truncation == nil || d.Truncation.TruncatedBy != tt.by || d.Truncation.TotalLines != tt.total {
				t.Fatalf("details = %+v", r.Details)
			}
			full := shellOutput(t, tt.command)
			if spilled := readFile(t, m[1]); spilled != full {
				t.Errorf("spill file has %d bytes, want %d", len(spilled), len(full))
			}
			if !strings.HasSuffix(full, d.Truncation.Content) {
				t.Errorf("kept content is not the tail of the output")
			}
		})
	}
}

// shellOutput runs command with bash and returns its stdout.
func shellOutput(t *testing.T, command string) string {
	t.Helper()
	var out strings.Builder
	_, err := LocalShell{}.Exec(context.Background(), command, t.TempDir(), ExecOptions{OnData: func(p []byte) { out.Write(p) }})
	if err != nil {
		t.Fatal(err)
	}
	return out.String()
}

func TestBashStreamsUpdates(t *testing.T) {
	var mu sync.Mutex
	var updates []string
	r, err := NewBash(t.TempDir(), BashOptions{}).Execute(context.Background(),
		Call{Args: map[string]any{"command": "echo one; sleep 0.3; echo two; sleep 0.3"}},
		func(u Result) {
			mu.Lock()
			updates = append(updates, text(u))
			mu.Unlock()
		})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(updates) < 2 || updates[0] != "one\n" || updates[len(updates)-1] != "one\ntwo\n" {
		t.Errorf("updates = %q", updates)
	}
	if text(r) != "one\ntwo\n" {
		t.Errorf("result %q", text(r))
	}
}

func TestBashSpawnSettings(t *testing.T) {
	dir, other := t.TempDir(), t.TempDir()
	bash := NewBash(dir, BashOptions{
		CommandPrefix: "PREFIXED=yes",
		SpawnHook: func(sc SpawnContext) SpawnContext {
			sc.Cwd = other
			sc.Env = append(sc.Env, "HOOKED=1")
			return sc
		},
	})
	r := mustRun(t, bash, map[string]any{"command": "echo $PREFIXED $HOOKED; pwd"})
	if want := "yes 1\n" + other + "\n"; text(r) != want {
		t.Errorf("got %q, want %q", text(r), want)
	}

	_, err := run(t, NewBash(filepath.Join(dir, "gone"), BashOptions{}), map[string]any{"command": "true"})
	if err == nil || !strings.HasPrefix(err.Error(), "Working directory does not exist: ") {
		t.Errorf("missing cwd: %v", err)
	}
	_, err = run(t, NewBash(dir, BashOptions{Operations: LocalShell{ShellPath: "/no/such/shell"}}), map[string]any{"command": "true"})
	if err == nil || err.Error() != "Custom shell path not found: /no/such/shell" {
		t.Errorf("missing shell: %v", err)
	}
}
