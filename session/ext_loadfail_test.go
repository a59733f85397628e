package session_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/session"
	"github.com/atomic-cli/atomic/store"
)

// TestNewRuntimeExtensionLoadFailure: when extensions fail to load (an error, a panic),
// NewRuntime returns an ExtensionLoadError naming each one, and the extensions that did load
// never see session_start (issue 9 item 8).
func TestNewRuntimeExtensionLoadFailure(t *testing.T) {
	dir := t.TempDir()
	started := false
	good := func(api ext.API) error {
		ext.On(api, func(ext.Context, *ext.SessionStart) (ext.None, error) {
			started = true
			return nil, nil
		})
		return nil
	}
	failing := func(ext.API) error { return errors.New("no config") }
	panicking := func(ext.API) error { panic("bad factory") }
	var reported []string
	_, err := session.NewRuntime(context.Background(), session.Options{
		Store: store.InMemory(dir), Model: xtModel(), Provider: xtProvider(), Cwd: dir,
		Extensions:     []ext.Factory{good, failing, panicking},
		ExtensionPaths: []string{"go:good", "go:failing", "go:panicking"},
		OnExtensionError: func(e *ext.Error) {
			reported = append(reported, e.ExtensionPath+" "+e.Event)
		},
	})
	var le *session.ExtensionLoadError
	if !errors.As(err, &le) || len(le.Errs) != 2 {
		t.Fatalf("err %v; want an ExtensionLoadError of 2", err)
	}
	want := "extension go:failing failed to load: no config\nextension go:panicking failed to load: panic: bad factory"
	if err.Error() != want {
		t.Fatalf("error %q; want %q", err, want)
	}
	if started {
		t.Fatal("session_start reached a loaded extension")
	}
	if strings.Join(reported, ",") != "go:failing load,go:panicking load" {
		t.Fatalf("reported %v", reported)
	}
}
