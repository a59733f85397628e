package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/atomic-cli/atomic/ext"
)

// ErrLoginCancelled is returned by LoginProvider when the user cancelled the login (a dialog
// dismissed, or the login's own "cancelled" error).
var ErrLoginCancelled = errors.New("login cancelled")

// LoginProvider runs the login of a provider an extension registered with one (registerProvider's
// oauth or auth.apiKey; rpc-and-json.md login_provider): authType "oauth" or "api_key", "" for the
// provider's own choice (OAuth when it has it). The credential the login returns is stored in
// auth.json and authenticates the provider from then on. It returns the credential's type. A
// provider without such a login fails with an error wrapping ext.ErrNotAvailable.
func (s *Session) LoginProvider(ctx context.Context, provider, authType string) (string, error) {
	if err := s.live("loginProvider"); err != nil {
		return "", err
	}
	login := s.runner.ProviderLogin(provider)
	if login == nil {
		return "", fmt.Errorf("provider login of %q (login_provider; only providers an extension registered with oauth or auth.apiKey have one; put API keys in auth.json or the environment) is %w in atomic", provider, ext.ErrNotAvailable)
	}
	if s.reg == nil || s.reg.Auth() == nil {
		return "", fmt.Errorf("login %s: no credential store", provider)
	}
	cred, err := login(ext.WithDispatchContext(ctx, s.newContext(ctx)), authType)
	if err != nil {
		if ctx.Err() != nil || strings.Contains(strings.ToLower(err.Error()), "cancel") {
			return "", fmt.Errorf("login %s: %w", provider, ErrLoginCancelled)
		}
		return "", fmt.Errorf("login %s: %w", provider, err)
	}
	if err := s.reg.Auth().SetCredential(provider, cred); err != nil {
		return "", fmt.Errorf("login %s: %w", provider, err)
	}
	var c struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal(cred, &c)
	return c.Type, nil
}
