package tool

import (
	"strconv"
	"strings"

	"github.com/aymanbagabas/go-udiff/lcs"
)

// diffContextLines is how many unchanged lines DisplayDiff shows around a change.
const diffContextLines = 4

// DisplayDiff renders the line diff of before and after in the display format of tools.md §6.3:
// "-N text" for a removed line (old number), "+N text" for an added one (new number), " N text"
// for context (old number), at most 4 context lines around each change and a " <pad> ..." line
// for skipped ones; numbers are right-aligned to the width of the larger line count, lines are
// joined with "\n". firstChangedLine is the 1-based line of the first change in after, 0 when
// the texts are equal. A last line without "\n" differs from the same line with one, as in pi.
func DisplayDiff(before, after string) (diff string, firstChangedLine int) {
	a, b := splitLinesKeep(before), splitLinesKeep(after)
	width := len(strconv.Itoa(max(strings.Count(before, "\n"), strings.Count(after, "\n")) + 1))
	pad := strings.Repeat(" ", width)
	num := func(n int) string {
		s := strconv.Itoa(n)
		if len(s) < width {
			s = pad[:width-len(s)] + s
		}
		return s
	}

	// Parts in order: equal runs, then for each change its removed and added lines.
	type part struct {
		kind  byte // ' ', '-', '+'
		lines []string
	}
	var parts []part
	ai := 0
	for _, d := range lcs.DiffLines(a, b) {
		if d.Start > ai {
			parts = append(parts, part{' ', a[ai:d.Start]})
		}
		if d.End > d.Start {
			parts = append(parts, part{'-', a[d.Start:d.End]})
		}
		if d.ReplEnd > d.ReplStart {
			parts = append(parts, part{'+', b[d.ReplStart:d.ReplEnd]})
		}
		ai = d.End
	}
	if ai < len(a) {
		parts = append(parts, part{' ', a[ai:]})
	}

	var out []string
	oldN, newN := 1, 1
	lastWasChange := false
	context := func(lines []string) {
		for _, l := range lines {
			out = append(out, " "+num(oldN)+" "+strings.TrimSuffix(l, "\n"))
			oldN++
			newN++
		}
	}
	skip := func(n int) {
		out = append(out, " "+pad+" ...")
		oldN += n
		newN += n
	}
	for i, p := range parts {
		switch p.kind {
		case '-', '+':
			if firstChangedLine == 0 {
				firstChangedLine = newN
			}
			for _, l := range p.lines {
				l = strings.TrimSuffix(l, "\n")
				if p.kind == '+' {
					out = append(out, "+"+num(newN)+" "+l)
					newN++
				} else {
					out = append(out, "-"+num(oldN)+" "+l)
					oldN++
				}
			}
			lastWasChange = true
			continue
		}
		nextIsChange := i+1 < len(parts)
		lines := p.lines
		switch {
		case lastWasChange && nextIsChange:
			if len(lines) <= 2*diffContextLines {
				context(lines)
			} else {
				context(lines[:diffContextLines])
				skip(len(lines) - 2*diffContextLines)
				context(lines[len(lines)-diffContextLines:])
			}
		case lastWasChange:
			shown := min(len(lines), diffContextLines)
			context(lines[:shown])
			if len(lines) > shown {
				skip(len(lines) - shown)
			}
		case nextIsChange:
			if n := len(lines) - diffContextLines; n > 0 {
				skip(n)
				lines = lines[n:]
			}
			context(lines)
		default:
			oldN += len(lines)
			newN += len(lines)
		}
		lastWasChange = false
	}
	return strings.Join(out, "\n"), firstChangedLine
}

// splitLinesKeep splits s after every "\n", keeping the terminators; "" has no lines.
func splitLinesKeep(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}
