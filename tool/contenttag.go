package tool

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/bits"
	"path/filepath"
	"strings"
)

// ContentTag returns the 4-digit upper-case hex tag Atomic prints in a `[path#TAG]` section
// header (tools.md §6.1): the low 16 bits of xxHash32 (seed 0) of the file text after dropping a
// leading BOM, turning CRLF and CR into LF and removing spaces, tabs and CRs at the end of every
// line. Identical text always has the same tag, so a tag printed by search names the content it
// was taken from.
func ContentTag(data []byte) string {
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	var b bytes.Buffer
	b.Grow(len(data))
	for i := 0; i < len(data); {
		j := bytes.IndexAny(data[i:], "\r\n")
		if j < 0 {
			b.Write(bytes.TrimRight(data[i:], " \t"))
			break
		}
		b.Write(bytes.TrimRight(data[i:i+j], " \t"))
		b.WriteByte('\n')
		i += j + 1
		if data[i-1] == '\r' && i < len(data) && data[i] == '\n' {
			i++
		}
	}
	// A line ending in spaces before a CR was trimmed above; the last line's own trailing
	// blanks too. What is left is the normalised text.
	return fmt.Sprintf("%04X", xxHash32(b.Bytes())&0xffff)
}

// displayPath is how search names a file: relative to cwd with "/" separators when it lies
// inside cwd, else the absolute path (tools.md §6.1).
func displayPath(abs, cwd string) string {
	if rel, err := filepath.Rel(cwd, abs); err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel) {
		return filepath.ToSlash(rel)
	}
	return filepath.ToSlash(abs)
}

// The xxHash32 primes.
const (
	xxPrime1 uint32 = 0x9E3779B1
	xxPrime2 uint32 = 0x85EBCA77
	xxPrime3 uint32 = 0xC2B2AE3D
	xxPrime4 uint32 = 0x27D4EB2F
	xxPrime5 uint32 = 0x165667B1
)

// xxHash32 is the 32-bit xxHash of b with seed 0.
func xxHash32(b []byte) uint32 {
	n := len(b)
	var h uint32
	if n >= 16 {
		p1, p2 := xxPrime1, xxPrime2 // variables: the sums wrap around
		v1, v2, v3, v4 := p1+p2, p2, uint32(0), -p1
		round := func(acc, in uint32) uint32 { return bits.RotateLeft32(acc+in*xxPrime2, 13) * xxPrime1 }
		for len(b) >= 16 {
			v1 = round(v1, binary.LittleEndian.Uint32(b))
			v2 = round(v2, binary.LittleEndian.Uint32(b[4:]))
			v3 = round(v3, binary.LittleEndian.Uint32(b[8:]))
			v4 = round(v4, binary.LittleEndian.Uint32(b[12:]))
			b = b[16:]
		}
		h = bits.RotateLeft32(v1, 1) + bits.RotateLeft32(v2, 7) + bits.RotateLeft32(v3, 12) + bits.RotateLeft32(v4, 18)
	} else {
		h = xxPrime5
	}
	h += uint32(n)
	for ; len(b) >= 4; b = b[4:] {
		h = bits.RotateLeft32(h+binary.LittleEndian.Uint32(b)*xxPrime3, 17) * xxPrime4
	}
	for _, c := range b {
		h = bits.RotateLeft32(h+uint32(c)*xxPrime5, 11) * xxPrime1
	}
	h ^= h >> 15
	h *= xxPrime2
	h ^= h >> 13
	h *= xxPrime3
	h ^= h >> 16
	return h
}
