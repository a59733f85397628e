package pi

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/atomic-cli/atomic/model"
)

// atomic's auth.json lock is pi's: while pi (proper-lockfile, as pi's auth storage calls it)
// holds auth.json, atomic's writes wait and then fail without touching the file; once pi
// releases it they go through, and atomic leaves no lock that proper-lockfile would see.
func TestAuthLockSharedWithPi(t *testing.T) {
	piCLI(t)
	lib, _ := filepath.Abs("node_modules/proper-lockfile")
	if _, err := os.Stat(lib); err != nil {
		t.Skip("proper-lockfile is not installed with pi")
	}
	old := model.AuthLockWait
	model.AuthLockWait = 50 * time.Millisecond
	t.Cleanup(func() { model.AuthLockWait = old })

	path := filepath.Join(t.TempDir(), "auth.json")
	if err := os.WriteFile(path, []byte(`{"anthropic":{"type":"api_key","key":"k1"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	// pi's side: lock as its auth storage does, report it, release when stdin closes.
	script := `const lockfile = require(process.argv[1]);
const release = lockfile.lockSync(process.argv[2], { realpath: false });
console.log("locked");
process.stdin.on("data", () => {});
process.stdin.on("end", () => { release(); console.log("released " + lockfile.checkSync(process.argv[2], { realpath: false })); });`
	cmd := exec.Command("node", "-e", script, lib, path)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := bufio.NewScanner(stdout)
	if !lines.Scan() || lines.Text() != "locked" {
		t.Fatalf("pi's lock: %q", lines.Text())
	}

	s, _ := model.OpenAuth(path)
	if err := s.SetAPIKey("anthropic", "k2"); !errors.Is(err, model.ErrAuthLocked) {
		t.Fatalf("atomic wrote while pi held the lock: %v", err)
	}
	if data, _ := os.ReadFile(path); !strings.Contains(string(data), `"k1"`) {
		t.Fatalf("auth.json changed under pi's lock: %s", data)
	}
	stdin.Close()
	if !lines.Scan() || lines.Text() != "released false" {
		t.Fatalf("pi's release: %q", lines.Text())
	}
	if err := s.SetAPIKey("anthropic", "k2"); err != nil {
		t.Fatalf("write after pi released its lock: %v", err)
	}
	check := exec.Command("node", "-e", `console.log(require(process.argv[1]).checkSync(process.argv[2], { realpath: false }))`, lib, path)
	if out, err := check.Output(); err != nil || strings.TrimSpace(string(out)) != "false" {
		t.Fatalf("proper-lockfile sees a lock after atomic's write: %q %v", out, err)
	}
}

// While atomic refreshes an OAuth token, pi (proper-lockfile) sees auth.json locked.
func TestAuthRefreshLockSeenByPi(t *testing.T) {
	piCLI(t)
	lib, _ := filepath.Abs("node_modules/proper-lockfile")
	if _, err := os.Stat(lib); err != nil {
		t.Skip("proper-lockfile is not installed with pi")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, model.AuthFile)
	if err := os.WriteFile(path, []byte(`{"corp":{"type":"oauth","access":"old","refresh":"r","expires":1}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	piSees := func() string {
		out, err := exec.Command("node", "-e", `console.log(require(process.argv[1]).checkSync(process.argv[2], { realpath: false }))`, lib, path).Output()
		if err != nil {
			t.Fatalf("proper-lockfile check: %v", err)
		}
		return strings.TrimSpace(string(out))
	}
	reg, _ := model.Load(dir)
	var during string
	err := reg.AddProvider("corp", model.ProviderConfig{
		BaseURL: "http://127.0.0.1:9/v1", API: "openai-completions", OAuth: &model.ProviderLogin{},
		Models: []model.ModelConfig{{ID: "corp-1"}},
		Refresh: func(ctx context.Context, cred json.RawMessage) (json.RawMessage, error) {
			during = piSees()
			return json.RawMessage(`{"type":"oauth","access":"new","refresh":"r2","expires":` + strconv.FormatInt(time.Now().Add(time.Hour).UnixMilli(), 10) + `}`), nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if key, err := reg.APIKey("corp"); err != nil || key != "new" {
		t.Fatalf("refresh: %q %v", key, err)
	}
	if during != "true" {
		t.Fatalf("pi saw auth.json locked=%s during atomic's refresh, want true", during)
	}
	if after := piSees(); after != "false" {
		t.Fatalf("pi sees auth.json locked=%s after the refresh", after)
	}
}
