package model

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/atomic-cli/atomic/llm"
)

// Errors of model selection, wrapped with the pattern and what to do.
var (
	// ErrNotFound: no model matches the pattern (or the provider filter names no provider).
	ErrNotFound = errors.New("no matching model")
	// ErrAmbiguous: the pattern names the same model id in more than one provider.
	ErrAmbiguous = errors.New("ambiguous model")
	// ErrNoModels: no provider has auth, so there is no default model.
	ErrNoModels = errors.New("no models available")
)

// Resolve finds the model a --model pattern names (config-and-resources.md §9), among all models
// (not only available ones: check APIKey before use) of providerFilter when that is not "".
// It tries in order:
//
//  1. the whole pattern as an exact reference, "provider/id" or "id" (ids may contain ':' and '/';
//     case-insensitive, an exact-case match preferred);
//  2. when the text after the last ':' is a thinking level (llm.ThinkingLevels), the part before it,
//     first exactly, then as in 3; the level is returned lower-cased and not clamped
//     (use llm.ClampThinkingLevel);
//  3. a partial match: the pattern as a case-insensitive substring of "provider/id" or of the
//     model's name, or, when it contains '*' or '?', as a glob ('*' any run, '?' one character,
//     '/' not special) over "provider/id", id and name. Among several matches aliases beat dated
//     ids (ending in -YYYYMMDD or -YYYY-MM-DD); among aliases the shortest id wins, then the
//     greatest; among dated ids the newest.
//
// An id that matches in more than one provider is rejected with an error wrapping ErrAmbiguous
// that lists the "provider/id" candidates. No match gives an error wrapping ErrNotFound. An empty
// pattern selects providerFilter's default model, or Default() without a filter.
func (r *Registry) Resolve(pattern, providerFilter string) (*llm.Model, string, error) {
	st := r.ensure()
	pattern = strings.TrimSpace(pattern)
	cands := st.models
	if providerFilter != "" {
		cands = nil
		for _, m := range st.models {
			if strings.EqualFold(m.Provider, providerFilter) {
				cands = append(cands, m)
			}
		}
		if len(cands) == 0 {
			return nil, "", fmt.Errorf("model: %w: unknown provider %q (known: %s)",
				ErrNotFound, providerFilter, strings.Join(st.providers, ", "))
		}
	}
	if pattern == "" {
		if providerFilter == "" {
			m, err := r.Default()
			return m, "", err
		}
		return providerDefault(cands), "", nil
	}
	if m, err := exactMatch(cands, pattern); m != nil || err != nil {
		return m, "", err
	}
	base, level, badLevel := pattern, "", ""
	if i := strings.LastIndexByte(pattern, ':'); i > 0 {
		if l := strings.ToLower(pattern[i+1:]); llm.ValidThinkingLevel(l) {
			base, level = pattern[:i], l
			if m, err := exactMatch(cands, base); m != nil || err != nil {
				return m, level, err
			}
		} else {
			badLevel = pattern[i+1:]
		}
	}
	if m, err := partialMatch(cands, base); m != nil || err != nil {
		return m, level, err
	}
	if level != "" {
		// The suffix may be part of an id after all ("x:high-mem").
		if m, err := partialMatch(cands, pattern); m != nil || err != nil {
			return m, "", err
		}
	}
	where := ""
	if providerFilter != "" {
		where = fmt.Sprintf(" of provider %q", providerFilter)
	}
	hint := ""
	if badLevel != "" {
		hint = fmt.Sprintf("; %q is not a thinking level (%s)", badLevel, strings.Join(llm.ThinkingLevels, ", "))
	}
	return nil, "", fmt.Errorf("%w%s for %q%s; run --list-models to see the available ones",
		ErrNotFound, where, pattern, hint)
}

// exactMatch finds s as "provider/id" or as a bare id among cands.
func exactMatch(cands []*llm.Model, s string) (*llm.Model, error) {
	if p, id, ok := strings.Cut(s, "/"); ok && p != "" {
		var fold *llm.Model
		for _, m := range cands {
			if strings.EqualFold(m.Provider, p) {
				if m.ID == id {
					return m, nil
				}
				if fold == nil && strings.EqualFold(m.ID, id) {
					fold = m
				}
			}
		}
		if fold != nil {
			return fold, nil
		}
	}
	var same, fold []*llm.Model
	for _, m := range cands {
		switch {
		case m.ID == s:
			same = append(same, m)
		case strings.EqualFold(m.ID, s):
			fold = append(fold, m)
		}
	}
	if len(same) == 0 {
		same = fold
	}
	switch len(same) {
	case 0:
		return nil, nil
	case 1:
		return same[0], nil
	}
	return nil, ambiguous(s, same)
}

func ambiguous(pattern string, ms []*llm.Model) error {
	refs := make([]string, len(ms))
	for i, m := range ms {
		refs[i] = m.Provider + "/" + m.ID
	}
	return fmt.Errorf("model: %w: %q is in several providers; use one of %s (or --provider)",
		ErrAmbiguous, pattern, strings.Join(refs, ", "))
}

// partialMatch finds the best partial or glob match of s among cands, nil when there is none.
func partialMatch(cands []*llm.Model, s string) (*llm.Model, error) {
	ls := strings.ToLower(s)
	glob := strings.ContainsAny(s, "*?")
	var ms []*llm.Model
	for _, m := range cands {
		full := strings.ToLower(m.Provider + "/" + m.ID)
		name := strings.ToLower(m.Name)
		var ok bool
		if glob {
			ok = globMatch(ls, full) || globMatch(ls, strings.ToLower(m.ID)) || globMatch(ls, name)
		} else {
			ok = strings.Contains(full, ls) || strings.Contains(name, ls)
		}
		if ok {
			ms = append(ms, m)
		}
	}
	if len(ms) == 0 {
		return nil, nil
	}
	best := slices.MinFunc(ms, compareCandidates)
	var twins []*llm.Model
	for _, m := range ms {
		if strings.EqualFold(m.ID, best.ID) {
			twins = append(twins, m)
		}
	}
	if len(twins) > 1 {
		return nil, ambiguous(s, twins)
	}
	return best, nil
}

// compareCandidates orders partial matches best first: aliases before dated ids; aliases by
// shorter id, then greater id; dated ids by newer date, then greater id.
func compareCandidates(a, b *llm.Model) int {
	da, db := dateSuffix(a.ID), dateSuffix(b.ID)
	switch {
	case da == "" && db != "":
		return -1
	case da != "" && db == "":
		return 1
	case da == "":
		if c := len(a.ID) - len(b.ID); c != 0 {
			return c
		}
	default:
		if c := strings.Compare(db, da); c != 0 {
			return c
		}
	}
	return strings.Compare(b.ID, a.ID)
}

// dateSuffix returns the digits of a trailing -YYYYMMDD or -YYYY-MM-DD of id, "" when there is none.
func dateSuffix(id string) string {
	digits := func(s string) bool {
		for i := 0; i < len(s); i++ {
			if s[i] < '0' || s[i] > '9' {
				return false
			}
		}
		return true
	}
	if n := len(id); n > 9 && id[n-9] == '-' && digits(id[n-8:]) {
		return id[n-8:]
	}
	if n := len(id); n > 11 && id[n-11] == '-' && id[n-6] == '-' && id[n-3] == '-' &&
		digits(id[n-10:n-6]) && digits(id[n-5:n-3]) && digits(id[n-2:]) {
		return id[n-10:n-6] + id[n-5:n-3] + id[n-2:]
	}
	return ""
}

// globMatch reports whether s matches pattern, where '*' matches any run of bytes (including '/')
// and '?' exactly one byte; every other byte matches itself.
func globMatch(pattern, s string) bool {
	p, i := 0, 0
	star, mark := -1, 0
	for i < len(s) {
		switch {
		case p < len(pattern) && (pattern[p] == '?' || pattern[p] == s[i]):
			p++
			i++
		case p < len(pattern) && pattern[p] == '*':
			star, mark = p, i
			p++
		case star >= 0:
			p = star + 1
			mark++
			i = mark
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}

// providerDefault returns the DefaultModelID of the provider of ms when present, else ms[0].
func providerDefault(ms []*llm.Model) *llm.Model {
	if id := DefaultModelID(ms[0].Provider); id != "" {
		for _, m := range ms {
			if m.ID == id {
				return m
			}
		}
	}
	return ms[0]
}

// Default returns the model to start with when nothing else chooses one (config-and-resources.md
// §9, last step): for the first provider with auth (HasAuth) in the order anthropic, openai,
// google, then models.json's custom providers in file order, its DefaultModelID model when it has
// it, else its first model. Without any, the error wraps ErrNoModels and names the environment
// variables, auth.json and models.json to configure.
func (r *Registry) Default() (*llm.Model, error) {
	st := r.ensure()
	for _, p := range st.providers {
		if !r.HasAuth(p) {
			continue
		}
		var ms []*llm.Model
		for _, m := range st.models {
			if m.Provider == p && r.speaksAPI(m.API) {
				ms = append(ms, m)
			}
		}
		if len(ms) > 0 {
			return providerDefault(ms), nil
		}
	}
	var vars []string
	for _, p := range builtinProviders {
		speaks := false
		for _, m := range st.models {
			if m.Provider == p && r.speaksAPI(m.API) {
				speaks = true
				break
			}
		}
		if !speaks {
			continue
		}
		for _, v := range EnvVars(p) {
			if strings.HasSuffix(v, "_API_KEY") {
				vars = append(vars, v)
			}
		}
	}
	return nil, fmt.Errorf("model: %w: set one of %s, store an API key in %s, or add a provider to %s",
		ErrNoModels, strings.Join(vars, ", "), r.auth.Path(), filepath.Join(r.dir, ModelsFile))
}
