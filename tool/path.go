package tool

import (
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// unicodeSpaces are the space variants a model may emit inside a path; ExpandPath turns each into
// an ASCII space (tools.md §2).
var unicodeSpaces = strings.NewReplacer(
	"\u00A0", " ", "\u2000", " ", "\u2001", " ", "\u2002", " ", "\u2003", " ", "\u2004", " ",
	"\u2005", " ", "\u2006", " ", "\u2007", " ", "\u2008", " ", "\u2009", " ", "\u200A", " ",
	"\u202F", " ", "\u205F", " ", "\u3000", " ",
)

// ExpandPath applies the textual part of tools.md §2 to a path a model sent: it strips one leading
// "@", replaces Unicode space variants with ASCII spaces and expands "~" and "~/" to the home
// directory. It does not resolve relative paths.
func ExpandPath(p string) string {
	p = strings.TrimPrefix(p, "@")
	p = unicodeSpaces.Replace(p)
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return home + p[1:]
		}
	}
	return p
}

// ResolveToCwd expands p (ExpandPath) and makes it absolute: an absolute path is returned as it
// is, a relative one is joined to cwd and cleaned (tools.md §2, resolveToCwd).
func ResolveToCwd(p, cwd string) string {
	p = ExpandPath(p)
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(cwd, p)
}

// ResolveReadPath is ResolveToCwd followed, when that path does not exist on the local file
// system, by the variants of tools.md §2 tried in order: macOS screenshot names (narrow no-break
// space before AM/PM), NFD normalisation, curly apostrophe (U+2019), NFD plus curly apostrophe.
// The first variant that exists wins; otherwise the plain resolved path is returned.
func ResolveReadPath(p, cwd string) string {
	return ResolveReadPathFunc(p, cwd, func(path string) bool {
		_, err := os.Stat(path)
		return err == nil
	})
}

// ResolveReadPathFunc is ResolveReadPath with the existence test supplied by the caller, for tools
// whose files live behind pluggable operations.
func ResolveReadPathFunc(p, cwd string, exists func(path string) bool) string {
	resolved := ResolveToCwd(p, cwd)
	if exists(resolved) {
		return resolved
	}
	try := func(v string) bool { return v != resolved && exists(v) }
	if v := screenshotVariant(resolved); try(v) {
		return v
	}
	nfd := norm.NFD.String(resolved)
	if try(nfd) {
		return nfd
	}
	if v := strings.ReplaceAll(resolved, "'", "\u2019"); try(v) {
		return v
	}
	if v := strings.ReplaceAll(nfd, "'", "\u2019"); try(v) {
		return v
	}
	return resolved
}

// screenshotVariant puts a narrow no-break space (U+202F) before "AM." and "PM." where a plain
// space stands, as macOS names screenshots.
func screenshotVariant(p string) string {
	return strings.NewReplacer(" AM.", "\u202FAM.", " PM.", "\u202FPM.").Replace(p)
}
