package command

import (
	"context"
	"errors"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/atomic-cli/atomic/mode/tui/slot"
	"github.com/atomic-cli/atomic/model"
	"github.com/atomic-cli/atomic/session"
)

func init() {
	add(
		Command{Name: "login", ArgumentHint: "[provider]", Description: "Log in to a provider (OAuth where an extension provides it, otherwise an API key)", Run: runLogin, Complete: completeProviders},
		Command{Name: "logout", Description: "Remove a provider's stored credentials", Run: runLogout},
	)
}

// authOf is the session's credential store (auth.json) and the model registry, nil when the
// session has none.
func authOf(h Host) (*model.Registry, *model.AuthStore) {
	reg := h.Runtime().Session().Registry()
	if reg == nil || reg.Auth() == nil {
		return reg, nil
	}
	return reg, reg.Auth()
}

// completeProviders completes /login's argument with the known provider names.
func completeProviders(h Host, prefix string) []Completion {
	reg, _ := authOf(h)
	if reg == nil {
		return nil
	}
	var out []Completion
	for _, p := range reg.Providers() {
		if strings.HasPrefix(p, prefix) {
			out = append(out, Completion{Value: p, Label: p})
		}
	}
	return out
}

// runLogin is /login [provider]: without a provider a selector of the known providers (those
// with stored credentials marked ✓); a provider an extension registered with a login runs that
// login (OAuth: its URL, instructions and prompts come through the extension's dialogs); any
// other provider gets an API key typed into a masked prompt and saved in auth.json.
func runLogin(h Host, args string) tea.Cmd {
	reg, auth := authOf(h)
	if auth == nil {
		h.Notify("error", "Login: this session has no credential store (auth.json).")
		return nil
	}
	if args != "" {
		return loginTo(h, args)
	}
	providers := reg.Providers()
	if len(providers) == 0 {
		h.Notify("warning", "No providers known: add one in models.json or through an extension.")
		return nil
	}
	runner := h.Runtime().Session().Runner()
	labels := make([]string, len(providers))
	for i, p := range providers {
		kind := "API key"
		if runner.ProviderLogin(p) != nil {
			kind = "OAuth"
		}
		labels[i] = p + " (" + kind + ")"
		if _, ok := auth.Get(p); ok {
			labels[i] += " ✓"
		}
	}
	h.ShowDialog(slot.NewSelect(slotTheme(h), slotKeys(h), "Select provider to log in to:", labels, 0, func(i int, ok bool) tea.Cmd {
		if !ok {
			return nil
		}
		p := providers[i]
		return func() tea.Msg { return later(func(h Host) tea.Cmd { return loginTo(h, p) }) }
	}))
	return nil
}

// loginTo logs in to provider: the extension's login when it has one, else an API key prompt.
func loginTo(h Host, provider string) tea.Cmd {
	s := h.Runtime().Session()
	_, auth := authOf(h)
	if s.Runner().ProviderLogin(provider) != nil {
		h.Notify("info", "Logging in to "+provider+"…")
		return func() tea.Msg {
			ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
			defer cancel()
			kind, err := s.LoginProvider(ctx, provider, "")
			switch {
			case errors.Is(err, session.ErrLoginCancelled):
				return notify("info", "Login to "+provider+" cancelled")
			case err != nil:
				return notify("error", "Login failed: "+err.Error())
			}
			if kind == "" {
				kind = "credentials"
			}
			return notify("info", "Logged in to "+provider+" ("+kind+"). Credentials saved to "+auth.Path())
		}
	}
	p := slot.NewPrompt(slotTheme(h), slotKeys(h), "API key for "+provider+":", "paste or type the key", 0, func(key string, ok bool) tea.Cmd {
		key = strings.TrimSpace(key)
		if !ok {
			return nil
		}
		if key == "" {
			return func() tea.Msg { return notify("warning", "No API key entered; nothing saved for "+provider) }
		}
		return func() tea.Msg {
			if err := auth.SetAPIKey(provider, key); err != nil {
				return notify("error", "Failed to save the API key: "+err.Error())
			}
			return notify("info", "Saved API key for "+provider+" to "+auth.Path())
		}
	})
	p.SetMasked(true)
	h.ShowDialog(p)
	return nil
}

// runLogout is /logout: a selector of the providers with credentials in auth.json; the chosen
// one's entry is removed.
func runLogout(h Host, _ string) tea.Cmd {
	_, auth := authOf(h)
	if auth == nil {
		h.Notify("error", "Logout: this session has no credential store (auth.json).")
		return nil
	}
	providers := auth.Providers()
	if len(providers) == 0 {
		h.Notify("info", "No stored credentials to remove. Use /login first.")
		return nil
	}
	h.ShowDialog(slot.NewSelect(slotTheme(h), slotKeys(h), "Select provider to log out of:", providers, 0, func(i int, ok bool) tea.Cmd {
		if !ok {
			return nil
		}
		p := providers[i]
		return func() tea.Msg {
			if err := auth.Remove(p); err != nil {
				return notify("error", "Logout failed: "+err.Error())
			}
			return notify("info", "Logged out of "+p)
		}
	}))
	return nil
}
