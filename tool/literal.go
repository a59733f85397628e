package tool

import "bytes"

// literalFinder finds a fixed byte string in text by scanning for its rarest byte (byteRank) with
// bytes.IndexByte, which is vectorised, and checking a second rare byte and then the whole pattern
// around each candidate. bytes.Index scans for the pattern's first byte instead: for a pattern
// starting with a common letter it stops, and compares, far more often. When candidates turn out
// frequent in the text searched (the rare byte is common there), it hands the rest of the text to
// bytes.Index.
type literalFinder struct {
	pat  []byte
	rare int // offset in pat of its rarest byte
	// rare2 is the offset of the next rarest byte at another offset; equal to rare when pat is
	// one byte long.
	rare2 int
}

// newLiteralFinder returns the finder of pat (not empty).
func newLiteralFinder(pat []byte) *literalFinder {
	f := &literalFinder{pat: pat}
	for i := 1; i < len(pat); i++ {
		if byteRank[pat[i]] < byteRank[pat[f.rare]] {
			f.rare = i
		}
	}
	f.rare2 = f.rare
	for i := range pat {
		if i != f.rare && (f.rare2 == f.rare || byteRank[pat[i]] < byteRank[pat[f.rare2]]) {
			f.rare2 = i
		}
	}
	return f
}

// index returns the offset of the first occurrence of the pattern in s, or -1.
func (f *literalFinder) index(s []byte) int {
	n := len(f.pat)
	if n > len(s) {
		return -1
	}
	b, b2 := f.pat[f.rare], f.pat[f.rare2]
	d2 := f.rare2 - f.rare
	end := len(s) - n + f.rare + 1 // the rare byte of a match lies before end
	misses := 0
	for i := f.rare; i < end; {
		j := bytes.IndexByte(s[i:end], b)
		if j < 0 {
			return -1
		}
		i += j
		start := i - f.rare
		if s[i+d2] == b2 && bytes.Equal(s[start:start+n], f.pat) {
			return start
		}
		i++
		// Many false candidates: the rare byte is common in this text. Let bytes.Index, which
		// falls back to a vectorised comparison at every offset, take the rest.
		misses++
		if misses > 16+(i>>5) {
			if k := bytes.Index(s[start+1:], f.pat); k >= 0 {
				return start + 1 + k
			}
			return -1
		}
	}
	return -1
}

// foldFinder finds an ASCII pattern ignoring ASCII case: it scans for both cases of the pattern's
// rarest byte (at most two bytes.IndexByte scans over the text) and compares around each
// candidate.
type foldFinder struct {
	pat  []byte // lower-cased, not empty
	rare int    // offset in pat of the byte whose two cases are rarest together
}

// newFoldFinder returns the finder of pat (lower-case ASCII, not empty).
func newFoldFinder(pat []byte) *foldFinder {
	f := &foldFinder{pat: pat}
	best := -1
	for i, c := range pat {
		r := int(byteRank[c])
		if 'a' <= c && c <= 'z' {
			r = max(r, int(byteRank[c-'a'+'A']))
		}
		if best < 0 || r < best {
			f.rare, best = i, r
		}
	}
	return f
}

// index returns the offset of the first match of the pattern in s ignoring ASCII case, or -1.
func (f *foldFinder) index(s []byte) int {
	n := len(f.pat)
	if n > len(s) {
		return -1
	}
	lo := f.pat[f.rare]
	hi := lo
	if 'a' <= lo && lo <= 'z' {
		hi = lo - 'a' + 'A'
	}
	end := len(s) - n + f.rare + 1 // the rare byte of a match lies before end
	nextOf := func(b byte, from int) int {
		if i := bytes.IndexByte(s[from:end], b); i >= 0 {
			return from + i
		}
		return -1
	}
	nl, nu := -2, -2 // next position of each case; -2: to find, -1: none left
	if hi == lo {
		nu = -1
	}
	for off := f.rare; off < end; {
		if nl != -1 && nl < off {
			nl = nextOf(lo, off)
		}
		if nu != -1 && nu < off {
			nu = nextOf(hi, off)
		}
		i := nl
		if i < 0 || (nu >= 0 && nu < i) {
			i = nu
		}
		if i < 0 {
			return -1
		}
		if start := i - f.rare; equalFoldASCII(s[start:start+n], f.pat) {
			return start
		}
		off = i + 1
	}
	return -1
}
