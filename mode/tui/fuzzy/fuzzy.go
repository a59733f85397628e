// Package fuzzy is the fuzzy matcher of the interactive mode's pickers and slash-command
// autocomplete (tui.md §3.4, "fuzzyMatch"/"fuzzyFilter"): every query character must occur in
// order, case-insensitively; a lower score is a better match. It imports nothing of ours and is
// safe for concurrent use (it has no state).
package fuzzy

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Match scores text against query (tui.md §3.4): consecutive runs earn −5 per run length, each
// skipped character costs +2, a match at a word boundary (start, space, - _ . / :) earns −10, a
// match's position costs +0.1 per index, and an exact (case-insensitive) match earns −100. When the
// query does not match as written, a query of letters then digits (or digits then letters) is
// retried swapped ("abc12" ↔ "12abc") at +5. ok is false when the query does not match; an empty
// query matches everything with score 0.
func Match(query, text string) (score float64, ok bool) {
	q := []rune(strings.ToLower(query))
	if len(q) == 0 {
		return 0, true
	}
	t := []rune(strings.ToLower(text))
	if s, ok := match(q, t); ok {
		return s, true
	}
	if sw, ok := swapped(q); ok {
		if s, ok := match(sw, t); ok {
			return s + 5, true
		}
	}
	return 0, false
}

func match(q, t []rune) (float64, bool) {
	if string(q) == string(t) {
		return -100, true
	}
	score := 0.0
	qi, run, last := 0, 0, -1
	for ti := 0; ti < len(t) && qi < len(q); ti++ {
		if t[ti] != q[qi] {
			continue
		}
		if last >= 0 && ti == last+1 {
			run++
			score -= 5 * float64(run)
		} else {
			run = 0
			if last >= 0 {
				score += 2 * float64(ti-last-1)
			}
		}
		if ti == 0 || isBoundary(t[ti-1]) {
			score -= 10
		}
		score += 0.1 * float64(ti)
		last = ti
		qi++
	}
	return score, qi == len(q)
}

func isBoundary(r rune) bool {
	switch r {
	case ' ', '-', '_', '.', '/', ':':
		return true
	}
	return false
}

// swapped turns "abc12" into "12abc" and "12abc" into "abc12"; ok is false for other shapes.
func swapped(q []rune) ([]rune, bool) {
	i := 0
	for i < len(q) && unicode.IsLetter(q[i]) {
		i++
	}
	if i > 0 && i < len(q) && allDigits(q[i:]) {
		return append(append([]rune{}, q[i:]...), q[:i]...), true
	}
	i = 0
	for i < len(q) && unicode.IsDigit(q[i]) {
		i++
	}
	if i > 0 && i < len(q) && allLetters(q[i:]) {
		return append(append([]rune{}, q[i:]...), q[:i]...), true
	}
	return nil, false
}

func allDigits(r []rune) bool {
	for _, c := range r {
		if !unicode.IsDigit(c) {
			return false
		}
	}
	return true
}

func allLetters(r []rune) bool {
	for _, c := range r {
		if !unicode.IsLetter(c) {
			return false
		}
	}
	return true
}

// Filter returns the items whose key matches every token of query (split on spaces and "/"),
// best first (summed token scores; ties keep the input order). An empty query returns items
// unchanged.
func Filter[T any](items []T, query string, key func(T) string) []T {
	tokens := strings.FieldsFunc(query, func(r rune) bool { return r == ' ' || r == '/' })
	if len(tokens) == 0 {
		return items
	}
	type scored struct {
		item  T
		score float64
	}
	var out []scored
	for _, it := range items {
		k := key(it)
		total, all := 0.0, true
		for _, tok := range tokens {
			s, ok := Match(tok, k)
			if !ok {
				all = false
				break
			}
			total += s
		}
		if all {
			out = append(out, scored{it, total})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].score < out[j].score })
	res := make([]T, len(out))
	for i, s := range out {
		res[i] = s.item
	}
	return res
}

// Clean replaces control characters (newlines, tabs, ESC…) with spaces so text fits one row.
func Clean(s string) string {
	if !strings.ContainsFunc(s, unicode.IsControl) {
		return s
	}
	b := make([]byte, 0, len(s))
	for _, r := range s {
		if unicode.IsControl(r) {
			r = ' '
		}
		b = utf8.AppendRune(b, r)
	}
	return string(b)
}
