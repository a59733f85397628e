package model

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/atomic-cli/atomic/llm"
)

// FormatList renders models as the --list-models table (rpc-and-json.md §9): a header row and one
// row per model with the columns provider, model, context, max-out, thinking, images; columns are
// padded to their widest cell and separated by two spaces, trailing spaces trimmed, every line
// ending in "\n". Token counts are shortened (FormatTokens); thinking and images are "yes" or
// "no". Rows are sorted by provider, then id. A non-empty search keeps only the models whose
// "provider id" contains every white-space separated word of search as a case-insensitive
// subsequence. When no row is left the result is one line, "No models available" or
// `No models matching "<search>"`.
func FormatList(models []*llm.Model, search string) string {
	words := strings.Fields(strings.ToLower(search))
	rows := make([]*llm.Model, 0, len(models))
	for _, m := range models {
		if m != nil && fuzzyMatch(words, strings.ToLower(m.Provider+" "+m.ID)) {
			rows = append(rows, m)
		}
	}
	if len(rows) == 0 {
		if len(words) > 0 {
			return fmt.Sprintf("No models matching %q\n", search)
		}
		return "No models available\n"
	}
	slices.SortStableFunc(rows, func(a, b *llm.Model) int {
		if c := strings.Compare(a.Provider, b.Provider); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	table := make([][6]string, 0, len(rows)+1)
	table = append(table, [6]string{"provider", "model", "context", "max-out", "thinking", "images"})
	for _, m := range rows {
		table = append(table, [6]string{
			m.Provider, m.ID, FormatTokens(m.ContextWindow), FormatTokens(m.MaxTokens),
			yesNo(m.Reasoning), yesNo(m.SupportsImages()),
		})
	}
	var width [6]int
	for _, row := range table {
		for i, cell := range row {
			width[i] = max(width[i], len(cell))
		}
	}
	var b strings.Builder
	for _, row := range table {
		var line strings.Builder
		for i, cell := range row {
			if i > 0 {
				line.WriteString("  ")
			}
			line.WriteString(cell)
			if i < len(row)-1 {
				line.WriteString(strings.Repeat(" ", width[i]-len(cell)))
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " "))
		b.WriteByte('\n')
	}
	return b.String()
}

// FormatTokens shortens a token count: below 1000 as is ("512"), below a million in thousands
// ("200K", "16.4K"), else in millions ("1M", "1.5M"), with at most one decimal, dropped when zero.
func FormatTokens(n int) string {
	switch {
	case n < 1000:
		return strconv.Itoa(n)
	case n < 999_950: // rounds below "1000K"
		return short(float64(n)/1000) + "K"
	}
	return short(float64(n)/1_000_000) + "M"
}

func short(v float64) string {
	s := strconv.FormatFloat(v, 'f', 1, 64)
	return strings.TrimSuffix(s, ".0")
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// fuzzyMatch reports whether every word occurs in s as a subsequence.
func fuzzyMatch(words []string, s string) bool {
	for _, w := range words {
		i := 0
		for j := 0; j < len(s) && i < len(w); j++ {
			if s[j] == w[i] {
				i++
			}
		}
		if i < len(w) {
			return false
		}
	}
	return true
}
