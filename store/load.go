package store

import (
	"bytes"
	"fmt"
	"runtime"
	"sync"

	"github.com/atomic-cli/atomic/llm"
)

// fileData is a parsed session file.
type fileData struct {
	header  Header
	entries []*Entry  // nil at i when entry i is lazy (lazy[i])
	lazy    []lazyRec // parallel to entries when the parse was lazy, else nil
	data    []byte    // the file buffer lazy records point into
	skipped int       // non-blank lines that are not JSON objects
	blank   bool      // the file holds nothing but whitespace
}

// lazyRec is a message entry of a loaded file that is not materialized as an Entry: where its
// line and its message are in the file buffer, and what the tree and the context read without
// decoding it. A resumed long session is mostly such entries, so a record is kept small (the
// Entry it stands for is over 400 bytes). Only valid message entries are lazy; Session.at
// materializes one on demand by decoding its line exactly as an eager load would.
type lazyRec struct {
	id, parent    string // entry id and parentId; both share the file buffer
	line, lineEnd uint32 // the entry's line: data[line:lineEnd]
	msg, msgEnd   uint32 // its "message" member: data[msg:msgEnd]
	hasParent     bool   // parentId is a string (false: null or absent)
	assistant     bool   // the message role is assistant
}

// maxLazyFile is the largest file parsed lazily (record offsets are 32-bit).
const maxLazyFile = 1<<32 - 1

// parseSession splits data into lines and decodes them (session-format.md §2): blank lines are
// ignored, lines that are not a JSON object are counted in skipped, the first object must be a
// session header (else ErrNotSession). Entries keep slices of data, which must not be modified
// afterwards. Large files are parsed in parallel chunks (split at line ends), which keeps the
// result identical to a sequential parse. With lazy, valid message entries of a current-version
// file are returned as lazy records (fd.lazy) instead of entries.
func parseSession(data []byte, lazy bool) (*fileData, error) {
	fd := &fileData{blank: true, data: data}
	fields := make([]field, 0, 16)
	off := 0
	header := false
	for off < len(data) && !header {
		var line []byte
		line, off = nextLine(data, off)
		if isBlank(line) {
			continue
		}
		fd.blank = false
		var ok bool
		if fields, ok = parseObject(line, fields); !ok {
			fd.skipped++
			continue
		}
		if err := fd.header.decode(fields); err != nil {
			return fd, ErrNotSession
		}
		header = true
	}
	if !header {
		if fd.blank {
			return fd, nil
		}
		return fd, ErrNotSession
	}
	lazy = lazy && fd.header.Version >= CurrentVersion && len(data) <= maxLazyFile
	// Every chunk parses into its own window of one pair of arrays sized by its line count (an
	// upper bound of its entries); the windows are then closed up in place, so a long file's
	// entry list is allocated once and never copied to a second array.
	chunks := splitChunks(data[off:])
	bases := make([]int, len(chunks))
	starts := make([]int, len(chunks)+1)
	for b, i := 0, off; b < len(chunks); b++ {
		bases[b] = i
		i += len(chunks[b])
		starts[b+1] = starts[b] + bytes.Count(chunks[b], []byte{'\n'}) + 1
	}
	// Spare room after the entries lets the session append without regrowing a long list.
	entries := make([]*Entry, starts[len(chunks)], starts[len(chunks)]+spareEntries)
	var recs []lazyRec
	if lazy {
		recs = make([]lazyRec, starts[len(chunks)])
	}
	window := func(b int) chunk {
		c := chunk{entries: entries[starts[b]:starts[b]:starts[b+1]]}
		if lazy {
			c.lazy = recs[starts[b]:starts[b]:starts[b+1]]
		}
		return c
	}
	results := make([]chunk, len(chunks))
	if len(chunks) == 1 {
		results[0] = parseChunk(chunks[0], bases[0], window(0))
	} else {
		var wg sync.WaitGroup
		for i := range chunks {
			wg.Go(func() { results[i] = parseChunk(chunks[i], bases[i], window(i)) })
		}
		wg.Wait()
	}
	n := 0
	for i := range results {
		fd.skipped += results[i].skipped
		k := copy(entries[n:], results[i].entries) // moves down within the array, never up
		if lazy {
			copy(recs[n:], results[i].lazy)
		}
		n += k
	}
	clear(entries[n:])
	fd.entries = entries[:n]
	if lazy {
		clear(recs[n:])
		fd.lazy = recs[:n:n]
	}
	return fd, nil
}

// spareEntries is the room a loaded entry list has for appends before it regrows.
const spareEntries = 64

// minChunk is the smallest piece of a file worth a goroutine of its own.
const minChunk = 4 << 20

// splitChunks cuts data into up to GOMAXPROCS pieces that end at line ends.
func splitChunks(data []byte) [][]byte {
	n := min(runtime.GOMAXPROCS(0), len(data)/minChunk)
	if n <= 1 {
		return [][]byte{data}
	}
	out := make([][]byte, 0, n)
	size := len(data) / n
	for len(data) > 0 && len(out) < n-1 {
		if len(data) <= size {
			break
		}
		k := bytes.IndexByte(data[size:], '\n')
		if k < 0 {
			break
		}
		out = append(out, data[:size+k+1])
		data = data[size+k+1:]
	}
	if len(data) > 0 {
		out = append(out, data)
	}
	return out
}

// chunk is the parse result of one piece of a file.
type chunk struct {
	entries []*Entry  // nil where the entry is lazy
	lazy    []lazyRec // parallel to entries for a lazy parse, else nil
	skipped int
}

// parseChunk decodes the entry lines of data, which starts at offset base of the file buffer,
// appending to c's entries (and, for a lazy parse, c.lazy), which must have room for every line
// of data. A lazy parse keeps valid message entries as lazy records and allocates only the other
// entries.
func parseChunk(data []byte, base int, c chunk) chunk {
	lazy := c.lazy != nil
	var slab []Entry // one allocation for the entries of an eager parse; never grows
	var parents []string
	if !lazy {
		n := cap(c.entries) - len(c.entries)
		slab = make([]Entry, 0, n)
		parents = make([]string, n) // backing store for ParentID
	}
	fields := make([]field, 0, 16)
	msg := make([]field, 0, 16)
	in := interner{}
	var scratch Entry
	var parent string
	for off := 0; off < len(data); {
		start := off
		var line []byte
		line, off = nextLine(data, off)
		if isBlank(line) {
			continue
		}
		var ok bool
		if fields, msg, ok = parseLine(line, fields, msg, true); !ok {
			c.skipped++
			continue
		}
		if !lazy {
			i := len(slab)
			slab = append(slab, Entry{})
			e := &slab[i]
			e.decode(line, fields, msg, &parents[i], in)
			c.entries = append(c.entries, e)
			continue
		}
		scratch = Entry{}
		scratch.decode(line, fields, msg, &parent, in)
		if scratch.Type == TypeMessage && !scratch.opaque {
			// cap tells where msgRaw starts in line: both run to the end of the file buffer.
			m := base + start + cap(line) - cap(scratch.msgRaw)
			r := lazyRec{id: scratch.ID, hasParent: scratch.ParentID != nil, assistant: scratch.role == llm.RoleAssistant,
				line: uint32(base + start), lineEnd: uint32(base + start + len(line)),
				msg: uint32(m), msgEnd: uint32(m + len(scratch.msgRaw))}
			if r.hasParent {
				r.parent = *scratch.ParentID
			}
			c.entries = append(c.entries, nil)
			c.lazy = append(c.lazy, r)
			continue
		}
		e := new(Entry)
		*e = scratch
		if e.ParentID != nil {
			p := *e.ParentID
			e.ParentID = &p
		}
		c.entries = append(c.entries, e)
		c.lazy = append(c.lazy, lazyRec{})
	}
	return c
}

// nextLine returns the line starting at off (without its \n) and the offset after it.
func nextLine(data []byte, off int) ([]byte, int) {
	k := bytes.IndexByte(data[off:], '\n')
	if k < 0 {
		return data[off:], len(data)
	}
	return data[off : off+k], off + k + 1
}

func isBlank(line []byte) bool {
	for _, c := range line {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

// migrate brings a file of version 1 or 2 to CurrentVersion in memory (session-format.md §9).
// Changed entries lose their raw line so they are re-encoded when written.
func (fd *fileData) migrate() error {
	v := fd.header.Version
	if v >= CurrentVersion {
		return nil
	}
	if v < 2 {
		taken := make(map[string]bool, len(fd.entries))
		for _, e := range fd.entries {
			e.ID = newEntryID(func(id string) bool { return taken[id] })
			taken[e.ID] = true
		}
		var prev *string
		for _, e := range fd.entries {
			e.ParentID = prev
			id := e.ID
			prev = &id
			if e.opaque {
				raw, err := rewriteEnvelope(e.raw, e.ID, e.ParentID)
				if err != nil {
					return err
				}
				e.raw = raw
				continue
			}
			e.raw = nil
			if e.Type == TypeCompaction {
				fd.convertFirstKeptIndex(e)
			}
		}
	}
	for _, e := range fd.entries {
		if e.Type != TypeMessage || e.opaque || e.msgRaw == nil {
			continue
		}
		if role, _, _ := peekMessage(e.msgRaw); role == "hookMessage" {
			// llm.Message reads the legacy role as custom, so decoding and re-encoding renames it.
			if err := e.decodeMessage(); err == nil {
				e.raw = nil
			}
		}
	}
	fd.header.Version = CurrentVersion
	return nil
}

// convertFirstKeptIndex turns a v1 firstKeptEntryIndex (an index into the file's objects, header
// included) into firstKeptEntryId.
func (fd *fileData) convertFirstKeptIndex(e *Entry) {
	for i, f := range e.Extra {
		if f.Key != "firstKeptEntryIndex" {
			continue
		}
		if idx, ok := rawInt(f.Value); ok && idx >= 1 && int(idx) <= len(fd.entries) {
			id := fd.entries[idx-1].ID
			e.FirstKeptEntryID = &id
		}
		e.Extra = append(e.Extra[:i:i], e.Extra[i+1:]...)
		return
	}
}

// rewriteEnvelope sets id and parentId of an uninterpreted entry line, keeping every other member
// and its order. New members go right after "type".
func rewriteEnvelope(raw []byte, id string, parent *string) ([]byte, error) {
	fields, ok := parseObject(raw, nil)
	if !ok {
		return nil, fmt.Errorf("store: migrate: entry is not a JSON object")
	}
	parentJSON := []byte("null")
	if parent != nil {
		parentJSON = llm.AppendJSONString(nil, *parent)
	}
	w := objw{}
	wroteEnv := false
	env := func() {
		if !wroteEnv {
			w.str("id", id)
			w.raw("parentId", parentJSON)
			wroteEnv = true
		}
	}
	for i := range fields {
		switch k := fields[i].name(); k {
		case "id", "parentId":
			env()
		default:
			w.raw(k, fields[i].val)
			if k == "type" {
				env()
			}
		}
	}
	env()
	return w.close(), nil
}

// encodeFile returns the whole file text: header and entries, one line each.
func encodeFile(h *Header, entries []*Entry) ([]byte, error) {
	buf := h.appendJSON(nil)
	buf = append(buf, '\n')
	var err error
	for _, e := range entries {
		if buf, err = e.line(buf); err != nil {
			return nil, err
		}
		buf = append(buf, '\n')
	}
	return buf, nil
}

// line appends the entry's line without the newline: the line as read when the entry came from
// a file and was not changed, else its encoding.
func (e *Entry) line(dst []byte) ([]byte, error) {
	if e.raw != nil {
		return append(dst, e.raw...), nil
	}
	return e.appendJSON(dst)
}

// messageSummary reads what a session listing needs from a raw message: role, the text of its
// text content (blocks joined with a space), its timestamp (ms) and whether it has content.
func messageSummary(raw []byte) (role, text string, ts int64, hasTS, hasContent bool) {
	var buf [24]field
	fields, ok := parseObject(raw, buf[:0])
	if !ok {
		return
	}
	var content []byte
	for i := range fields {
		switch string(fields[i].key) {
		case "role":
			role, _ = rawString(fields[i].val)
		case "content":
			content = fields[i].val
			hasContent = true
		case "timestamp":
			ts, hasTS = rawInt(fields[i].val)
		}
	}
	if role != llm.RoleUser && role != llm.RoleAssistant {
		return
	}
	switch {
	case len(content) > 0 && content[0] == '"':
		text, _ = rawString(content)
	case len(content) > 0 && content[0] == '[':
		var parts []string
		for it := newElements(content); ; {
			v, more := it.next()
			if !more {
				break
			}
			var bf [8]field
			bfs, ok := parseObject(v, bf[:0])
			if !ok {
				continue
			}
			var typ, t string
			var haveText bool
			for j := range bfs {
				switch string(bfs[j].key) {
				case "type":
					typ, _ = rawString(bfs[j].val)
				case "text":
					t, haveText = rawString(bfs[j].val)
				}
			}
			if typ == llm.ContentText && haveText {
				parts = append(parts, t)
			}
		}
		text = joinSpace(parts)
	}
	return
}

func joinSpace(parts []string) string {
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0]
	}
	n := len(parts) - 1
	for _, p := range parts {
		n += len(p)
	}
	b := make([]byte, 0, n)
	for i, p := range parts {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, p...)
	}
	return string(b)
}
