package cli

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/atomic-cli/atomic/internal/fakellm"
	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/store"
)

// TestOneWriterPerSessionFile (issue 10 item 1): two `atomic --session same.jsonl` processes
// started at the same moment, on a file that does not exist yet and on one that does. The model
// holds every request until one of the processes has exited or both have reached it (the
// delayed first write keeps both processes alive at once). Across the trials: the file is never
// corrupt or forked, no process exits 0 without its prompt and answer in the file, and a process
// that is refused names the other one's pid and never reached the model.
func TestOneWriterPerSessionFile(t *testing.T) {
	trials := 5
	if testing.Short() {
		trials = 2
	}
	for _, existing := range []bool{false, true} {
		name := "create"
		if existing {
			name = "continue"
		}
		t.Run(name, func(t *testing.T) {
			for trial := range trials {
				oneWriterTrial(t, existing, trial)
			}
		})
	}
}

// lockRun is one atomic process of a trial.
type lockRun struct {
	prompt         string
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	code           int
}

func oneWriterTrial(t *testing.T, existing bool, trial int) {
	tmp := t.TempDir()
	proj, agent := filepath.Join(tmp, "proj"), filepath.Join(tmp, "agent")
	for _, d := range []string{proj, agent} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(tmp, "sessions", "same.jsonl")
	before := 0
	if existing {
		st, err := store.Create(proj, filepath.Dir(file), store.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.AppendMessage(llm.UserText("earlier prompt", nil, 1)); err != nil {
			t.Fatal(err)
		}
		if _, err := st.AppendMessage(llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text("earlier answer")},
			API: llm.APIAnthropicMessages, Provider: "fake", Model: "fake-model", StopReason: llm.StopStop, Timestamp: 2}); err != nil {
			t.Fatal(err)
		}
		st.Close()
		if err := os.Rename(st.SessionFile(), file); err != nil {
			t.Fatal(err)
		}
		before = 2
	}

	h := fakellm.NewHandler(fakellm.Script{Turns: []fakellm.Turn{{Text: "answer one"}, {Text: "answer two"}}})
	arrived := make(chan struct{}, 2)
	gate := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		select {
		case <-gate:
		case <-r.Context().Done():
			return
		}
		h.ServeHTTP(w, r)
	}))
	defer srv.Close()
	if err := os.WriteFile(filepath.Join(agent, "models.json"), modelsJSON("fake", llm.APIAnthropicMessages, srv.URL), 0o644); err != nil {
		t.Fatal(err)
	}

	runs := []*lockRun{{prompt: fmt.Sprintf("prompt-A-%d", trial)}, {prompt: fmt.Sprintf("prompt-B-%d", trial)}}
	exited := make(chan *lockRun, len(runs))
	for _, r := range runs {
		r.cmd = exec.Command("atomic", "--session", file, "-p", r.prompt)
		r.cmd.Dir = proj
		r.cmd.Env = append(os.Environ(), "ATOMIC_CODING_AGENT_DIR="+agent, "HOME="+tmp)
		r.cmd.Stdout, r.cmd.Stderr = &r.stdout, &r.stderr
	}
	for _, r := range runs {
		if err := r.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = r.cmd.Process.Kill() })
		go func() {
			err := r.cmd.Wait()
			r.code = r.cmd.ProcessState.ExitCode()
			if err != nil && r.code == 0 {
				r.code = -1
			}
			exited <- r
		}()
	}

	// Hold the model until a process is done or both are waiting for it; the bound only keeps a
	// broken build from hanging the test.
	bound := time.After(2 * time.Minute)
	requests, done := 0, 0
	for done == 0 && requests < 2 {
		select {
		case <-arrived:
			requests++
		case <-exited:
			done++
		case <-bound:
			t.Fatalf("trial %d: neither process finished nor reached the model", trial)
		}
	}
	close(gate)
	for ; done < len(runs); done++ {
		select {
		case <-exited:
		case <-bound:
			t.Fatalf("trial %d: a process did not finish", trial)
		}
	}

	// The file: one valid chain, holding every successful process's prompt and answer.
	st, err := checkSession(file, false)
	if err != nil {
		t.Fatalf("trial %d: corrupt or forked session file: %v\nA: %s\nB: %s", trial, err, runs[0].stderr.String(), runs[1].stderr.String())
	}
	var texts []string
	for _, e := range st.Entries() {
		if e.Type == store.TypeMessage {
			texts = append(texts, e.Role()+":"+llm.TextOf(e.Message.Content, ""))
		}
	}
	all := strings.Join(texts, "\n")
	succeeded := 0
	for i, r := range runs {
		other := runs[1-i]
		switch r.code {
		case 0:
			succeeded++
			if !strings.Contains(all, "user:"+r.prompt+"\nassistant:answer ") {
				t.Errorf("trial %d: %s exited 0 but its prompt and answer are not in the file:\n%s", trial, r.prompt, all)
			}
		default:
			want := "in use by another atomic process (pid " + strconv.Itoa(other.cmd.Process.Pid) + ")"
			if !strings.Contains(r.stderr.String(), want) {
				t.Errorf("trial %d: %s exited %d; stderr %q does not say %q", trial, r.prompt, r.code, r.stderr.String(), want)
			}
			if strings.Contains(all, r.prompt) {
				t.Errorf("trial %d: the refused prompt %s is in the file", trial, r.prompt)
			}
		}
	}
	if succeeded != 1 {
		t.Errorf("trial %d: %d processes succeeded; the one writer must exclude the other while it runs", trial, succeeded)
	}
	if n := len(h.Requests()); n != succeeded {
		t.Errorf("trial %d: the model got %d requests for %d successful processes: a refused process reached it", trial, n, succeeded)
	}
	if got := len(texts); got != before+2*succeeded {
		t.Errorf("trial %d: %d messages in the file, want %d", trial, got, before+2*succeeded)
	}
	if _, err := os.Stat(file + ".lock"); !os.IsNotExist(err) {
		t.Errorf("trial %d: the lock file outlives the processes: %v", trial, err)
	}
}
