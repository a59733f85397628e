package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// Credential types of auth.json (config-and-resources.md §8).
const (
	CredentialAPIKey = "api_key"
	CredentialOAuth  = "oauth"
)

// Credential is one provider's entry of auth.json (config-and-resources.md §8):
//
//	{"type":"api_key","key":"<value, $VAR or !command>","env":{...}}
//	{"type":"oauth","access":"…","refresh":"…","expires":<epoch ms>, ...provider-specific}
//
// Key is a config value resolved by ResolveValue with Env consulted before the process
// environment. Provider-specific OAuth fields are kept in the file but not decoded.
type Credential struct {
	Type    string            `json:"type"`
	Key     string            `json:"key,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Access  string            `json:"access,omitempty"`
	Refresh string            `json:"refresh,omitempty"`
	Expires int64             `json:"expires,omitempty"` // Unix milliseconds
}

// AuthStore is the auth.json file of an agent directory: a JSON object keyed by provider id. It
// keeps the last read content in memory; every write takes the file's cross-process lock (pi's
// proper-lockfile lock, authlock.go), re-reads the file so entries written by another process in
// between survive, then replaces the file atomically (temporary file in the same directory +
// rename) with mode 0600. A write waits at most AuthLockWait for another process's lock.
//
// OAuth tokens are used as stored while unexpired; an expired one is refreshed by the Registry
// when its provider has a refresh (Registry.APIKey), else reported and the next credential source
// is tried.
//
// An AuthStore is safe for concurrent use.
type AuthStore struct {
	path  string
	mu    sync.Mutex            // guards creds and serialises writes
	creds map[string]Credential // last read or written content
}

// OpenAuth reads the auth.json at path. A missing file is an empty store. A malformed file gives an
// empty store and an error naming the file, line and column; writes to such a store fail until the
// file is fixed, so it is never overwritten. An entry that is not an object of the Credential shape
// is skipped with an error naming the provider.
func OpenAuth(path string) (*AuthStore, []error) {
	s := &AuthStore{path: path}
	raw, err := readAuthFile(path)
	if err != nil {
		return s, []error{err}
	}
	s.creds, err = decodeCredentials(path, raw)
	if err != nil {
		return s, []error{err}
	}
	return s, nil
}

// Path returns the file the store reads and writes.
func (s *AuthStore) Path() string { return s.path }

// Get returns provider's credential and whether there is one.
func (s *AuthStore) Get(provider string) (Credential, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.creds[provider]
	return c, ok
}

// Providers returns the provider ids that have a credential, sorted.
func (s *AuthStore) Providers() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Sorted(maps.Keys(s.creds))
}

// SetAPIKey stores {"type":"api_key","key":key} for provider, replacing any credential it had.
// key is stored as given (a literal, "$VAR" template or "!command"). It creates the agent directory
// (mode 0700) and the file (mode 0600) when needed. Errors name the file.
func (s *AuthStore) SetAPIKey(provider, key string) error {
	if provider == "" {
		return errors.New("model: set API key: empty provider id")
	}
	c := Credential{Type: CredentialAPIKey, Key: key}
	b, err := json.Marshal(c)
	if err != nil {
		return fmt.Errorf("model: set API key for %s: %w", provider, err)
	}
	return s.update(func(raw map[string]json.RawMessage) bool { raw[provider] = b; return true })
}

// SetCredential stores credential (a JSON object with a "type" of api_key or oauth, as a login
// returned it) for provider, replacing any credential it had. Errors name the file.
func (s *AuthStore) SetCredential(provider string, credential json.RawMessage) error {
	return s.setCredential(provider, credential, true)
}

// setCredential is SetCredential; lock false means the caller holds the file lock (s.lock).
func (s *AuthStore) setCredential(provider string, credential json.RawMessage, lock bool) error {
	if provider == "" {
		return errors.New("model: set credential: empty provider id")
	}
	var c Credential
	if err := json.Unmarshal(credential, &c); err != nil || (c.Type != CredentialAPIKey && c.Type != CredentialOAuth) {
		return fmt.Errorf("model: set credential for %s: not an api_key or oauth credential object", provider)
	}
	edit := func(raw map[string]json.RawMessage) bool { raw[provider] = credential; return true }
	if !lock {
		return s.updateHeld(edit)
	}
	return s.update(edit)
}

// lock takes auth.json's cross-process lock (authlock.go), waiting at most AuthLockWait, and
// returns its release. The lock is not reentrant: while it is held, write with updateHeld.
func (s *AuthStore) lock() (unlock func(), err error) {
	return lockFile(s.path, AuthLockWait)
}

// Reread reads the file again (keeping what it holds in memory) and returns provider's credential
// as decoded and as its raw JSON object, provider-specific fields included; ok is false when the
// file has none. Errors name the file.
func (s *AuthStore) Reread(provider string) (c Credential, raw json.RawMessage, ok bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	all, err := readAuthFile(s.path)
	if err != nil {
		return Credential{}, nil, false, err
	}
	creds, _ := decodeCredentials(s.path, all) // bad entries stay reported by OpenAuth
	s.creds = creds
	c, ok = creds[provider]
	return c, all[provider], ok, nil
}

// Remove deletes provider's credential from the file. Removing an absent provider is not an error
// and does not touch the file.
func (s *AuthStore) Remove(provider string) error {
	return s.update(func(raw map[string]json.RawMessage) bool {
		_, ok := raw[provider]
		delete(raw, provider)
		return ok
	})
}

// update applies edit to the current file content and, when edit reports a change, writes the
// result atomically, under the file lock.
func (s *AuthStore) update(edit func(map[string]json.RawMessage) (changed bool)) error {
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return fmt.Errorf("model: write %s: %w", s.path, err)
	}
	unlock, err := s.lock()
	if err != nil {
		return err
	}
	defer unlock()
	return s.updateHeld(edit)
}

// updateHeld is update for a caller that holds the file lock.
func (s *AuthStore) updateHeld(edit func(map[string]json.RawMessage) (changed bool)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	raw, err := readAuthFile(s.path)
	if err != nil {
		return fmt.Errorf("%w; not overwriting it", err)
	}
	if raw == nil {
		raw = make(map[string]json.RawMessage)
	}
	if !edit(raw) {
		return nil
	}
	data, err := json.MarshalIndent(raw, "", "  ")
	if err != nil {
		return fmt.Errorf("model: write %s: %w", s.path, err)
	}
	data = append(data, '\n')
	if err := writeFileAtomic(s.path, data, 0o600); err != nil {
		return err
	}
	creds, err := decodeCredentials(s.path, raw)
	if err != nil {
		return err
	}
	s.creds = creds
	return nil
}

// readAuthFile returns the top-level object of path, nil when the file is missing or blank.
func readAuthFile(path string) (map[string]json.RawMessage, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("model: read %s: %w", path, err)
	}
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, jsonFileError(path, data, err, "no stored credentials used")
	}
	return raw, nil
}

// decodeCredentials decodes each entry of raw; bad entries are reported and skipped.
func decodeCredentials(path string, raw map[string]json.RawMessage) (map[string]Credential, error) {
	creds := make(map[string]Credential, len(raw))
	var bad []error
	for _, p := range slices.Sorted(maps.Keys(raw)) {
		b := raw[p]
		var c Credential
		if err := json.Unmarshal(b, &c); err != nil {
			bad = append(bad, fmt.Errorf("model: %s: provider %q: not a credential object: %v; ignored", path, p, err))
			continue
		}
		creds[p] = c
	}
	return creds, errors.Join(bad...)
}

// writeFileAtomic replaces path by data: it writes a temporary file in the same directory with
// mode perm, syncs it and renames it over path, so readers see the old or the new file, never a
// partial one.
func writeFileAtomic(path string, data []byte, perm fs.FileMode) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("model: write %s: %w", path, err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("model: write %s: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err = f.Chmod(perm); err != nil {
		return fmt.Errorf("model: write %s: %w", path, err)
	}
	if _, err = f.Write(data); err != nil {
		return fmt.Errorf("model: write %s: %w", path, err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("model: write %s: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("model: write %s: %w", path, err)
	}
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("model: write %s: %w", path, err)
	}
	return nil
}
